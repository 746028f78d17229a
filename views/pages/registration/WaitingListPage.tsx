import type { ReactNode } from "react";
import type { FormState } from "../../../src/shared/forms.ts";
import type { EventDetail } from "../../../src/shared/events/types.ts";
import type { EventPackage } from "../../../src/shared/events/types.ts";
import { MAX_SIBLINGS, WAITLIST_TEXT } from "../../../src/shared/registrations/waitingList.ts";
import type { EntryStatus, OfferPlace } from "../../../src/shared/registrations/waitingList.ts";
import { TEAM_MINIMUM } from "../../../src/shared/registrations/teamRules.ts";
import { Field, Form, FormErrors, stateField, SubmitButton } from "../../../components/Form.tsx";
import { SummaryRows } from "../../components/SummaryRows.tsx";

/**
 * Every waiting-list page: the event's name, date and place, then the content. A heading that does not name the event
 * ('Your Place in Line') has it in the line below; a link that names no event (id 0) shows neither.
 */
export function WaitingListPage({ event, title, children }: { event: Pick<EventDetail, "id" | "title" | "dateText" | "location">; title: string; children: ReactNode }) {
  const about = [title.includes(event.title) ? "" : event.title, event.dateText, event.location].filter(Boolean).join(" · ");
  return (
    <section className="section registration-page">
      <div className="container registration-container">
        <p className="back-link">
          <a href={`/events/${event.id}`}><span aria-hidden="true">←&nbsp;</span>Back to Event</a>
        </p>
        <header className="registration-header">
          <h1>{title}</h1>
          {event.id !== 0 && about ? <p className="lead" data-testid="waiting-list-event">{about}</p> : null}
        </header>
        {children}
      </div>
    </section>
  );
}

/** The join form: who is joining, how many places, the package, the contact. Posts without JavaScript. */
export function JoinForm({ eventId, form, packages, maxTeam, waiting }: { eventId: number; form: FormState; packages: EventPackage[]; maxTeam: number; waiting: number }) {
  const kind = stateField(form, "kind");
  // An event with fewer places than a team's minimum takes no team (never "5 to 2 for a team").
  const teamsFit = maxTeam >= TEAM_MINIMUM;
  const siblingsMax = Math.min(MAX_SIBLINGS, maxTeam);
  const placesHint = [
    "1 for one athlete",
    siblingsMax > 2 ? `2 to ${siblingsMax} for siblings` : siblingsMax === 2 ? "2 for siblings" : "",
    teamsFit ? `${TEAM_MINIMUM} to ${maxTeam} for a team (one per athlete)` : `no team: a team needs at least ${TEAM_MINIMUM} places`,
  ].filter(Boolean).join(", ");
  const who = [{ value: "individual", label: siblingsMax > 1 ? `An athlete, or up to ${siblingsMax} siblings` : "An athlete" }, ...(teamsFit ? [{ value: "team", label: "A coach with a team" }] : [])];
  return (
    <div className="card registration-section">
      <p>{WAITLIST_TEXT.explain}</p>
      <p>{waiting === 0 ? "Nobody is waiting yet: you would be first in line." : `${waiting} ${waiting === 1 ? "family or team is" : "families and teams are"} waiting now; you join at the end of the line.`}</p>
      <Form action={`/waiting-list/${eventId}`} label="Join the waiting list">
        <FormErrors errors={form.errors} focus />
        <Field {...kind} label="Who is joining" required options={who} placeholder="Please choose" />
        <Field {...stateField(form, "places")} label="Places needed" type="number" min={1} max={maxTeam} required
          hint={placesHint} />
        <Field {...stateField(form, "registrationType")} label="Package (athletes and siblings)" options={packages.map((p) => ({ value: p.code, label: p.label }))} placeholder="Please choose"
          hint="Teams register for every day at the team price." />
        <Field {...stateField(form, "teamName")} label="Team name (teams, optional)" autoComplete="organization" />
        <Field {...stateField(form, "firstName")} label="First Name" required autoComplete="given-name" />
        <Field {...stateField(form, "lastName")} label="Last Name" required autoComplete="family-name" />
        <Field {...stateField(form, "email")} label="Email" type="email" required autoComplete="email" />
        <Field {...stateField(form, "phone")} label="Phone" type="tel" required autoComplete="tel" />
        <SubmitButton>Join the Waiting List</SubmitButton>
      </Form>
    </div>
  );
}

export function Notice({ title, children, eventId }: { title: string; children: ReactNode; eventId: number }) {
  return (
    <div className="card registration-section" role="status">
      <h2>{title}</h2>
      {children}
      <a className="btn btn-secondary" href={`/events/${eventId}`}>Back to Event</a>
    </div>
  );
}

/** The leave link's page: leaving is a button (a link opened by a mail scanner changes nothing). */
export function LeaveConfirm({ action, offered }: { action: string; offered: boolean }) {
  return (
    <div className="card registration-section">
      <p>{offered ? "Places are held for you right now. Leaving the list releases them to the next family or team." : "Leaving gives up your place in line. You can join again later, at the end of the line."}</p>
      <Form action={action} label="Leave the waiting list">
        <SubmitButton className="btn btn-secondary">Leave the Waiting List</SubmitButton>
      </Form>
    </div>
  );
}

/** The offer: each place held (a button opens its registration form), registered, or released; and Decline. */
export function OfferDetails({ token, team, places, untilText, priceText, open }: { token: string; team: boolean; places: OfferPlace[]; untilText: string; priceText: string; open: boolean }) {
  // A family's offer is one registration of all its athletes (offers made before that hold one registration per place).
  const family = !team && places.length === 1 && places[0]!.places > 1 ? places[0]!.places : 0;
  return (
    <div className="card registration-section">
      {open ? (
        <p>
          Your places are held until <strong>{untilText}</strong>. {team ? "Register your team" : places.length > 1 ? "Register each athlete (one form and payment each)" : family ? `Register your ${family} athletes (one form, one payment)` : "Register your athlete"} before then: the form opens with the places held and your package chosen.
        </p>
      ) : (
        <p role="status">{WAITLIST_TEXT.offerEnded}</p>
      )}
      {open && priceText ? <p>{`Price: ${priceText}. Nothing is charged until you pay on the form.`}</p> : null}
      <ul className="waiting-list-places">
        {places.map((p) => (
          <li key={p.placeNumber}>
            {/* A held place is named by its button alone; a label before it would read as an empty row. */}
            {p.state === "held" ? null : <span>{team ? "Team" : family ? `${family} athletes` : `Athlete ${p.placeNumber}`}: </span>}
            {p.state === "held" ? (
              <Form action={`/waiting-list/offer/${token}/take`} label={team ? "Register your team" : family ? `Register your ${family} athletes` : `Register athlete ${p.placeNumber}`}>
                <input type="hidden" name="place" value={p.placeNumber} />
                <SubmitButton>{team ? "Register Your Team" : family ? `Register Your ${family} Athletes` : `Register Athlete ${p.placeNumber}`}</SubmitButton>
              </Form>
            ) : (
              <strong>{p.state === "registered" ? `Registered (${p.reference})` : "Released"}</strong>
            )}
          </li>
        ))}
      </ul>
      {open ? (
        <Form action={`/waiting-list/offer/${token}/decline`} label="Decline the offer">
          <SubmitButton className="btn btn-secondary">Decline the Offer</SubmitButton>
        </Form>
      ) : null}
    </div>
  );
}

/** The confirmation link's page before it is confirmed: what was asked for, and the button that confirms. */
export function ConfirmAsk({ action, waitingFor, untilText }: { action: string; waitingFor: string; untilText: string }) {
  return (
    <div className="card registration-section">
      <p>Confirm your e-mail address to take your place at the end of the line. Until then you are not on the list.</p>
      <SummaryRows rows={[["Waiting for", waitingFor], ["Confirm by", untilText]]} />
      <Form action={action} label="Confirm your place in line">
        <SubmitButton>Confirm My Place in Line</SubmitButton>
      </Form>
    </div>
  );
}

/** Where an entry stands, as its confirmation link shows it. */
export interface StandingProps {
  /** Where the leave (or decline) form posts. */
  action: string;
  status: EntryStatus;
  /** Its place among the entries waiting (1 is next). */
  placeInLine: number;
  /** "2 places, Full Camp (3 Days)" or "a team of 6 (Steel City WC)". */
  waitingFor: string;
  offerHours: number;
  offeredUntilText: string;
  /** The link confirmed the e-mail just now. */
  justConfirmed: boolean;
}

/** The confirmation link's page: the place in line and what it waits for, or the offer; leaving is a button. */
export function Standing({ action, status, placeInLine, waitingFor, offerHours, offeredUntilText, justConfirmed }: StandingProps) {
  const active = status === "waiting" || status === "offered";
  return (
    <div className="card registration-section waiting-list-standing" role="status">
      {justConfirmed ? <p>Thank you: your e-mail address is confirmed.</p> : null}
      {status === "waiting" ? (
        <>
          <h2>{WAITLIST_TEXT.joined(placeInLine)}</h2>
          <SummaryRows rows={[
            ["Place in line", placeInLine === 1 ? "Next: nobody is ahead of you" : `${placeInLine - 1} ${placeInLine === 2 ? "family or team is" : "families and teams are"} ahead of you`],
            ["Waiting for", waitingFor],
          ]} />
          <p>{WAITLIST_TEXT.howOffersWork(offerHours)}</p>
        </>
      ) : status === "offered" ? (
        <>
          <h2>Places Are Held for You</h2>
          <p>{waitingFor} {WAITLIST_TEXT.offeredUntil(offeredUntilText)}</p>
        </>
      ) : (
        <>
          <h2>Not on the List</h2>
          <p>{WAITLIST_TEXT.ended[status]}</p>
        </>
      )}
      {active ? (
        <Form action={action} label={status === "offered" ? "Decline the offer" : "Leave the waiting list"}>
          <SubmitButton className="btn btn-secondary">{status === "offered" ? "Decline the Offer" : "Leave the Waiting List"}</SubmitButton>
        </Form>
      ) : null}
    </div>
  );
}
