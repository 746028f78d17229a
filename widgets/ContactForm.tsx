import { contactSchema, CONTACT_MESSAGES } from "../src/messages/schemas.ts";
import { CsrfField, Field, FormSummary, SubmitButton, useMessageForm, type MessageFormProps } from "./messageForm.tsx";

/** The contact page's message form: a real post to /contact, sent as JSON to /api/contact when JavaScript runs. */
export default function ContactForm(props: MessageFormProps & { supportHours: string }) {
  const f = useMessageForm({ schema: contactSchema, endpoint: "/api/contact", initial: props, failure: CONTACT_MESSAGES.sendFailed });

  if (f.status === "sent") {
    return (
      <div className="sent-panel" role="status" data-testid="contact-sent">
        <h3>Message Sent!</h3>
        <p>
          Thanks for reaching out. A real person on our team reads every message and answers within one business day
          ({props.supportHours}).
        </p>
        <a className="btn btn-primary" href="/contact">Send Another Message</a>
      </div>
    );
  }

  const field = f.field;
  return (
    <form method="post" action="/contact" className="message-form" aria-label="Send us a message" noValidate ref={f.formRef} onSubmit={f.onSubmit}>
      <CsrfField token={props.csrfToken} />
      <FormSummary errors={f.errors} />
      <div className="form-grid">
        <Field {...field("name")} label="Name" required autoComplete="name" />
        <Field {...field("email")} label="Email" type="email" required autoComplete="email" />
      </div>
      <div className="form-grid">
        <Field {...field("phone")} label="Phone (optional)" type="tel" autoComplete="tel" />
        <Field {...field("subject")} label="Subject" required placeholder="Camps, orders, custom gear..." />
      </div>
      <Field {...field("message")} label="Message" required multiline placeholder="How can we help?" />
      <SubmitButton status={f.status} idle="Send Message" busy="Sending..." />
    </form>
  );
}
