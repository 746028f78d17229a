import { contactSchema, CONTACT_MESSAGES } from "../../src/shared/inbox/schemas.ts";
import type { FormWidgetProps } from "../../src/shared/forms.ts";
import { CsrfContext, Field, Form, FormErrors, SubmitButton } from "../../components/Form.tsx";
import { useJsonForm } from "../useJsonForm.ts";

/** The contact page's message form: a real post to /contact, sent as JSON to /api/contact when JavaScript runs. */
export default function ContactForm(props: FormWidgetProps & { supportHours: string }) {
  const { formRef, ...f } = useJsonForm({ schema: contactSchema, endpoint: "/api/contact", initial: props, failure: CONTACT_MESSAGES.sendFailed });

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

  return (
    <CsrfContext value={props.csrfToken}>
      <Form action="/contact" className="message-form" label="Send us a message" ref={formRef} onSubmit={(e) => void f.onSubmit(e)}>
        <FormErrors errors={f.errors} focus={f.errors === props.errors} />
        <div className="form-grid">
          <Field {...f.field("name")} label="Name" required autoComplete="name" />
          <Field {...f.field("email")} label="Email" type="email" required autoComplete="email" />
        </div>
        <div className="form-grid">
          <Field {...f.field("phone")} label="Phone (optional)" type="tel" autoComplete="tel" />
          <Field {...f.field("subject")} label="Subject" required placeholder="Camps, orders, custom gear..." />
        </div>
        <Field {...f.field("message")} label="Message" required multiline placeholder="How can we help?" />
        <SubmitButton busy={f.busy} busyLabel="Sending...">Send Message</SubmitButton>
      </Form>
    </CsrfContext>
  );
}
