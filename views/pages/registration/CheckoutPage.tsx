import type { ReactNode } from "react";
import { Widget } from "../../components/Widget.tsx";
import type { IslandProps } from "../../../components/islands.ts";
import { StepsBar } from "../../../components/StepsBar.tsx";
import { SummaryRows } from "../../components/SummaryRows.tsx";
import { formatPrice } from "../../../src/shared/money.ts";
import { FAMILIES_EMAILED } from "../../../src/shared/registrations/teamRules.ts";

const CHECKOUT_STEPS = ["Registration Form", "Processing", "Payment", "Complete"] as const;

/**
 * /stripe-checkout: laid out without the site header and footer. The card panel's code (React, Stripe Elements) loads
 * at the first hover, focus or touch anywhere on the page, scrolling included (JavaScript budget).
 */
function CheckoutShell({ step, children }: { step: number; children: ReactNode }) {
  return (
    <div className="section checkout-page">
      <div className="container registration-container">
        <StepsBar steps={CHECKOUT_STEPS} step={step} label="Checkout progress" />
        {children}
      </div>
    </div>
  );
}

export function CheckoutError({ message, retryHref }: { message: string; retryHref: string }) {
  return (
    <CheckoutShell step={2}>
      <div className="card registration-section registration-unavailable" role="alert">
        <h1>Payment Setup Error</h1>
        <p>{message}</p>
        <div className="registration-actions">
          <a className="btn btn-primary" href={retryHref}>Try Again</a>
          <a className="btn btn-secondary" href="/events">Return to Events</a>
        </div>
      </div>
    </CheckoutShell>
  );
}

export function CheckoutNotConfirmed({ children }: { children: ReactNode }) {
  return <CheckoutShell step={3}>{children}</CheckoutShell>;
}

export function CheckoutComplete({ eventTitle, email, manageHref, familiesEmailed = false, reference, facts = [] }: { eventTitle: string; email: string; manageHref: string; familiesEmailed?: boolean; reference?: string; facts?: [string, string][] }) {
  return (
    <CheckoutShell step={4}>
      <div className="card registration-section registration-confirmed" role="status">
        <h1>Registration Complete!</h1>
        <p>{`Thank you for registering for ${eventTitle}.`}{reference ? <> Registration reference <strong>{reference}</strong>.</> : null}</p>
        {facts.length > 0 ? <SummaryRows rows={facts} className="confirmed-facts" /> : null}
        <p>A confirmation e-mail is on its way to <strong>{email}</strong>.</p>
        {familiesEmailed && <p>{FAMILIES_EMAILED}</p>}
        <ManageLinkNote href={manageHref} />
        <a className="btn btn-primary" href="/events">Return to Events</a>
      </div>
    </CheckoutShell>
  );
}

export function CheckoutAlreadyPaid({ next }: { next: string }) {
  return (
    <CheckoutShell step={4}>
      <div className="card registration-section registration-confirmed" role="status">
        <h1>Payment Already Completed</h1>
        <p>This payment has already gone through. Taking you to your confirmation...</p>
        <a className="btn btn-primary" href={next}>Continue</a>
      </div>
    </CheckoutShell>
  );
}

export interface CheckoutDetails {
  eventTitle: string;
  /** 'Full Camp' or 'Single Day' (the spec's two names), or the package for 1- and 2-day options. */
  optionLabel: string;
  athleteName: string;
  email: string;
  days: string[];
  amountCents: number;
  reservedUntil: string;
}

/**
 * The individual checkout: the event and option once in the header, the registration's facts once in its details,
 * the money once in the payment panel's summary (which leaves the event, option and days to the page).
 */
export function CheckoutPay({ details, panel }: { details: CheckoutDetails; panel: IslandProps<"PaymentPanel"> }) {
  return (
    <CheckoutShell step={3}>
      <header className="registration-header">
        <h1>Complete Your Registration</h1>
        <p className="lead">{details.eventTitle} · {details.optionLabel}</p>
      </header>
      {/* From 1024 px the details and the panel's summary on the left, the payment beside them (registration.css). */}
      <div className="checkout-pay">
        <section className="card registration-section" aria-labelledby="checkout-details-heading">
          <h2 id="checkout-details-heading">Registration Details</h2>
          <dl className="summary-rows">
            <div><dt>Athlete</dt><dd>{details.athleteName}</dd></div>
            <div><dt>Email</dt><dd>{details.email}</dd></div>
            <div><dt>Days</dt><dd data-testid="registration-days">{details.days.join(", ")}</dd></div>
            <div><dt>Place held until</dt><dd>{details.reservedUntil}</dd></div>
          </dl>
        </section>
        <Widget name="PaymentPanel" load="interaction" trigger=".checkout-page" props={panel} />
      </div>
    </CheckoutShell>
  );
}

export interface TeamCheckoutDetails {
  eventTitle: string;
  teamName: string | null;
  coachName: string;
  email: string;
  athletes: { name: string; shirtSize: string }[];
  pricePerAthleteCents: number;
  amountCents: number;
  reservedUntil: string;
}

/** /stripe-checkout?option=team: the coach's held team, then the same card form (and discount box) as individuals. */
export function TeamCheckoutPay({ details, panel }: { details: TeamCheckoutDetails; panel: IslandProps<"PaymentPanel"> }) {
  return (
    <CheckoutShell step={3}>
      <header className="registration-header">
        <h1>Complete Your Registration</h1>
        <p className="lead">{details.eventTitle} · Team Registration</p>
      </header>
      {/* From 1024 px the details and the panel's summary on the left, the payment beside them (registration.css). */}
      <div className="checkout-pay">
        <section className="card registration-section" aria-labelledby="checkout-details-heading">
          <h2 id="checkout-details-heading">Registration Details</h2>
          <dl className="summary-rows">
            {details.teamName ? <div><dt>Team</dt><dd>{details.teamName}</dd></div> : null}
            <div><dt>Coach</dt><dd>{details.coachName}</dd></div>
            <div><dt>Email</dt><dd>{details.email}</dd></div>
            <div><dt>Athletes</dt><dd data-testid="team-athlete-count">{details.athletes.length}</dd></div>
            <div><dt>Price per athlete</dt><dd>{formatPrice(details.pricePerAthleteCents)}</dd></div>
            <div><dt>Places held until</dt><dd>{details.reservedUntil}</dd></div>
          </dl>
          <ol className="team-roster">
            {details.athletes.map((a, i) => <li key={i}>{`${a.name} `}<span className="muted">{`(${a.shirtSize})`}</span></li>)}
          </ol>
        </section>
        <Widget name="PaymentPanel" load="interaction" trigger=".checkout-page" props={panel} />
      </div>
    </CheckoutShell>
  );
}

/** The private manage link on a confirmation: the same registration from any browser, later. */
export function ManageLinkNote({ href }: { href: string }) {
  return (
    <p className="manage-link-note">
      <a href={href}>See, change or cancel this registration</a>: a private link (also in your e-mail). Bookmark it and keep it to yourself.
    </p>
  );
}
