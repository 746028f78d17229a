import { useContext } from "react";
import type { Site } from "../../../src/shared/site.ts";
import type { HomeOffers } from "../../../src/shared/home/eventOffers.ts";
import { TEAM_MINIMUM_ATHLETES } from "../../../src/shared/home/eventOffers.ts";
import { formWidgetProps, type FormState } from "../../../src/shared/forms.ts";
import { CsrfContext } from "../../../components/Form.tsx";
import { Widget } from "../../components/Widget.tsx";
import { useImageUrl } from "../../layout/imageUrl.ts";
import { formatDollars, formatPrice } from "../../../src/shared/money.ts";

export interface HomePageProps {
  site: Site;
  offers: HomeOffers;
  newsletter: { form: FormState; subscribed: boolean };
}

/** Where 'Register as Team' goes without JavaScript; with it, the link opens the team event modal. */
export const TEAM_EVENTS_PATH = "/team-events";

export function HomePage({ site, offers, newsletter }: HomePageProps) {
  const csrfToken = useContext(CsrfContext);
  const image = useImageUrl();
  const { teamDeal, featured, promo } = offers;
  return (
    <>
      {teamDeal ? (
        <a className="team-banner" href="#signup-portal">
          <span className="team-banner-tag">Team Discount</span>
          <span>
            {`Teams of ${TEAM_MINIMUM_ATHLETES}+ pay ${formatDollars(teamDeal.teamPriceCents)} per athlete: save up to ${formatDollars(teamDeal.maxSavingsCents)} each.`}
          </span>
          <span className="team-banner-cta">Register your team <span aria-hidden="true">→</span></span>
        </a>
      ) : null}

      {featured ? (
        <a className="featured-athlete" href={`/events/${featured.id}`}>
          <img src={image("/images/home/featured-athlete.svg")} alt="" width={800} height={500} loading="lazy" />
          <span className="featured-athlete-text">
            <span className="eyebrow">Featured Athlete</span>
            <strong>A two-time national champion leads the room at the {featured.title}</strong>
            <span>{`${featured.dateText} · ${featured.location}. Drill with the coaches who built champions.`}</span>
          </span>
          <span className="featured-athlete-cta">See the camp <span aria-hidden="true">→</span></span>
        </a>
      ) : null}

      <section className="home-hero" aria-labelledby="home-hero-title">
        <img className="home-hero-art" src={image("/images/home/hero.svg")} alt="" width={1600} height={900} fetchPriority="high" />
        <div className="container home-hero-inner">
          <p className="eyebrow">{site.displayName} · Summer Camps</p>
          <h1 id="home-hero-title" className="display">Earn it on the mat.</h1>
          <p className="lead">
            Elite wrestling camps for athletes 10 and up through high school, coached by champions and capped at 200 wrestlers so
            every athlete gets reps, corrections and live goes, not just a seat in the bleachers.
          </p>
          <p className="actions">
            <a className="btn btn-primary" href="#signup-portal">Register as Individual</a>
            <a className="btn btn-secondary" href={TEAM_EVENTS_PATH} data-team-modal-open>Register as Team</a>
          </p>
        </div>
      </section>

      {promo ? (
        <section className="section promo" aria-labelledby="promo-title">
          <div className="container promo-inner">
            <div className="promo-copy">
              <p className="eyebrow">Limited-time price</p>
              <h2 id="promo-title">{promo.title}</h2>
              <p className="muted">{promo.dateText} · {promo.location}</p>
              <p className="promo-price">
                <s className="price-old" aria-label={`Was ${formatDollars(promo.originalPriceCents)}`}>{formatDollars(promo.originalPriceCents)}</s>
                <span className="promo-now" aria-label={`Now ${formatDollars(promo.priceCents)}`}>{formatDollars(promo.priceCents)}</span>
                <span className="badge">SAVE {formatDollars(promo.savingsCents)}</span>
              </p>
              <p>Three days of national-level instruction, live wrestling and film with the staff that has coached state, national and world champions.</p>
              <h3 className="promo-days-title">Day options</h3>
              <ul className="promo-days">
                {promo.dayOptions.map((d) => (
                  <li key={d.label}>
                    <span>{d.label}</span>
                    <strong>{formatPrice(d.priceCents)}</strong>
                  </li>
                ))}
              </ul>
              <p className="actions">
                <a className="btn btn-primary" href={`/events/${promo.id}`}>Claim your spot</a>
              </p>
            </div>
            <img className="promo-art" src={image("/images/home/champ-camp.svg")} alt="Gold champion's medal on a red ribbon" width={800} height={600} loading="lazy" />
          </div>
        </section>
      ) : null}

      <section className="section section-alt summer" aria-labelledby="summer-title">
        <div className="container">
          <div className="section-head">
            <p className="eyebrow">Camp season</p>
            <h2 id="summer-title">{offers.seasonYear ? `Summer ${offers.seasonYear} Camps` : "Summer Camps"}</h2>
            <p className="lead">Four stops, one standard: hard drilling, smart live goes and coaches who know every athlete by name.</p>
          </div>
          <a className="summer-poster" href="/events">
            <img src={image("/images/home/summer-camps.svg")} alt="Wrestlers drilling shots and sprawls on a red mat under a summer sun" width={1280} height={720} loading="lazy" />
            <span className="summer-poster-cta">View all camps <span aria-hidden="true">→</span></span>
          </a>
        </div>
      </section>

      <section id="signup-portal" className="section signup-portal" aria-labelledby="signup-title">
        <div className="container">
          <div className="section-head">
            <p className="eyebrow">Sign up</p>
            <h2 id="signup-title">Choose Your Registration</h2>
            <p className="lead">Registering one wrestler or a whole room? Pick the path that fits.</p>
          </div>
          <div className="grid grid-2">
            <article className="card portal-card">
              <img src={image("/images/home/individual.svg")} alt="" width={600} height={400} loading="lazy" />
              <div className="card-body">
                <h3>Individual</h3>
                <p className="muted">Choose your camp and package (full camp or single days), then pay securely online in a few minutes.</p>
                <a className="btn btn-primary" href="/events">Browse Events</a>
              </div>
            </article>
            <article className="card portal-card">
              <img src={image("/images/home/team.svg")} alt="" width={600} height={400} loading="lazy" />
              <div className="card-body">
                <h3>Team</h3>
                <p className="muted">
                  {`Coaches register ${TEAM_MINIMUM_ATHLETES} or more athletes under one payment${teamDeal ? ` at ${formatDollars(teamDeal.teamPriceCents)} per athlete` : ""}, and stay the primary contact.`}
                </p>
                <a className="btn btn-secondary" href={TEAM_EVENTS_PATH} data-team-modal-open>Register as Team</a>
              </div>
            </article>
          </div>
        </div>
      </section>

      <section className="section section-alt" aria-labelledby="nutrition-title">
        <div className="container">
          <article className="card nutrition-card">
            <img src={image("/images/home/nutrition.svg")} alt="" width={600} height={400} loading="lazy" />
            <div className="card-body">
              <p className="eyebrow">Official nutrition partner</p>
              <h2 id="nutrition-title">Fuel the work with {site.nutritionPartner.name}</h2>
              <p className="muted">Clean protein, hydration and recovery built for making weight and finishing third periods strong. Camp athletes get partner pricing.</p>
              <a className="btn btn-primary" href={site.nutritionPartner.href} target="_blank" rel="noopener noreferrer">
                Shop {site.nutritionPartner.name}<span className="visually-hidden"> (opens in a new tab)</span>
              </a>
            </div>
          </article>
        </div>
      </section>

      <section id="newsletter" className="section newsletter" aria-labelledby="newsletter-title">
        <div className="container newsletter-inner">
          <div>
            <h2 id="newsletter-title">Stay in the Loop</h2>
            <p className="muted">Camp dates, new apparel drops and team deals, straight to your inbox. No spam; unsubscribe any time.</p>
          </div>
          <Widget name="NewsletterForm" load="visible" props={formWidgetProps(csrfToken, newsletter.form, newsletter.subscribed)} />
        </div>
      </section>

      {offers.teamEvents.length > 0 ? <Widget name="TeamEventModal" load="interaction" trigger="[data-team-modal-open]" props={{ events: offers.teamEvents }} /> : null}
    </>
  );
}
