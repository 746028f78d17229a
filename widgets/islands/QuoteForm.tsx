import { APPAREL_NEEDS, QUANTITY_OPTIONS, QUOTE_MESSAGES, quoteSchema } from "../../src/shared/inbox/schemas.ts";
import type { FormWidgetProps } from "../../src/shared/forms.ts";
import { Choices, CsrfContext, Field, Form, FormErrors, SubmitButton } from "../../components/Form.tsx";
import { text, useJsonForm } from "../useJsonForm.ts";

/** The custom apparel quote form: a real post to /custom-apparel/quote, sent as JSON when JavaScript runs. */
export default function QuoteForm(props: FormWidgetProps) {
  const { formRef, ...f } = useJsonForm({ schema: quoteSchema, endpoint: "/api/quote-requests", initial: props, failure: QUOTE_MESSAGES.sendFailed });

  if (f.status === "sent") {
    return (
      <div className="sent-panel" role="status" data-testid="quote-sent">
        <h3>Quote Request Received!</h3>
        <p>{QUOTE_MESSAGES.sent.description} We will set up your free design consultation and send the first concepts within a week.</p>
        <a className="btn btn-primary" href="/custom-apparel#contact-form">Request Another Quote</a>
      </div>
    );
  }

  const reference = text(f.values.referenceDesign);
  return (
    <CsrfContext value={props.csrfToken}>
      <Form action="/custom-apparel/quote" className="message-form" label="Request a custom quote" ref={formRef} onSubmit={(e) => void f.onSubmit(e)}>
        <FormErrors errors={f.errors} focus={f.errors === props.errors} />
        {reference ? (
          <p className="reference-design">
            Similar to: <strong>{reference}</strong>
            <input type="hidden" name="referenceDesign" value={reference} />
          </p>
        ) : null}
        <div className="form-grid">
          <Field {...f.field("organization")} label="Team or Organization Name" required autoComplete="organization" />
          <Field {...f.field("contactName")} label="Contact Name" required autoComplete="name" />
        </div>
        <div className="form-grid">
          <Field {...f.field("email")} label="Email" type="email" required autoComplete="email" />
          <Field {...f.field("phone")} label="Phone" type="tel" autoComplete="tel" />
        </div>
        <Choices {...f.choices("apparelNeeds")} type="checkbox" legend="Apparel Needs" options={APPAREL_NEEDS} />
        <Field {...f.field("estimatedQuantity")} label="Estimated Quantity" options={QUANTITY_OPTIONS} placeholder="Select quantity" />
        <Field {...f.field("details")} label="Additional Details" multiline
          placeholder="Colors, mascot, deadlines, sizes, anything you have in mind..." />
        <SubmitButton busy={f.busy} busyLabel="Sending...">Request Quote</SubmitButton>
      </Form>
    </CsrfContext>
  );
}
