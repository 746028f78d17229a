import type { ReactNode } from "react";
import type { Site } from "../../../src/shared/site.ts";
import { formatDollars, formatPrice } from "../../../src/shared/money.ts";
import { CancellationPolicyList } from "../../../components/CampAgreements.tsx";
import { CAMP_POLICY_PATHS, LIABILITY_WAIVER, MEDICAL_RELEASE } from "../../../src/shared/registrations/agreements.ts";
import { CUSTOM_ORDERS, RETURNS, SESSION_DAYS, SHIPPING, storedData, supportHoursText } from "../../../src/shared/inbox/policies.ts";

/** Date the policies were last changed; shown on each page. */
export const POLICIES_UPDATED = "November 22, 2026";

export function PolicyPage({ eyebrow, title, lead, children }: { eyebrow: string; title: string; lead: string; children: ReactNode }) {
  return (
    <>
      <section className="page-hero">
        <div className="container">
          <p className="eyebrow">{eyebrow}</p>
          <h1 className="display">{title}</h1>
          <p className="lead">{lead}</p>
        </div>
      </section>
      <section className="section">
        <div className="container prose policy">
          {children}
          <p className="muted">Last updated {POLICIES_UPDATED}.</p>
          <nav aria-label="Policies" className="policy-links">
            <a href="/shipping">Shipping</a> · <a href="/returns">Returns</a> · <a href="/privacy">Privacy</a> · <a href="/terms">Terms</a>
          </nav>
        </div>
      </section>
    </>
  );
}

function Contact({ site }: { site: Site }) {
  return (
    <>
      <a href={`mailto:${site.email}`}>{site.email}</a> or <a href={site.phoneHref}>{site.phone}</a>{` (${supportHoursText()})`}
    </>
  );
}

export function ShippingPolicyPage({ site, flatRateCents, shipsLater }: { site: Site; flatRateCents: number; shipsLater: string | null }) {
  const s = SHIPPING;
  return (
    <PolicyPage eyebrow="Policies" title="Shipping" lead={`Where we ship, what it costs and how long it takes.`}>
      <h2>What shipping costs</h2>
      <ul>
        <li>{`Orders over ${formatDollars(s.freeOverCents)} (before shipping) ship free.`}</li>
        <li>{`Orders of ${formatDollars(s.freeOverCents)} or less pay a flat ${formatPrice(flatRateCents)} for standard shipping, whatever they hold.`}</li>
      </ul>
      <p>The checkout shows the shipping cost and the total before you pay, once you have entered your address.</p>
      <h2>How long it takes</h2>
      <ul>
        <li>{`Free shipping orders arrive in ${s.freeDeliveryBusinessDays.min}-${s.freeDeliveryBusinessDays.max} business days.`}</li>
        <li>{`Standard shipping takes ${s.standardBusinessDays.min}-${s.standardBusinessDays.max} business days in ${s.standardRegion}.`}</li>
        {shipsLater ? <li>{`Tees and caps marked '${shipsLater}' leave our warehouse from that date; the rest of the order waits for them.`}</li> : null}
        <li>
          {`Custom team orders take ${CUSTOM_ORDERS.productionDays.min}-${CUSTOM_ORDERS.productionDays.max} days from approved design to ` +
            `finished gear, plus ${CUSTOM_ORDERS.shippingNote} to ship.`}
        </li>
      </ul>
      <h2>Where we ship</h2>
      <p>
        We ship shop orders to addresses in the United States (the 50 states, Washington, D.C. and APO/FPO addresses).
        Deliveries outside {s.standardRegion} can take a few days longer.
      </p>
      <h2>Questions about a delivery</h2>
      <p>Your confirmation e-mail has a link to your order's status. For anything else write to us: <Contact site={site} />.</p>
    </PolicyPage>
  );
}

export function ReturnsPolicyPage({ site }: { site: Site }) {
  return (
    <PolicyPage eyebrow="Policies" title="Returns" lead={`${RETURNS.days} days to change your mind.`}>
      <h2>What you can return</h2>
      <p>{`You have ${RETURNS.days} days from delivery to return ${RETURNS.condition}. Because they are made to order, ${RETURNS.customOrders}.`}</p>
      <h2>How to return</h2>
      <ol>
        <li>Write to us with your order number: <Contact site={site} />.</li>
        <li>We reply with the return address and what to put in the parcel.</li>
        <li>Once the items arrive and we have checked their condition, we refund the items' price to the card you paid with. Your bank may take 5-10 business days to show it.</li>
      </ol>
      <p>Shipping costs are refunded when the item was defective or we sent the wrong one.</p>
      <h2>Defective items</h2>
      <p>If something arrives damaged or faulty, including a custom team order, write to us with a photo and we will replace or refund it.</p>
    </PolicyPage>
  );
}

export function PrivacyPolicyPage({ site, brandInbox }: { site: Site; brandInbox: string }) {
  return (
    <PolicyPage eyebrow="Policies" title="Privacy" lead="What we store about you, why, for how long, and who else sees it.">
      <p>
        {site.displayName} ({site.mailingAddress.slice(1).join(", ")}) runs this site. We store only what you give us in a form or
        an order, and what the site needs to work. We do not sell your data, show ads or use tracking cookies.
      </p>
      <h2>What we store and for how long</h2>
      <div className="table-scroll">
        <table className="policy-table">
          <thead>
            <tr><th scope="col">What</th><th scope="col">Why</th><th scope="col">Kept</th></tr>
          </thead>
          <tbody>
            {storedData().map((d) => (
              <tr key={d.where}>
                <th scope="row">{d.what}</th>
                <td>{d.why}</td>
                <td>{d.kept}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <h2>Who receives your data</h2>
      <ul>
        <li><strong>Stripe</strong> takes your card details directly in the card field: they never reach our server. Stripe also receives your e-mail address and the amount, to process the payment.</li>
        <li><strong>Shopify</strong>, which holds our catalog, receives paid orders (name, e-mail, shipping address, items) so that we can fulfill them.</li>
        <li><strong>E-mail:</strong> your order confirmation goes to the address you gave; messages, quote requests and newsletter sign-ups are sent to our team's inbox ({brandInbox}). Our e-mail provider delivers these e-mails.</li>
      </ul>
      <h2>Cookies</h2>
      <p>One cookie, set by this site, holds the name of your session (your cart) for {SESSION_DAYS} days. Card entry loads Stripe's script, which sets Stripe's own fraud-prevention cookies.</p>
      <h2>Your choices</h2>
      <p>Ask us for a copy of what we hold about you, to correct it or to delete it: <Contact site={site} />. We answer within 30 days. We keep order records for as long as tax law asks even after a deletion request.</p>
    </PolicyPage>
  );
}

export function TermsPage({ site }: { site: Site }) {
  return (
    <PolicyPage eyebrow="Policies" title="Terms" lead="The rules for buying from this site and registering for our camps.">
      <h2>Orders and prices</h2>
      <p>
        Prices are in US dollars and the checkout shows the full amount, shipping included, before you pay. An order is accepted when
        your payment succeeds and we send the confirmation e-mail. If an item sells out or its price changes before you pay, the cart tells
        you and nothing is charged until you confirm.
      </p>
      <h2>Shipping and returns</h2>
      <p>Our <a href="/shipping">shipping policy</a> and <a href="/returns">returns policy</a> are part of these terms.</p>
      <h2>Camps and clinics</h2>
      <p>Registration holds a place once it is paid. The event page shows the dates, the place, what is included and the price per athlete.</p>
      <p>
        Registering means agreeing to the camp's <a href={LIABILITY_WAIVER.path}>liability waiver</a> and{" "}
        <a href={MEDICAL_RELEASE.path}>medical release</a>. The link in your confirmation e-mail lets you change the details until
        the event's change deadline, and cancel under the <a href={CAMP_POLICY_PATHS.cancellation}>camp refund and cancellation policy</a>:
      </p>
      <CancellationPolicyList />
      <h2>Custom team apparel</h2>
      <p>Custom orders are made to your approved design and are final sale unless defective.</p>
      <h2>Privacy</h2>
      <p>How we handle your data is in our <a href="/privacy">privacy policy</a>.</p>
      <h2>Contact</h2>
      <p><Contact site={site} /></p>
    </PolicyPage>
  );
}
