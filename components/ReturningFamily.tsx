/**
 * "Registered before?" on the event's page, step 1 of the individual form and the team form: a small form of its own
 * (it works without JavaScript) asking for the address a link goes to; once a link filled in the form, the note that
 * says so instead. On the team form, last season's athletes listed to tick (a GET form: ticked ones become rows).
 */
import { CsrfContext, Field, Form, SubmitButton } from "./Form.tsx";
import { RETURNING_TEXT, type ReturningBoxProps } from "../src/shared/registrations/returning.ts";

export function ReturningBox({ eventId, from, csrfToken, prefilled }: ReturningBoxProps) {
  if (prefilled) {
    return (
      <section className="card registration-section returning-box returning-prefilled" id="returning" role="status" aria-labelledby="returning-heading">
        <h2 id="returning-heading">{RETURNING_TEXT.prefilledTitle}</h2>
        <p>{from === "team" ? RETURNING_TEXT.teamPrefilled(prefilled.fromEventTitle) : RETURNING_TEXT.prefilled(prefilled.fromEventTitle)}</p>
        {prefilled.others.length > 0 ? <p data-testid="returning-others">{RETURNING_TEXT.others(prefilled.others)}</p> : null}
      </section>
    );
  }
  const form = (
    <Form action={`/events/${eventId}/returning`} label="Send me a link to fill in the form">
      <input type="hidden" name="from" value={from} />
      <Field name="email" label="Email" type="email" required autoComplete="email" />
      <SubmitButton className="btn btn-secondary">{RETURNING_TEXT.button}</SubmitButton>
    </Form>
  );
  return (
    <section className={`card ${from === "event" ? "event-box" : "registration-section"} returning-box`} id="returning" aria-labelledby="returning-heading">
      <h2 id="returning-heading" className={from === "event" ? "event-box-title" : undefined}>{RETURNING_TEXT.title}</h2>
      <p className="muted">{RETURNING_TEXT.intro}</p>
      {/* A widget has no page context: its own token. */}
      {csrfToken ? <CsrfContext value={csrfToken}>{form}</CsrfContext> : form}
    </section>
  );
}

/** Last season's team, to tick: the team form's page asks for itself again with the ticked rows (`athlete=2`). */
export function ReturningTeamList({ eventId, athletes, ticked }: { eventId: number; athletes: { firstName: string; lastName: string; age: string }[]; ticked: number[] }) {
  return (
    <form method="get" action={`/team-register/${eventId}`} className="card registration-section returning-team" aria-label={RETURNING_TEXT.teamListLegend}>
      <fieldset>
        <legend>{RETURNING_TEXT.teamListLegend}</legend>
        <div className="check-grid">
          {athletes.map((a, i) => (
            <label key={i} className="check">
              <input type="checkbox" name="athlete" value={String(i)} defaultChecked={ticked.includes(i)} />
              <span>{a.firstName} {a.lastName}{a.age ? ` (${a.age})` : ""}</span>
            </label>
          ))}
        </div>
      </fieldset>
      <button type="submit" className="btn btn-secondary">{RETURNING_TEXT.teamListButton}</button>
    </form>
  );
}
