import type { FormState } from "../../../src/shared/forms.ts";
import { LOGO_FIELD, type CoachEvent } from "../../../src/shared/collegeCoachRequests/rules.ts";
import { COACH_MESSAGES } from "../../../src/shared/collegeCoachRequests/schemas.ts";
import { errorFor, FormErrors, stateChoices, stateField } from "../../../components/Form.tsx";
import { CoachRequestForm } from "../../../components/CoachRequestForm.tsx";

export interface CoachRegistrationPageProps {
  event: CoachEvent;
  open: boolean;
  form: FormState;
  /** A logo sent with a form that had errors is not kept; the page asks for it again. */
  logoNote?: string;
}

/** /coach-registration?eventId={id}: the coach dialog's form as a page of its own, for browsers without JavaScript. */
export function CoachRegistrationPage({ event, open, form, logoNote }: CoachRegistrationPageProps) {
  return (
    <>
      <section className="page-hero" aria-labelledby="coach-title">
        <div className="container">
          <nav className="breadcrumb" aria-label="Breadcrumb">
            <ol>
              <li><a href="/events">Events</a></li>
              <li><a href={`/events/${event.id}`}>{event.title}</a></li>
              <li><span aria-current="page">College Coach Registration</span></li>
            </ol>
          </nav>
          <p className="eyebrow">College Coaches</p>
          <h1 id="coach-title" className="display">College Coach Registration</h1>
          <p className="lead">
            {event.title} &middot; {event.dateText} &middot; {event.location}. Tell us about your program and the days you plan to
            attend; we will confirm your place and send the clinic details.
          </p>
        </div>
      </section>
      <section className="section section-alt" aria-label="Registration form">
        <div className="container coach-page">
          {open ? (
            <CoachRequestForm event={event} field={(name) => stateField(form, name)} choices={(name) => stateChoices(form, name)}
              logoError={errorFor(form.errors, LOGO_FIELD)} logoNote={logoNote}>
              <FormErrors errors={form.errors} focus />
            </CoachRequestForm>
          ) : (
            <div className="form-errors" role="status">
              <p>{COACH_MESSAGES.closed}</p>
            </div>
          )}
          <p><a href={`/events/${event.id}`}>Back to {event.title}</a></p>
        </div>
      </section>
    </>
  );
}
