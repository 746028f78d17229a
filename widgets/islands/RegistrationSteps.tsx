/**
 * Individual registration in three steps (Registration, Payment, Confirmation). Step 1 is the real form the
 * server renders (it works without JavaScript), taken over for instant feedback with the server's own schema;
 * with JavaScript, 'Proceed to Payment' holds the place and obtains the payment in place, step 2 takes the
 * card, and a confirmed payment moves on to the confirmation page.
 */
import { useEffect, useId, useMemo, useRef, useState, type FormEvent } from "react";
import { useHydrated } from "../useHydrated.ts";
import { apiFetch, ApiError } from "../api.ts";
import { showToast } from "../toast.ts";
import { withScreenValues } from "../formDom.ts";
import { firstHeading, focusAndReveal } from "../focus.ts";
import { validate, type FieldErrors } from "../../src/shared/forms.ts";
import type { EventDay, EventPackage } from "../../src/shared/events/types.ts";
import { formatPrice } from "../../src/shared/money.ts";
import { GENDERS, SHIRT_SIZES, attendedDayLabels, coversEveryDay, dayChoiceHint, dayField, findPackage, registrationSchema, DEFAULT_PACKAGE, GUARDIAN_BLOCK } from "../../src/shared/registrations/rules.ts";
import { Field, FieldIdScope, FormErrors, useFieldId } from "../../components/Form.tsx";
import { AgreementWords, CancellationPolicyNote } from "../../components/CampAgreements.tsx";
import { GuardianFields } from "../../components/GuardianFields.tsx";
import { StepsBar } from "../../components/StepsBar.tsx";
import type { DiscountView } from "../DiscountBox.tsx";
import { DISCOUNT_TEXT } from "../../src/shared/discounts/rules.ts";
import PaymentPanel, { REGISTRATION_TEXT, type DepositStep, type PaymentStep } from "./PaymentPanel.tsx";
import { PaymentPlanChoice, type DepositOffer } from "../../components/PaymentPlanChoice.tsx";
import { ReturningBox } from "../../components/ReturningFamily.tsx";
import type { ReturningBoxProps } from "../../src/shared/registrations/returning.ts";
import { SiblingAthletes } from "../SiblingAthletes.tsx";
import type { FamilyLineView, SiblingDiscount } from "../../src/shared/registrations/siblings.ts";

/** The payment panel's types, for the pages and routes that render this widget. */
export type { PaymentPanelProps, PaymentStep } from "./PaymentPanel.tsx";

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
  /** The event's deposit policy: "Pay in full" beside "Pay today, then the balance" (null: none). */
  depositOffer?: DepositOffer | null;
  /** "Registered before?" on step 1: the ask, or the note that a returning link filled the form in. */
  returning?: ReturningBoxProps | null;
  /** Off each additional athlete of a family (siblings.ts); absent: none. */
  siblingDiscount?: SiblingDiscount;
  /** A waiting-list offer's form: exactly this many athletes, no sibling added or removed; absent: any number. */
  fixedAthletes?: number;
}

export default function RegistrationSteps(props: RegistrationStepsProps) {
  const [payment, setPayment] = useState<PaymentStep | null>(props.payment);
  const [values, setValues] = useState<Record<string, string>>(props.values);
  const [paidIntent, setPaidIntent] = useState<string | null>(null);
  const step = paidIntent ? 3 : payment ? 2 : 1;
  const rootRef = useRef<HTMLDivElement>(null);
  const shownStep = useRef(step);
  useEffect(() => {
    // A step the visitor moved to (not the one the page opened on): its heading is where the eye goes next.
    if (shownStep.current === step) return;
    shownStep.current = step;
    focusAndReveal(firstHeading(rootRef.current?.querySelector<HTMLElement>(".registration-step")));
  }, [step]);
  return (
    <div className="registration-steps" ref={rootRef}>
      <StepsBar step={step} />
      <div className="registration-step">
      {step === 1 && props.returning ? <ReturningBox {...props.returning} /> : null}
      {step === 1 ? (
        <FieldIdScope>
          <RegistrationForm {...props} values={values} onValues={setValues} onPayment={setPayment} />
        </FieldIdScope>
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
    </div>
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
  const genderId = useFieldId("gender");
  const shirtId = useFieldId("tShirtSize");
  const agreesId = useFieldId("agrees");
  const packageId = useFieldId("registrationType");
  const daysId = useFieldId("days");
  // Until the widget runs (and always without JavaScript) every day box stays enabled: the package is only known
  // to the server at submit, which checks the day count. Once running, a full package ticks and locks them all.
  const running = useHydrated();
  useEffect(() => {
    // Text typed or autofilled before the widget started is kept, not wiped by the first render.
    const screen = withScreenValues(props.values, formRef.current);
    if (screen !== props.values) setValues(screen);
    // Deliberate: once at start, from the first props; later props.values are this widget's own edits.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, []);

  const check = (next: Record<string, string>) => {
    const r = validate(schema, next);
    return r.ok ? {} : r.errors;
  };
  const setAll = (next: Record<string, string>) => {
    setValues(next);
    if (live) setErrors(check(next));
  };
  const set = (name: string, value: string | undefined) => {
    const next = { ...values };
    if (value === undefined) delete next[name];
    else next[name] = value;
    setAll(next);
  };

  const onSubmit = async (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    if (busy) return;
    setLive(true);
    // A pasted or autofilled value may be on the screen without having reached the state.
    const current = withScreenValues(props.values, formRef.current);
    if (current !== props.values) setValues(current);
    const found = check(current);
    if (Object.keys(found).length > 0) {
      setErrors(found);
      requestAnimationFrame(() => formRef.current?.querySelector<HTMLElement>("[aria-invalid='true']")?.focus());
      return;
    }
    setErrors({});
    setBusy(true);
    try {
      const { formSessionId, registrationType, ...registrationData } = current;
      const res = await apiFetch<{ clientSecret?: string | null; amount?: number; registrationId?: string; optionLabel?: string; alreadyPaid?: boolean; isFreeRegistration?: boolean; discount?: DiscountView | null; deposit?: DepositStep | null; family?: FamilyLineView[] | null }>(
        `/api/events/${props.eventId}/create-payment-intent`,
        // The guardian block is always sent (blank when the athlete is 18 or older): the server checks it as the form does.
        { method: "POST", json: { option: registrationType || DEFAULT_PACKAGE, formSessionId, registrationData: { ...GUARDIAN_BLOCK, ...registrationData, registrationType: registrationType || DEFAULT_PACKAGE, eventId: props.eventId } } },
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
        days: attendedDayLabels({ packages: props.packages, days: props.days }, current),
        amountCents: Math.round(Number(res.amount ?? 0) * 100),
        clientSecret: res.clientSecret ?? null,
        discount: res.discount ?? null,
        deposit: res.deposit ?? null,
        family: res.family ?? null,
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
  const allDays = running && chosen ? coversEveryDay(chosen, { packages: props.packages, days: props.days }) : false;
  const field = (name: string) => ({ name, value: values[name] ?? "", error: errors[name], onChange: (v: string) => set(name, v), disabled: false });
  const invalid = (name: string) => (errors[name] ? { "aria-invalid": true as const, "aria-describedby": `${uid}-${name}-error` } : {});
  const error = (name: string) => (errors[name] ? <p className="field-error" id={`${uid}-${name}-error`}>{errors[name]}</p> : null);

  return (
    <form method="post" action={props.action} className="registration-form" aria-label="Registration" noValidate ref={formRef} onSubmit={(e) => void onSubmit(e)}>
      <input type="hidden" name="_csrf" value={props.csrfToken} />
      <input type="hidden" name="formSessionId" value={values.formSessionId ?? ""} />
      <FormErrors errors={errors} focus={errors === props.errors} />

      <fieldset className="card registration-section">
        <legend>Registration Options</legend>
        <div className="package-options" id={packageId} {...(errors.registrationType ? { "aria-describedby": `${uid}-registrationType-error` } : {})}>
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

      <PaymentPlanChoice offer={props.depositOffer} priceCents={chosen?.priceCents ?? 0} athletes={1} value={values.paymentPlan} onChange={(v) => set("paymentPlan", v)} error={errors.paymentPlan} />

      {props.days.length > 0 ? (
        <fieldset className="card registration-section" id={daysId} {...(errors.days ? { "aria-describedby": `${uid}-days-error` } : {})}>
          <legend>Select Days</legend>
          <p className="field-hint">{dayChoiceHint({ packages: props.packages, days: props.days }, running ? chosen : undefined)}</p>
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
            <label htmlFor={genderId}>Gender<span aria-hidden="true"> *</span></label>
            <select id={genderId} name="gender" value={values.gender ?? ""} required onChange={(e) => set("gender", e.target.value)} {...invalid("gender")}>
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
          <label htmlFor={shirtId}>T-Shirt Size</label>
          <select id={shirtId} name="tShirtSize" value={values.tShirtSize ?? ""} onChange={(e) => set("tShirtSize", e.target.value)} {...invalid("tShirtSize")}>
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

      <GuardianFields field={field} adult={values.adult === "on"} hideWhenAdult={running} onAdult={(on) => set("adult", on ? "on" : undefined)} />

      <fieldset className="card registration-section">
        <legend>Special Requirements</legend>
        <Field {...field("specialRequirements")} label="Medical conditions, allergies or other needs (optional)" multiline />
      </fieldset>

      <SiblingAthletes packages={props.packages} days={props.days} values={values} errors={errors} running={running} set={set} setAll={setAll} siblingDiscount={props.siblingDiscount} fixedAthletes={props.fixedAthletes} />

      <fieldset className="card registration-section">
        <legend>{DISCOUNT_TEXT.boxTitle}</legend>
        <Field {...field("discountCode")} label="Discount code (optional)" autoComplete="off" />
      </fieldset>

      <div className={`registration-agreement${errors.agrees ? " field-invalid" : ""}`}>
        <label className="check">
          <input type="checkbox" id={agreesId} name="agrees" checked={values.agrees === "on"} onChange={(e) => set("agrees", e.target.checked ? "on" : undefined)} {...invalid("agrees")} />
          <span>
            <AgreementWords />, and confirm the information above is correct.<span aria-hidden="true"> *</span>
          </span>
        </label>
        {error("agrees")}
        <CancellationPolicyNote />
      </div>

      <div className="registration-actions">
        <a className="btn btn-secondary" href={`/events/${props.eventId}`}>Back to Event</a>
        <button type="submit" className="btn btn-primary" disabled={busy}>{busy ? "Setting Up Payment..." : "Proceed to Payment"}</button>
      </div>
    </form>
  );
}
