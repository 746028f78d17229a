/**
 * Individual registration in three steps (Registration, Payment, Confirmation). Step 1 is the real form the
 * server renders (it works without JavaScript), taken over for instant feedback with the server's own schema;
 * with JavaScript, 'Proceed to Payment' holds the place and obtains the payment in place, step 2 takes the
 * card, and a confirmed payment moves on to the confirmation page.
 */
import { useEffect, useId, useMemo, useRef, useState, type FormEvent, type ReactNode } from "react";
import { CardElement, Elements, useElements, useStripe } from "@stripe/react-stripe-js";
import type { Stripe } from "@stripe/stripe-js";
import { apiFetch, ApiError } from "./api.ts";
import { showToast } from "./toast.ts";
import { validate, type FieldErrors } from "../src/http/forms.ts";
import type { EventDay, EventPackage } from "../src/events/types.ts";
import { formatPrice } from "../src/money.ts";
import { GENDERS, SHIRT_SIZES, coversEveryDay, dayField, findPackage, registrationSchema, DEFAULT_PACKAGE } from "../src/registration/rules.ts";
import { CsrfContext, Field, Form, FormErrors } from "../views/components/Form.tsx";
import { DiscountBox, type DiscountChange, type DiscountView } from "./DiscountBox.tsx";
import { DISCOUNT_TEXT } from "../src/discounts/rules.ts";

/** What step 2 shows and pays. The client secret travels in the page's props or a JSON answer, never in a URL. */
export interface PaymentStep {
  reference: string;
  eventTitle: string;
  /** 'Full Event', or the package ('2 Days', 'Single Day'...). */
  optionLabel: string;
  amountCents: number;
  /** null when a discount made the registration free: there is no PaymentIntent. */
  clientSecret: string | null;
  discount: DiscountView | null;
}

export interface RegistrationStepsProps {
  eventId: number;
  eventTitle: string;
  packages: EventPackage[];
  days: EventDay[];
  csrfToken: string;
  publishableKey: string;
  /** The no-JavaScript form target. */
  action: string;
  values: Record<string, string>;
  errors: FieldErrors;
  /** Set when the page opens on step 2 (after a post without JavaScript, or a reload). */
  payment: PaymentStep | null;
}

export const REGISTRATION_TEXT = {
  needsJavaScript: "Card payment needs JavaScript. Please turn JavaScript on in your browser to pay by card; your place is held for 30 minutes.",
  setupErrorTitle: "Payment Setup Error",
  paymentFailedTitle: "Payment Failed",
  paymentFailed: (m: string) => `Payment could not be processed: ${m}`,
  paymentFailedDefault: "Please check your payment information and try again.",
  unknownError: "An unknown error occurred",
  providerNotReady: { title: "Payment System Unavailable", description: "Payment processing is temporarily unavailable. Please try again later." },
  actionRequired: {
    title: "Payment Successful - Action Required",
    description: "Your card was charged but we could not record your registration. Please contact support immediately with your payment confirmation.",
  },
  processing: "Processing Payment...",
  redirectMs: 2000,
} as const;

const CARD_STYLE = {
  base: { color: "#f4f4f5", fontSize: "16px", iconColor: "#f4f4f5", "::placeholder": { color: "#a1a1aa" } },
  invalid: { color: "#f87171", iconColor: "#f87171" },
};

export default function RegistrationSteps(props: RegistrationStepsProps) {
  const [payment, setPayment] = useState<PaymentStep | null>(props.payment);
  const [values, setValues] = useState<Record<string, string>>(props.values);
  const [paidIntent, setPaidIntent] = useState<string | null>(null);
  const step = paidIntent ? 3 : payment ? 2 : 1;
  return (
    <div className="registration-steps">
      <StepsBar step={step} />
      {step === 1 ? (
        <RegistrationForm {...props} values={values} onValues={setValues} onPayment={setPayment} />
      ) : step === 2 && payment ? (
        <PaymentPanel
          eventId={props.eventId}
          publishableKey={props.publishableKey}
          payment={payment}
          billing={{ name: `${values.firstName ?? ""} ${values.lastName ?? ""}`.trim(), email: values.email, phone: values.phone }}
          backHref={`/register/${props.eventId}?step=1`}
          csrfToken={props.csrfToken}
          from="register"
          onBack={() => setPayment(null)}
          onPaid={setPaidIntent}
        />
      ) : (
        <div className="card registration-section registration-paid" role="status">
          <h2>Payment Successful</h2>
          <p>Your payment went through. Finishing your registration...</p>
          <a className="btn btn-primary" href={`/event-registration/${props.eventId}?paymentSuccess=true&paymentIntentId=${encodeURIComponent(paidIntent ?? "")}`}>Complete Registration</a>
        </div>
      )}
    </div>
  );
}

const STEPS = ["Registration", "Payment", "Confirmation"] as const;

export function StepsBar({ step }: { step: number }) {
  return (
    <ol className="steps-bar" aria-label="Registration progress">
      {STEPS.map((label, i) => (
        <li key={label} className={i + 1 === step ? "is-current" : i + 1 < step ? "is-done" : undefined} aria-current={i + 1 === step ? "step" : undefined}>
          <span className="steps-bar-number" aria-hidden="true">{i + 1}</span>
          <span>{label}</span>
        </li>
      ))}
    </ol>
  );
}

function RegistrationForm(props: RegistrationStepsProps & { values: Record<string, string>; onValues: (v: Record<string, string>) => void; onPayment: (p: PaymentStep) => void }) {
  const values = props.values;
  const setValues = props.onValues;
  const [busy, setBusy] = useState(false);
  const schema = useMemo(() => registrationSchema({ packages: props.packages, days: props.days }), [props.packages, props.days]);
  const [errors, setErrors] = useState<FieldErrors>(props.errors);
  const [live, setLive] = useState(Object.keys(props.errors).length > 0);
  const formRef = useRef<HTMLFormElement>(null);
  const uid = useId();

  const check = (next: Record<string, string>) => {
    const r = validate(schema, next);
    return r.ok ? {} : r.errors;
  };
  const set = (name: string, value: string | undefined) => {
    const next = { ...values };
    if (value === undefined) delete next[name];
    else next[name] = value;
    setValues(next);
    if (live) setErrors(check(next));
  };

  const onSubmit = async (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    if (busy) return;
    setLive(true);
    const found = check(values);
    if (Object.keys(found).length > 0) {
      setErrors(found);
      requestAnimationFrame(() => formRef.current?.querySelector<HTMLElement>("[aria-invalid='true']")?.focus());
      return;
    }
    setErrors({});
    setBusy(true);
    try {
      const { formSessionId, registrationType, ...registrationData } = values;
      const res = await apiFetch<{ clientSecret?: string | null; amount?: number; registrationId?: string; optionLabel?: string; alreadyPaid?: boolean; isFreeRegistration?: boolean; discount?: DiscountView | null }>(
        `/api/events/${props.eventId}/create-payment-intent`,
        { method: "POST", json: { option: registrationType || DEFAULT_PACKAGE, formSessionId, registrationData: { ...registrationData, registrationType: registrationType || DEFAULT_PACKAGE, eventId: props.eventId } } },
      );
      if (res.alreadyPaid) {
        window.location.assign(`/event-registration/${props.eventId}?paymentSuccess=true`);
        return;
      }
      if (!res.clientSecret && !res.isFreeRegistration) throw new Error("No client secret returned from payment setup");
      props.onPayment({
        reference: res.registrationId ?? "",
        eventTitle: props.eventTitle,
        optionLabel: res.optionLabel ?? "",
        amountCents: Math.round(Number(res.amount ?? 0) * 100),
        clientSecret: res.clientSecret ?? null,
        discount: res.discount ?? null,
      });
    } catch (err) {
      const fieldErrors = err instanceof ApiError && err.status === 400 ? (err.body?.fieldErrors as FieldErrors | undefined) : undefined;
      if (fieldErrors && Object.keys(fieldErrors).length > 0) {
        setErrors(fieldErrors);
      } else {
        const message = err instanceof ApiError ? err.serverMessage ?? `Payment setup failed (${err.status})` : (err as Error).message;
        setErrors({ _form: message });
        showToast({ title: REGISTRATION_TEXT.setupErrorTitle, description: message, variant: "destructive" });
      }
    } finally {
      setBusy(false);
    }
  };

  const chosen = findPackage({ packages: props.packages, days: props.days }, values.registrationType || DEFAULT_PACKAGE);
  const allDays = chosen ? coversEveryDay(chosen, { packages: props.packages, days: props.days }) : false;
  const field = (name: string) => ({ name, value: values[name] ?? "", error: errors[name], onChange: (v: string) => set(name, v), disabled: false });
  const invalid = (name: string) => (errors[name] ? { "aria-invalid": true as const, "aria-describedby": `${uid}-${name}-error` } : {});
  const error = (name: string) => (errors[name] ? <p className="field-error" id={`${uid}-${name}-error`}>{errors[name]}</p> : null);

  return (
    <form method="post" action={props.action} className="registration-form" aria-label="Registration" noValidate ref={formRef} onSubmit={onSubmit}>
      <input type="hidden" name="_csrf" value={props.csrfToken} />
      <input type="hidden" name="formSessionId" value={values.formSessionId ?? ""} />
      <FormErrors errors={errors} />

      <fieldset className="card registration-section">
        <legend>Registration Options</legend>
        <div className="package-options" {...(errors.registrationType ? { "aria-describedby": `${uid}-registrationType-error` } : {})}>
          {props.packages.map((p) => (
            <label key={p.code} className="package-option">
              <input type="radio" name="registrationType" value={p.code} checked={(values.registrationType || DEFAULT_PACKAGE) === p.code}
                onChange={() => set("registrationType", p.code)} />
              <span className="package-option-label">{p.label}</span>
              <span className="package-option-price">{formatPrice(p.priceCents)}</span>
            </label>
          ))}
        </div>
        {error("registrationType")}
      </fieldset>

      {props.days.length > 0 ? (
        <fieldset className="card registration-section" {...(errors.days ? { "aria-describedby": `${uid}-days-error` } : {})}>
          <legend>Select Days</legend>
          <p className="field-hint">
            {allDays ? "Your package includes every day." : chosen ? `Choose ${chosen.dayCount} ${chosen.dayCount === 1 ? "day" : "days"} for your package.` : "Choose your days."}
          </p>
          <div className="check-grid">
            {props.days.map((d, i) => {
              const name = dayField(i);
              return (
                <label key={d.id} className="check">
                  <input type="checkbox" name={name} checked={allDays || values[name] === "on"} disabled={allDays}
                    onChange={(e) => set(name, e.target.checked ? "on" : undefined)} />
                  <span>{d.label}</span>
                </label>
              );
            })}
          </div>
          {error("days")}
        </fieldset>
      ) : null}

      <fieldset className="card registration-section">
        <legend>Personal Information</legend>
        <div className="field-row">
          <Field {...field("firstName")} label="First Name" required autoComplete="given-name" />
          <Field {...field("lastName")} label="Last Name" required autoComplete="family-name" />
        </div>
        <div className="field-row">
          <Field {...field("email")} label="Email" type="email" required autoComplete="email" />
          <Field {...field("phone")} label="Phone Number" type="tel" required autoComplete="tel" />
        </div>
        <div className="field-row">
          <Field {...field("grade")} label="Grade" required placeholder="e.g., 8th, 11th, etc." />
          <div className={`field${errors.gender ? " field-invalid" : ""}`}>
            <label htmlFor={`${uid}-gender`}>Gender<span aria-hidden="true"> *</span></label>
            <select id={`${uid}-gender`} name="gender" value={values.gender ?? ""} required onChange={(e) => set("gender", e.target.value)} {...invalid("gender")}>
              <option value="">Select gender</option>
              {GENDERS.map((g) => <option key={g} value={g}>{g}</option>)}
            </select>
            {error("gender")}
          </div>
        </div>
        <div className="field-row">
          <Field {...field("schoolName")} label="School Name" required />
          <Field {...field("clubName")} label="Club Name" placeholder="Wrestling Club" />
        </div>
        <div className={`field${errors.tShirtSize ? " field-invalid" : ""}`}>
          <label htmlFor={`${uid}-tShirtSize`}>T-Shirt Size</label>
          <select id={`${uid}-tShirtSize`} name="tShirtSize" value={values.tShirtSize ?? ""} onChange={(e) => set("tShirtSize", e.target.value)} {...invalid("tShirtSize")}>
            <option value="">Select size (optional)</option>
            {SHIRT_SIZES.map((s) => <option key={s} value={s}>{s}</option>)}
          </select>
          {error("tShirtSize")}
        </div>
      </fieldset>

      <fieldset className="card registration-section">
        <legend>Emergency Contact</legend>
        <div className="field-row">
          <Field {...field("emergencyContactName")} label="Emergency Contact Name" required autoComplete="off" />
          <Field {...field("emergencyContactPhone")} label="Emergency Contact Phone" type="tel" required autoComplete="off" />
        </div>
      </fieldset>

      <fieldset className="card registration-section">
        <legend>Special Requirements</legend>
        <Field {...field("specialRequirements")} label="Medical conditions, allergies or other needs (optional)" multiline />
      </fieldset>

      <fieldset className="card registration-section">
        <legend>{DISCOUNT_TEXT.boxTitle}</legend>
        <Field {...field("discountCode")} label="Discount code (optional)" autoComplete="off" />
      </fieldset>

      <div className={`registration-agreement${errors.agrees ? " field-invalid" : ""}`}>
        <label className="check">
          <input type="checkbox" name="agrees" checked={values.agrees === "on"} onChange={(e) => set("agrees", e.target.checked ? "on" : undefined)} {...invalid("agrees")} />
          <span>
            I agree to the terms and conditions, the camp's liability waiver and medical release, and confirm the
            information above is correct.<span aria-hidden="true"> *</span>
          </span>
        </label>
        {error("agrees")}
      </div>

      <div className="registration-actions">
        <a className="btn btn-secondary" href={`/events/${props.eventId}`}>Back to Event</a>
        <button type="submit" className="btn btn-primary" disabled={busy}>{busy ? "Setting Up Payment..." : "Proceed to Payment"}</button>
      </div>
    </form>
  );
}

/** Where a confirmed card payment lands: the registration's confirmation, or the team checkout's complete view. */
export function paidUrl(eventId: number, intentId: string, option?: "team"): string {
  return option === "team"
    ? `/stripe-checkout?eventId=${eventId}&option=team&success=true`
    : `/event-registration/${eventId}?paymentSuccess=true&paymentIntentId=${encodeURIComponent(intentId)}`;
}

type StripeState = { status: "waiting" } | { status: "ready"; stripe: Stripe } | { status: "unavailable" };

/** Step 2's summary and card form; also the card part of /stripe-checkout. */
export interface PaymentPanelProps {
  eventId: number;
  publishableKey: string;
  payment: PaymentStep;
  /** Sent to Stripe with the card (the spec: name, e-mail and phone). */
  billing: { name: string; email?: string | undefined; phone?: string | undefined };
  /** Where Back goes without JavaScript (and with it, when there is no onBack). */
  backHref: string;
  csrfToken: string;
  /** Which page the no-JavaScript discount and free-registration forms come back to. */
  from: "register" | "checkout";
  /** 'team' on the team checkout: every call is about the coach's team registration. */
  option?: "team";
  onBack?: () => void;
  onPaid?: (intentId: string) => void;
}

export function PaymentPanel(props: PaymentPanelProps) {
  const [stripe, setStripe] = useState<StripeState>({ status: "waiting" });
  useEffect(() => {
    const factory = (window as unknown as { Stripe?: (key: string) => Stripe }).Stripe;
    try {
      setStripe(factory ? { status: "ready", stripe: factory(props.publishableKey) } : { status: "unavailable" });
    } catch {
      setStripe({ status: "unavailable" });
    }
  }, [props.publishableKey]);
  return (
    <Elements stripe={stripe.status === "ready" ? stripe.stripe : null}>
      <CardPayment {...props} stripeState={stripe.status} />
    </Elements>
  );
}

function CardPayment({ payment: initialPayment, eventId, onBack, onPaid, stripeState, billing, backHref, csrfToken, from, option }: PaymentPanelProps & { stripeState: StripeState["status"] }) {
  const stripe = useStripe();
  const elements = useElements();
  const [payment, setPayment] = useState(initialPayment);
  const [refreshRequired, setRefreshRequired] = useState(false);
  const [busy, setBusy] = useState(false);
  const [cardError, setCardError] = useState<string | null>(null);
  const [paymentError, setPaymentError] = useState<string | null>(null);
  const [actionRequired, setActionRequired] = useState(false);
  const total = formatPrice(payment.amountCents);

  const fail = (message: string) => {
    setPaymentError(message);
    showToast({ title: REGISTRATION_TEXT.paymentFailedTitle, description: REGISTRATION_TEXT.paymentFailed(message), variant: "destructive" });
  };

  async function pay(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    if (busy) return;
    if (!stripe || !elements) {
      showToast({ ...REGISTRATION_TEXT.providerNotReady, variant: "destructive" });
      return;
    }
    const card = elements.getElement(CardElement);
    if (!card) return fail("Card element not found");
    if (!payment.clientSecret) return fail("No client secret returned from payment setup");
    setBusy(true);
    setPaymentError(null);
    try {
      const result = await stripe.confirmCardPayment(payment.clientSecret, {
        payment_method: {
          card,
          billing_details: { name: billing.name || undefined, email: billing.email || undefined, phone: billing.phone || undefined },
        },
      });
      if (result.error) return fail(result.error.message ?? REGISTRATION_TEXT.paymentFailedDefault);
      if (result.paymentIntent?.status !== "succeeded") return fail("Payment failed");
      const intentId = result.paymentIntent.id;
      try {
        await apiFetch(`/api/events/${eventId}/stripe-payment-success`, { method: "POST", json: { paymentIntentId: intentId, option } });
      } catch {
        // Charged, but the server could not record it now (the webhook still will): say so, never "failed".
        setActionRequired(true);
        showToast({ ...REGISTRATION_TEXT.actionRequired, variant: "destructive" });
        return;
      }
      onPaid?.(intentId);
      setTimeout(() => window.location.assign(paidUrl(eventId, intentId, option)), REGISTRATION_TEXT.redirectMs);
    } catch {
      fail("An unexpected error occurred");
    } finally {
      setBusy(false);
    }
  }

  if (actionRequired) {
    return (
      <div className="card registration-section payment-error" role="alert">
        <h2>{REGISTRATION_TEXT.actionRequired.title}</h2>
        <p>{REGISTRATION_TEXT.actionRequired.description}</p>
        <p>Registration reference: <strong>{payment.reference}</strong></p>
      </div>
    );
  }

  const enhanced = stripeState !== "waiting";
  const free = payment.amountCents === 0;
  const applyChange = (change: DiscountChange) => {
    setPayment((p) => ({ ...p, amountCents: change.amountCents, discount: change.discount, clientSecret: change.clientSecret ?? p.clientSecret }));
    setRefreshRequired(change.refreshRequired);
    setPaymentError(null);
  };
  const back = enhanced && onBack ? (
    <button type="button" className="btn btn-secondary" onClick={onBack} disabled={busy}>Back</button>
  ) : (
    <a className="btn btn-secondary" href={backHref}>Back</a>
  );
  return (
    <div className="registration-payment">
      <section className="card registration-section" aria-labelledby="registration-summary-heading">
        <h2 id="registration-summary-heading">Order Summary</h2>
        <dl className="summary-rows">
          <div><dt>Event</dt><dd>{payment.eventTitle}</dd></div>
          <div><dt>Registration</dt><dd data-testid="registration-option">{payment.optionLabel}</dd></div>
          <div><dt>Amount</dt><dd>{formatPrice(payment.discount?.listCents ?? payment.amountCents)}</dd></div>
          {payment.discount ? (
            <div><dt>{`Discount (${payment.discount.code})`}</dt><dd data-testid="registration-discount">{`-${formatPrice(payment.discount.offCents)}`}</dd></div>
          ) : null}
          <div className="summary-total"><dt>Total</dt><dd data-testid="registration-total">{total}</dd></div>
        </dl>
        <p className="muted">Reference {payment.reference}. Your place is held for 30 minutes while you pay.</p>
      </section>
      <DiscountBox eventId={eventId} csrfToken={csrfToken} from={from} option={option} discount={payment.discount} listCents={payment.discount?.listCents ?? payment.amountCents}
        disabled={busy} onChange={applyChange} />
      {refreshRequired ? <p className="notice-inline" role="alert">{DISCOUNT_TEXT.refresh}</p> : null}
      {free ? (
        <FreeRegistration eventId={eventId} csrfToken={csrfToken} from={from} option={option} code={payment.discount?.code ?? ""} back={back} />
      ) : (
        <form className="card registration-section" onSubmit={pay} aria-label="Card payment" noValidate>
          <fieldset disabled={busy}>
            <legend>Card Details</legend>
            {!enhanced ? <p className="notice-inline">{REGISTRATION_TEXT.needsJavaScript}</p> : null}
            {stripeState === "unavailable" ? <p className="notice-inline" role="alert">{REGISTRATION_TEXT.providerNotReady.title}. {REGISTRATION_TEXT.providerNotReady.description}</p> : null}
            {stripeState === "ready" ? (
              <>
                <div className="card-element">
                  <CardElement options={{ style: CARD_STYLE, disabled: busy }} onChange={(ev) => setCardError(ev.error?.message ?? null)} />
                </div>
                {cardError ? <p className="field-error" role="alert">{cardError}</p> : null}
              </>
            ) : null}
          </fieldset>
          {paymentError ? (
            <div className="payment-error" role="alert">
              <p className="payment-error-title">Payment Error</p>
              <p>{paymentError || REGISTRATION_TEXT.unknownError}</p>
            </div>
          ) : null}
          <div className="registration-actions">
            {back}
            {enhanced ? (
              <button type="submit" className="btn btn-primary" disabled={busy || stripeState !== "ready" || refreshRequired || !payment.clientSecret}>
                {busy ? REGISTRATION_TEXT.processing : `Complete Payment - ${total}`}
              </button>
            ) : null}
          </div>
        </form>
      )}
    </div>
  );
}

/**
 * The free-registration panel (amount 0): a real form that works without JavaScript; with it, the spec's
 * free form of stripe-payment-success, then the confirmation.
 */
function FreeRegistration({ eventId, csrfToken, from, option, code, back }: { eventId: number; csrfToken: string; from: "register" | "checkout"; option?: "team"; code: string; back: ReactNode }) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const done = from === "checkout" ? `/stripe-checkout?eventId=${eventId}${option ? `&option=${option}` : ""}&success=true` : `/register/${eventId}?paymentSuccess=true`;

  async function submit(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    if (busy) return;
    setBusy(true);
    setError(null);
    try {
      await apiFetch(`/api/events/${eventId}/stripe-payment-success`, {
        method: "POST",
        json: { freeRegistration: true, discountCode: code, eventId, option, amount: 0, paymentIntentId: `free_registration_${Date.now()}` },
      });
      showToast({ title: DISCOUNT_TEXT.freeDoneTitle, variant: "success" });
      window.location.assign(done);
    } catch (err) {
      const message = err instanceof ApiError && err.status < 500 ? err.serverMessage ?? DISCOUNT_TEXT.freeFailed : DISCOUNT_TEXT.freeFailedUnexpected;
      setError(message);
      showToast({ title: DISCOUNT_TEXT.freeFailedTitle, description: message, variant: "destructive" });
      setBusy(false);
    }
  }

  return (
    <CsrfContext value={csrfToken}>
    <Form action={`/register/${eventId}/free`} className="card registration-section free-registration" label="Free registration" onSubmit={submit}>
      <input type="hidden" name="from" value={from} />
      {option ? <input type="hidden" name="option" value={option} /> : null}
      <input type="hidden" name="discountCode" value={code} />
      <h2>Your registration is free</h2>
      <p>No card is needed: your discount code covers the whole amount.</p>
      {error ? (
        <div className="payment-error" role="alert">
          <p className="payment-error-title">{DISCOUNT_TEXT.freeFailedTitle}</p>
          <p>{error}</p>
        </div>
      ) : null}
      <div className="registration-actions">
        {back}
        <button type="submit" className="btn btn-primary" disabled={busy}>{busy ? "Completing..." : DISCOUNT_TEXT.freeButton}</button>
      </div>
    </Form>
    </CsrfContext>
  );
}
