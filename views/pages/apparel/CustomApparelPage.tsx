import { useContext } from "react";
import {
  APPAREL_SETS,
  FEATURED_DESIGNS,
  FEATURED_TEAMS,
  PORTFOLIO,
  PORTFOLIO_SETS,
  PROCESS_STEPS,
  RASHGUARD_COLORWAYS,
  RASHGUARD_FEATURES,
  ROTATION_MS,
  SCHOOL_PACKAGES,
} from "../../../src/shared/customApparel/content.ts";
import { formWidgetProps, type FormState } from "../../../src/shared/forms.ts";
import { CUSTOM_ORDERS } from "../../../src/shared/inbox/policies.ts";
import { CsrfContext } from "../../../components/Form.tsx";
import { Widget } from "../../components/Widget.tsx";
import { useImageUrl } from "../../layout/imageUrl.ts";

export interface CustomApparelPageProps {
  quote: { form: FormState; sent: boolean };
}

export function CustomApparelPage({ quote }: CustomApparelPageProps) {
  const csrfToken = useContext(CsrfContext);
  const image = useImageUrl();
  const withImage = <T extends { image: string }>(item: T): T => ({ ...item, image: image(item.image) });
  return (
    <>
      <section className="page-hero apparel-hero" aria-labelledby="apparel-title">
        <div className="container apparel-hero-inner">
          <div>
            <p className="eyebrow">Custom apparel studio</p>
            <h1 id="apparel-title" className="display">Gear Built for Your Team</h1>
            <p className="lead">Singlets, rashguards, warmups and team wear designed from scratch for your program, by people who have stood in a corner on match day.</p>
            <p className="actions"><a className="btn btn-primary" href="#contact-form">Request Custom Quote</a></p>
          </div>
          <img src={image("/images/apparel/featured-competition.svg")} alt="A red competition singlet with black side panels" width={480} height={480} fetchPriority="high" />
        </div>
      </section>

      <section className="section" aria-labelledby="intro-title">
        <div className="container prose apparel-intro">
          <h2 id="intro-title">Your colors. Your mascot. Our craft.</h2>
          <p>
            Every custom order starts with a blank template and a conversation. We sublimate color into the fabric so it never cracks or
            peels, cut every piece to your size run, and stand behind it for the whole season. Clubs, high schools, colleges and
            training centers trust us with the gear they compete in.
          </p>
        </div>
      </section>

      <section className="section section-alt" aria-labelledby="featured-title">
        <div className="container">
          <div className="section-head"><h2 id="featured-title">Featured Designs</h2></div>
          <div className="grid grid-3">
            {FEATURED_DESIGNS.map((d) => (
              <article className="card showcase-card" key={d.name}>
                <img src={image(d.image)} alt="" width={480} height={480} loading="lazy" />
                <div className="card-body">
                  <h3>{d.name}</h3>
                  <p className="muted">{d.description}</p>
                  <ul className="check-list">{d.points.map((p) => <li key={p}>{p}</li>)}</ul>
                </div>
              </article>
            ))}
          </div>
        </div>
      </section>

      <section className="section" aria-labelledby="process-title">
        <div className="container">
          <div className="section-head">
            <h2 id="process-title">Our Design Process</h2>
            <p className="lead">From first call to finished gear in {CUSTOM_ORDERS.productionDays.min}-{CUSTOM_ORDERS.productionDays.max} days, plus {CUSTOM_ORDERS.shippingNote} to ship.</p>
          </div>
          <ol className="process-steps">
            {PROCESS_STEPS.map((s, i) => (
              <li key={s.name}>
                <span className="process-number" aria-hidden="true">{String(i + 1).padStart(2, "0")}</span>
                <h3>{s.name}</h3>
                <p className="muted">{s.description}</p>
              </li>
            ))}
          </ol>
        </div>
      </section>

      <section className="section section-alt" aria-labelledby="portfolio-title">
        <div className="container">
          <div className="section-head">
            <h2 id="portfolio-title">Design Portfolio</h2>
            <p className="lead">Twelve recent builds. Open any design for the details, and ask for something similar for your team.</p>
          </div>
          <ul className="portfolio-grid">
            {PORTFOLIO.map((p) => (
              <li key={p.slug}>
                <button type="button" className="portfolio-item" popoverTarget={`design-${p.slug}`}>
                  <img src={image(p.image)} alt="" width={480} height={480} loading="lazy" />
                  <span className="portfolio-item-name">{p.name}</span>
                  <span className="portfolio-item-category">{p.category}</span>
                </button>
                <div id={`design-${p.slug}`} className="portfolio-dialog" popover="auto" role="dialog" aria-label={p.name}>
                  <img src={image(p.image)} alt={p.name} width={480} height={480} loading="lazy" />
                  <div className="portfolio-dialog-body">
                    <p className="eyebrow">{p.category}</p>
                    <h3>{p.name}</h3>
                    <p className="muted">{p.description}</p>
                    <p className="swatches">
                      <span className="swatch-chip"><span className="swatch-dot" style={{ background: p.teamColor }} aria-hidden="true" />Team color</span>
                    </p>
                    <ul className="tag-list">{p.items.map((item) => <li key={item}>{item}</li>)}</ul>
                    <p className="actions">
                      <a className="btn btn-primary" href={`/custom-apparel?design=${encodeURIComponent(p.slug)}#contact-form`}>Request Similar Design</a>
                      <button type="button" className="btn btn-ghost" popoverTarget={`design-${p.slug}`} popoverTargetAction="hide">Close</button>
                    </p>
                  </div>
                </div>
              </li>
            ))}
          </ul>
        </div>
      </section>

      <section className="section" aria-labelledby="teams-title">
        <div className="container">
          <div className="section-head"><h2 id="teams-title">Featured Teams</h2></div>
          <div className="grid grid-4">
            {FEATURED_TEAMS.map((t) => (
              <article className="card showcase-card team-card" key={t.name} style={{ borderTopColor: t.teamColor }}>
                <img src={image(t.image)} alt="" width={480} height={480} loading="lazy" />
                <div className="card-body">
                  <h3>{t.name}</h3>
                  <p className="team-card-location">{t.location}</p>
                  <p className="muted">{t.description}</p>
                  <ul className="tag-list">{t.items.map((i) => <li key={i}>{i}</li>)}</ul>
                </div>
              </article>
            ))}
          </div>
        </div>
      </section>

      <section className="section section-alt" aria-labelledby="colorways-title">
        <div className="container">
          <div className="section-head">
            <h2 id="colorways-title">Rashguard Colorways</h2>
            <p className="lead">Six stock colorways, each ready for your team's crest and names.</p>
          </div>
          <div className="colorways">
            <fieldset className="colorway-picker">
              <legend>Choose a colorway</legend>
              {RASHGUARD_COLORWAYS.map((c, i) => (
                <label key={c.id} className="colorway-option">
                  <input type="radio" name="colorway" value={c.id} id={`colorway-${c.id}`} defaultChecked={i === 0} />
                  <span className="colorway-swatch" style={{ background: c.gradient }} aria-hidden="true" />
                  <span>{c.name}</span>
                </label>
              ))}
            </fieldset>
            <div className="colorway-panels">
              {RASHGUARD_COLORWAYS.map((c) => (
                <div key={c.id} className="colorway-panel" data-colorway={c.id}>
                  <img src={image(c.image)} alt={`${c.name} long-sleeve rashguard`} width={480} height={480} loading="lazy" />
                  <div>
                    <h3>{c.name} Rashguard</h3>
                    <p className="muted">{c.description}</p>
                  </div>
                </div>
              ))}
            </div>
            <div className="colorway-features">
              <h3>Built for the room</h3>
              <ul className="check-list">{RASHGUARD_FEATURES.map((f) => <li key={f}>{f}</li>)}</ul>
            </div>
          </div>
        </div>
      </section>

      <section className="section" aria-labelledby="schools-title">
        <div className="container">
          <div className="section-head">
            <h2 id="schools-title">School Apparel Packages</h2>
            <p className="lead">Complete packages in school colors, priced per roster and delivered before the first dual.</p>
          </div>
          <Widget name="SchoolPackages" load="visible" props={{ schools: SCHOOL_PACKAGES.map((school) => ({ ...school, images: school.images.map(withImage) })), intervalMs: ROTATION_MS.schoolImages }} />
        </div>
      </section>

      <section className="section section-alt" aria-labelledby="sets-title">
        <div className="container">
          <div className="section-head">
            <h2 id="sets-title">Complete Custom Apparel Sets</h2>
            <p className="lead">Head-to-toe sets in one design language, from weigh-ins to the podium.</p>
          </div>
          <Widget name="ApparelSets" load="visible" props={{ sets: APPAREL_SETS.map((set) => ({ ...set, items: set.items.map(withImage) })), intervalMs: ROTATION_MS.apparelSets }} />
        </div>
      </section>

      <section className="section" aria-labelledby="portfolio-sets-title">
        <div className="container">
          <div className="section-head">
            <h2 id="portfolio-sets-title">Design Portfolio Collections</h2>
            <p className="lead">Browse our work by category.</p>
          </div>
          <Widget name="PortfolioSets" load="visible" props={{ sets: PORTFOLIO_SETS.map((set) => ({ ...set, designs: set.designs.map(withImage) })), intervalMs: ROTATION_MS.portfolioSets }} />
        </div>
      </section>

      <section id="contact-form" className="section section-alt quote-section" aria-labelledby="quote-title">
        <div className="container quote-inner">
          <div>
            <p className="eyebrow">Free consultation</p>
            <h2 id="quote-title">Request a Custom Quote</h2>
            <p className="muted">
              Tell us about your team and what you need. Our design lead answers within one business day with pricing, a timeline and
              a time for your consultation call.
            </p>
            <ul className="check-list">
              <li>No minimum for design concepts</li>
              <li>Names and numbers on every piece</li>
              <li>{CUSTOM_ORDERS.productionDays.min}-{CUSTOM_ORDERS.productionDays.max} days production after proof approval</li>
            </ul>
          </div>
          <Widget name="QuoteForm" load="visible" props={formWidgetProps(csrfToken, quote.form, quote.sent)} />
        </div>
      </section>
    </>
  );
}
