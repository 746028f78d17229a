import { Field, Form, SubmitButton } from "../../components/Form.tsx";

/** "Lost your confirmation?" on an event's page: e-mails the registration's manage link again (src/registrations/changes/routes/manage.tsx). */
export function LostConfirmation({ eventId }: { eventId: number }) {
  return (
    <section className="card event-box lost-confirmation" id="lost-confirmation" aria-labelledby="lost-confirmation-heading">
      <h2 id="lost-confirmation-heading" className="event-box-title">Lost your confirmation?</h2>
      <p className="muted">Registered already? Enter the e-mail address you registered with and we'll send the link to see, change or cancel your registration.</p>
      <Form action={`/events/${eventId}/lost-confirmation`} label="Send my registration link">
        <Field name="email" label="Email" type="email" required autoComplete="email" />
        <SubmitButton className="btn btn-secondary btn-block">Send My Link</SubmitButton>
      </Form>
    </section>
  );
}
