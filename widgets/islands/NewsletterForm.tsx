import { NEWSLETTER_MESSAGES, newsletterSchema } from "../../src/shared/inbox/schemas.ts";
import type { FormWidgetProps } from "../../src/shared/forms.ts";
import { CsrfContext, Field, Form, SubmitButton } from "../../components/Form.tsx";
import { useJsonForm } from "../useJsonForm.ts";

/** The home page's newsletter sign-up: a real post to /newsletter, sent as JSON when JavaScript runs. */
export default function NewsletterForm(props: FormWidgetProps) {
  const { formRef, ...f } = useJsonForm({ schema: newsletterSchema, endpoint: "/api/newsletter", initial: props, failure: NEWSLETTER_MESSAGES.failed });
  if (f.status === "sent") {
    return (
      <div className="sent-panel sent-panel-compact" role="status" data-testid="newsletter-sent">
        <h3>{NEWSLETTER_MESSAGES.subscribed.title}</h3>
        <p>{NEWSLETTER_MESSAGES.subscribed.description}</p>
      </div>
    );
  }
  return (
    <CsrfContext value={props.csrfToken}>
      <Form action="/newsletter" className="newsletter-form" label="Newsletter sign-up" ref={formRef} onSubmit={(e) => void f.onSubmit(e)}>
        <Field {...f.field("email")} label="Email address" type="email" required autoComplete="email" placeholder="you@example.com" />
        <SubmitButton busy={f.busy} busyLabel="Subscribing...">Subscribe</SubmitButton>
      </Form>
    </CsrfContext>
  );
}
