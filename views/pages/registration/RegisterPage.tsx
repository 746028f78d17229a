import type { ReactNode } from "react";
import { REGISTRATION_MESSAGES } from "../../../src/shared/registrations/rules.ts";
import { coachEvent, type CoachRegistrationState } from "../../../src/shared/collegeCoachRequests/rules.ts";
import type { EventDetail } from "../../../src/shared/events/types.ts";
import { StepsBar } from "../../../components/StepsBar.tsx";
import { Widget } from "../../components/Widget.tsx";
import { ManageLinkNote } from "./CheckoutPage.tsx";
import { SummaryRows } from "../../components/SummaryRows.tsx";
import { CONFIRMATION_TEXT, WORDS } from "../../../src/shared/texts.ts";

/**
 * /register/{id}: the header with the event's date and place, then the step content. An event that takes college
 * coach requests shows 'College Coach Registration': the coach dialog while requests are open (a link to the coach
 * page without JavaScript), else the plain link, whose page says requests are closed.
 */
export function RegisterPage({ event, coachRegistration, children }: { event: EventDetail; coachRegistration: CoachRegistrationState; children: ReactNode }) {
  return (
    <section className="section registration-page">
      <div className="container registration-container">
        <p className="back-link">
          <a href={`/events/${event.id}`}><span aria-hidden="true">←&nbsp;</span>Back to Event</a>
        </p>
        <header className="registration-header">
          <h1>Register for {event.title}</h1>
          <p className="lead">{event.dateText} · {event.location}</p>
          {coachRegistration === "open" ? (
            <Widget name="CoachRequestDialog" load="interaction" trigger="[data-coach-dialog-open]" props={{ event: coachEvent(event), buttonClassName: "btn btn-secondary" }} />
          ) : coachRegistration === "closed" ? (
            <a className="btn btn-secondary" href={`/coach-registration?eventId=${event.id}`}>College Coach Registration</a>
          ) : null}
        </header>
        {children}
      </div>
    </section>
  );
}

/** Registration is not possible now (closed, or every place taken): said plainly, with the way back. */
export function RegistrationUnavailable({ title, message, eventId }: { title: string; message: string; eventId: number }) {
  return (
    <div className="card registration-section registration-unavailable" role="status">
      <h2>{title}</h2>
      <p>{message}</p>
      <a className="btn btn-primary" href={`/events/${eventId}`}>Back to Event</a>
    </div>
  );
}

/** Step 3 as a page: shown only for a payment the server has confirmed for this visitor's registration. */
export function RegistrationConfirmed({ email, reference, eventTitle, free = false, manageHref, facts = [] }: { email: string; reference: string; eventTitle: string; free?: boolean; manageHref: string; facts?: [string, string][] }) {
  return (
    <>
      <StepsBar step={3} />
      <div className="card registration-section registration-confirmed" role="status">
        <h2>{free ? "Registration Complete!" : REGISTRATION_MESSAGES.confirmedTitle}</h2>
        <p>{`You are registered for ${eventTitle}.`} Registration reference <strong>{reference}</strong>.</p>
        {facts.length > 0 ? <SummaryRows rows={facts} className="confirmed-facts" /> : null}
        <p>A confirmation e-mail with your registration details and a calendar file is on its way to <strong>{email}</strong>.</p>
        <ManageLinkNote href={manageHref} />
        <a className="btn btn-primary" href="/">Return to Home</a>
      </div>
    </>
  );
}

/**
 * A confirmed registration seen from a browser that did not make it (its address names the payment): what the
 * payment bought and where the private link went, nothing about who registered.
 */
export function RegistrationSeenElsewhere(p: { state: "paid" | "deposit_paid" | "canceled"; eventTitle: string; dateText: string; facts: [string, string][] }) {
  const registered = p.state !== "canceled";
  const rows: [string, string][] = [["Event", `${p.eventTitle} (${p.dateText})`], ...p.facts];
  return (
    <>
      {registered ? <StepsBar step={3} /> : null}
      <div className="card registration-section registration-confirmed" role="status" data-testid="registration-seen-elsewhere">
        <h2>{registered ? REGISTRATION_MESSAGES.confirmedTitle : `Registration ${WORDS.canceled}`}</h2>
        <p>{p.state === "paid" ? "This registration is paid." : p.state === "deposit_paid" ? CONFIRMATION_TEXT.depositPaid : `This registration was ${WORDS.canceledLower}; any refund goes back to the card that paid.`}</p>
        <SummaryRows rows={rows} className="confirmed-facts" />
        <p>{CONFIRMATION_TEXT.privateLinkPromise}</p>
        <a className="btn btn-primary" href="/">Return to Home</a>
      </div>
    </>
  );
}

/** Anything that is not a payment confirmed for this visitor: neutral, with the way to reach the brand. */
export function RegistrationNotConfirmed({ email, phone, title = "Payment Not Confirmed", message }: { email: string; phone: string; title?: string; message?: string }) {
  return (
    <div className="card registration-section registration-unconfirmed" role="status">
      <h2>{title}</h2>
      <p>{message ?? "We could not confirm a payment for your registration from this page. If you were charged, your registration is safe: we will e-mail you as soon as the payment is recorded."}</p>
      <p>Questions? Write to <a href={`mailto:${email}`}>{email}</a> or call {phone}.</p>
      <a className="btn btn-secondary" href="/events">Return to Events</a>
    </div>
  );
}

export function RegistrationNotFoundPage() {
  return (
    <section className="page-center">
      <p className="eyebrow">Registration</p>
      <h1 className="display">{REGISTRATION_MESSAGES.notFoundTitle}</h1>
      <p className="lead">{REGISTRATION_MESSAGES.notFound}</p>
      <a className="btn btn-primary" href="/events">Back to Events</a>
    </section>
  );
}

/**
 * The payment step reloaded after the card was charged (or while the bank confirms it), before this site recorded it:
 * never the card form again, never an error. `paid`: recorded by this very reload.
 */
export function PaymentReceived({ eventTitle, email, paid, manageHref }: { eventTitle: string; email: string; paid: boolean; manageHref?: string }) {
  return (
    <div className="card registration-section registration-confirmed" role="status">
      <h2>Payment received</h2>
      {paid ? (
        <p>{`Your registration for ${eventTitle} is confirmed. A confirmation e-mail is on its way to ${email}.`}</p>
      ) : (
        <p>{`Your bank is still confirming this payment for ${eventTitle}. We'll e-mail ${email} as soon as it is confirmed; there is nothing more to do here, please do not pay again, and your place is kept meanwhile.`}</p>
      )}
      {manageHref && <ManageLinkNote href={manageHref} />}
      <a className="btn btn-secondary" href="/events">Return to Events</a>
    </div>
  );
}
