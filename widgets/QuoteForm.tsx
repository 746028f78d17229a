import { useId } from "react";
import { APPAREL_NEEDS, QUANTITY_OPTIONS, QUOTE_MESSAGES, quoteSchema } from "../src/messages/schemas.ts";
import { CsrfField, Field, FormSummary, list, SubmitButton, text, useMessageForm, type MessageFormProps } from "./messageForm.tsx";

/** The custom apparel quote form: a real post to /custom-apparel/quote, sent as JSON when JavaScript runs. */
export default function QuoteForm(props: MessageFormProps) {
  const f = useMessageForm({ schema: quoteSchema, endpoint: "/api/quote-requests", initial: props, failure: QUOTE_MESSAGES.sendFailed });
  const id = useId();

  if (f.status === "sent") {
    return (
      <div className="sent-panel" role="status" data-testid="quote-sent">
        <h3>Quote Request Received!</h3>
        <p>{QUOTE_MESSAGES.sent.description} We will set up your free design consultation and send the first concepts within a week.</p>
        <a className="btn btn-primary" href="/custom-apparel#contact-form">Request Another Quote</a>
      </div>
    );
  }

  const field = f.field;
  const needs = list(f.values.apparelNeeds);
  const toggleNeed = (need: string, on: boolean) =>
    f.setValue("apparelNeeds", on ? [...needs, need] : needs.filter((n) => n !== need));
  const quantityError = f.errors.estimatedQuantity;
  const needsError = f.errors.apparelNeeds ?? Object.entries(f.errors).find(([k]) => k.startsWith("apparelNeeds."))?.[1];
  const reference = text(f.values.referenceDesign);

  return (
    <form method="post" action="/custom-apparel/quote" className="message-form" aria-label="Request a custom quote" noValidate ref={f.formRef} onSubmit={f.onSubmit}>
      <CsrfField token={props.csrfToken} />
      <FormSummary errors={f.errors} />
      {reference ? (
        <p className="reference-design">
          Similar to: <strong>{reference}</strong>
          <input type="hidden" name="referenceDesign" value={reference} />
        </p>
      ) : null}
      <div className="form-grid">
        <Field {...field("organization")} label="Team or Organization Name" required autoComplete="organization" />
        <Field {...field("contactName")} label="Contact Name" required autoComplete="name" />
      </div>
      <div className="form-grid">
        <Field {...field("email")} label="Email" type="email" required autoComplete="email" />
        <Field {...field("phone")} label="Phone" type="tel" autoComplete="tel" />
      </div>
      <fieldset className="fieldset" aria-describedby={needsError ? `${id}-needs-error` : undefined}>
        <legend>Apparel Needs</legend>
        <div className="check-grid">
          {APPAREL_NEEDS.map((need) => (
            <label className="check" key={need}>
              <input type="checkbox" name="apparelNeeds" value={need} checked={needs.includes(need)} disabled={f.disabled}
                onChange={(e) => toggleNeed(need, e.target.checked)} />
              <span>{need}</span>
            </label>
          ))}
        </div>
        {needsError ? <p className="field-error" id={`${id}-needs-error`}>{needsError}</p> : null}
      </fieldset>
      <div className={`field${quantityError ? " field-invalid" : ""}`}>
        <label htmlFor={`${id}-qty`}>Estimated Quantity</label>
        <select id={`${id}-qty`} name="estimatedQuantity" value={text(f.values.estimatedQuantity)} disabled={f.disabled}
          aria-invalid={quantityError ? true : undefined} aria-describedby={quantityError ? `${id}-qty-error` : undefined}
          onChange={(e) => f.setValue("estimatedQuantity", e.target.value)}>
          <option value="">Select quantity</option>
          {QUANTITY_OPTIONS.map((q) => <option key={q} value={q}>{q}</option>)}
        </select>
        {quantityError ? <p className="field-error" id={`${id}-qty-error`}>{quantityError}</p> : null}
      </div>
      <Field {...field("details")} label="Additional Details" multiline
        placeholder="Colours, mascot, deadlines, sizes, anything you have in mind..." />
      <SubmitButton status={f.status} idle="Request Quote" busy="Sending..." />
    </form>
  );
}
