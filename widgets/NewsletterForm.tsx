import { NEWSLETTER_MESSAGES, newsletterSchema } from "../src/messages/schemas.ts";
import { CsrfField, Field, SubmitButton, text, useMessageForm, type MessageFormProps } from "./messageForm.tsx";

/** The home page's newsletter sign-up: a real post to /newsletter, sent as JSON when JavaScript runs. */
export default function NewsletterForm(props: MessageFormProps) {
  const f = useMessageForm({ schema: newsletterSchema, endpoint: "/api/newsletter", initial: props, failure: NEWSLETTER_MESSAGES.failed });
  if (f.status === "sent") {
    return (
      <div className="sent-panel sent-panel-compact" role="status" data-testid="newsletter-sent">
        <h3>{NEWSLETTER_MESSAGES.subscribed.title}</h3>
        <p>{NEWSLETTER_MESSAGES.subscribed.description}</p>
      </div>
    );
  }
  return (
    <form method="post" action="/newsletter" className="newsletter-form" aria-label="Newsletter sign-up" noValidate ref={f.formRef} onSubmit={f.onSubmit}>
      <CsrfField token={props.csrfToken} />
      <Field name="email" label="Email address" type="email" required autoComplete="email" placeholder="you@example.com"
        value={text(f.values.email)} error={f.errors.email} onChange={(v) => f.setValue("email", v)} disabled={f.disabled} />
      <SubmitButton status={f.status} idle="Subscribe" busy="Subscribing..." />
    </form>
  );
}
