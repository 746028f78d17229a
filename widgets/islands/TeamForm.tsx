/**
 * The team registration form: Coach Information, the Athletes rows and the Registration Summary. The server
 * renders it as a real form (without JavaScript, 'Add athlete' and 'Remove' are submit buttons the server answers
 * with the same form, one row more or less); hydrated, it adds and removes rows in place, checks every rule with
 * the server's own schema, holds the team through POST /api/team-registration and goes on to the checkout.
 */
import { TeamAgreementNote } from "../../components/CampAgreements.tsx";
import { useEffect, useId, useMemo, useRef, useState, type FormEvent, type MouseEvent } from "react";
import { useHydrated } from "../useHydrated.ts";
import { apiFetch, ApiError } from "../api.ts";
import { showToast } from "../toast.ts";
import { validate, type FieldErrors } from "../../src/shared/forms.ts";
import { formatPrice } from "../../src/shared/money.ts";
import { SHIRT_SIZES } from "../../src/shared/registrations/rules.ts";
import { discountAmount, type DiscountType } from "../../src/shared/discounts/rules.ts";
import {
  COACH_FIELDS,
  TEAM_MAXIMUM,
  TEAM_TEXT,
  blankAthlete,
  countAthletes,
  teamErrorTitle,
  TEAM_AGE,
  teamSchemaFor,
  teamTotalCents,
  type AgeLimits,
  type AthleteField,
  type AthleteRow,
  type CoachValues,
  type TeamFormValues,
} from "../../src/shared/registrations/teamRules.ts";
import { CsrfContext, Field, Form, FormErrors } from "../../components/Form.tsx";
import { PaymentPlanChoice, planFor, type DepositOffer } from "../../components/PaymentPlanChoice.tsx";
import { INVITE_POLL_MS, withInvitedRows, type InvitedRow, type TeamInviteView } from "../../src/shared/registrations/invites.ts";
import { TeamInviteSection } from "../TeamInviteSection.tsx";

export interface TeamFormProps {
  eventId: number;
  eventTitle: string;
  teamPriceCents: number;
  csrfToken: string;
  /** The no-JavaScript form target. */
  action: string;
  values: TeamFormValues;
  errors: FieldErrors;
  /** A code the coach's held team already has (Back from the checkout): the summary takes it off. */
  discount: { code: string; type: DiscountType; value: number } | null;
  /** The event's athlete ages (event.ageLimits); 10 to 19 when not given. */
  ageLimits?: AgeLimits;
  /** The event's deposit policy (null: none) and the plan chosen: "Pay in full" beside "Pay today, then the balance". */
  depositOffer?: DepositOffer | null;
  paymentPlan?: string;
  /** The coach's invite link and the rows families filled in through it (null: no link yet). */
  invite?: TeamInviteView | null;
}

const ATHLETE_INPUTS: { name: AthleteField; label: string; type?: "email" | "tel" | "number"; autoComplete?: string }[] = [
  { name: "firstName", label: "First Name" },
  { name: "lastName", label: "Last Name" },
  { name: "age", label: "Age", type: "number" },
  { name: "email", label: "Email", type: "email" },
  { name: "parentName", label: "Parent Name" },
  { name: "parentPhoneNumber", label: "Parent Phone", type: "tel" },
];

const COACH_INPUTS: { name: keyof CoachValues; label: string; type?: "email" | "tel"; autoComplete: string; required: boolean }[] = [
  ...COACH_FIELDS.map((f) => ({
    name: f.name,
    label: f.label,
    type: f.name === "email" ? ("email" as const) : f.name === "phone" ? ("tel" as const) : undefined,
    autoComplete: { firstName: "given-name", lastName: "family-name", email: "email", phone: "tel" }[f.name],
    required: true,
  })),
  { name: "teamName", label: "Team Name (optional)", autoComplete: "organization", required: false },
];

const checkoutUrl = (eventId: number, eventTitle: string) => `/stripe-checkout?eventId=${eventId}&eventName=${encodeURIComponent(eventTitle)}&option=team`;

export default function TeamForm(props: TeamFormProps) {
  const [values, setValues] = useState<TeamFormValues>(props.values);
  const [paymentPlan, setPaymentPlan] = useState<string>(props.paymentPlan ?? "full");
  const [errors, setErrors] = useState<FieldErrors>(props.errors);
  const [live, setLive] = useState(Object.keys(props.errors).length > 0);
  const [busy, setBusy] = useState(false);
  const enhanced = useHydrated();
  const sending = useRef(false);
  const formRef = useRef<HTMLFormElement>(null);
  const uid = useId();
  const ages = props.ageLimits ?? TEAM_AGE;
  const schema = useMemo(() => teamSchemaFor(ages), [ages]);

  // The families' rows count as the coach's own; the server reads them again when the team is held.
  const [invitedRows, setInvitedRows] = useState(props.invite?.rows ?? []);
  const invited = props.invite ? invitedRows : [];
  const team = invited.length > 0 ? withInvitedRows(values, invited) : values;
  const { complete } = countAthletes(team.athletes);
  const listCents = teamTotalCents(complete, props.teamPriceCents);
  const off = props.discount && complete > 0 ? discountAmount(listCents, props.discount) : null;
  const totalCents = off ? off.finalCents : listCents;
  // The deposit plan chosen (and still offered for this total): the button says what is paid today.
  const todayPlan = paymentPlan === "deposit" ? planFor(props.depositOffer, totalCents, complete) : null;

  // With an invite link, the families' rows appear without a reload (a small poll; the server reads them again at the hold).
  const hasInvite = props.invite != null;
  useEffect(() => {
    if (!hasInvite) return;
    const timer = setInterval(() => {
      if (document.hidden || sending.current) return;
      apiFetch<{ rows: InvitedRow[] }>(`/api/team-invite-rows/${props.eventId}`).then((r) => setInvitedRows(r.rows), () => undefined);
    }, INVITE_POLL_MS);
    return () => clearInterval(timer);
  }, [hasInvite, props.eventId]);

  const check = (next: TeamFormValues): FieldErrors => {
    const r = validate(schema, next);
    return r.ok ? {} : r.errors;
  };
  const update = (next: TeamFormValues) => {
    setValues(next);
    if (live) setErrors(check(next));
  };
  const setCoach = (name: keyof CoachValues, v: string) => update({ ...values, coachInfo: { ...values.coachInfo, [name]: v } });
  const setAthlete = (i: number, name: AthleteField, v: string) =>
    update({ ...values, athletes: values.athletes.map((a, j) => (j === i ? { ...a, [name]: v } : a)) });
  const focusSoon = (selector: string) => requestAnimationFrame(() => formRef.current?.querySelector<HTMLElement>(selector)?.focus());

  const addAthlete = (e: MouseEvent<HTMLButtonElement>) => {
    e.preventDefault();
    if (values.athletes.length >= TEAM_MAXIMUM) return;
    update({ ...values, athletes: [...values.athletes, blankAthlete()] });
    focusSoon(`[data-athlete="${values.athletes.length}"] input`);
  };
  const removeAthlete = (e: MouseEvent<HTMLButtonElement>, i: number) => {
    e.preventDefault();
    if (values.athletes.length <= 1) return;
    update({ ...values, athletes: values.athletes.filter((_, j) => j !== i) });
    focusSoon(`[data-athlete="${Math.max(0, i - 1)}"] input`);
  };

  async function onSubmit(e: FormEvent<HTMLFormElement>) {
    // Creating the invite link and removing a family's row are plain posts: the page comes back with the link.
    const submitter = (e.nativeEvent as SubmitEvent).submitter;
    if (submitter?.getAttribute("value") === "invite" || submitter?.getAttribute("name") === "removeInvited") return;
    e.preventDefault();
    if (sending.current) return;
    setLive(true);
    const result = validate(schema, team);
    if (!result.ok) {
      setErrors(result.errors);
      showToast({ title: teamErrorTitle(result.message), description: result.message, variant: "destructive" });
      focusSoon("[aria-invalid='true']");
      return;
    }
    setErrors({});
    sending.current = true;
    setBusy(true);
    try {
      const trimmed = result.data;
      const res = await apiFetch<{ clientSecret?: string | null; amount?: number; alreadyPaid?: boolean }>("/api/team-registration", {
        method: "POST",
        json: {
          eventId: props.eventId,
          formSessionId: values.formSessionId,
          coachInfo: { ...trimmed.coach, teamName: trimmed.coach.teamName ?? "" },
          athletes: trimmed.athletes.slice(0, trimmed.athletes.length - invited.length),
          ...(props.invite ? { invite: true } : {}),
          // The server recomputes every amount; these are the spec's payload fields only.
          pricePerAthlete: props.teamPriceCents / 100,
          totalAmount: listCents / 100,
          discountedAmount: totalCents / 100,
          discountCode: null,
          paymentPlan,
        },
      });
      if (res.alreadyPaid) {
        window.location.assign(`${checkoutUrl(props.eventId, props.eventTitle)}&success=true`);
        return;
      }
      showToast({ title: TEAM_TEXT.readyTitle, description: TEAM_TEXT.ready, variant: "success" });
      // The client secret stays out of the address: the checkout finds the coach's team in the session.
      window.location.assign(checkoutUrl(props.eventId, props.eventTitle));
    } catch (err) {
      sending.current = false;
      setBusy(false);
      if (err instanceof ApiError && err.status === 400 && err.body?.fieldErrors) {
        setErrors(err.body.fieldErrors as FieldErrors);
        focusSoon("[aria-invalid='true']");
      }
      if (err instanceof ApiError && err.status === 502) {
        showToast({ title: TEAM_TEXT.paymentSetupTitle, description: TEAM_TEXT.paymentSetup, variant: "destructive" });
      } else if (err instanceof ApiError && err.status < 500) {
        const message = err.serverMessage ?? TEAM_TEXT.registrationErrorDefault;
        setErrors((prev) => ({ ...prev, _form: message }));
        showToast({ title: typeof err.body?.title === "string" ? err.body.title : TEAM_TEXT.registrationErrorTitle, description: message, variant: "destructive" });
      } else {
        showToast({ title: TEAM_TEXT.registrationErrorTitle, description: TEAM_TEXT.unexpected, variant: "destructive" });
      }
    }
  }

  const fieldId = (path: string) => `${uid}-${path.replace(/\./g, "-")}`;
  const errorText = (path: string) => (errors[path] ? <p className="field-error" id={`${fieldId(path)}-error`}>{errors[path]}</p> : null);
  const rows = values.athletes;

  return (
    <CsrfContext value={props.csrfToken}>
    <Form action={props.action} className="registration-form team-form" label="Team registration" ref={formRef} onSubmit={(e) => void onSubmit(e)}>
      {/* Enter in a field registers the team (the first submit button of a form is its default). */}
      <button type="submit" name="intent" value="register" className="visually-hidden" tabIndex={-1} aria-hidden="true" disabled={busy}>Register Team</button>
      <input type="hidden" name="formSessionId" value={values.formSessionId} />
      {/* The total this page shows on its button: the server refuses a register post that would charge another. */}
      <input type="hidden" name="shownTotalCents" value={String(totalCents)} />
      {props.invite ? <input type="hidden" name="invite" value="1" /> : null}
      <FormErrors errors={errors} focus={errors === props.errors} />

      <fieldset className="card registration-section" aria-describedby={errors.coachInfo ? `${fieldId("coachInfo")}-error` : undefined}>
        <legend>Coach Information</legend>
        {errorText("coachInfo")}
        <div className="field-grid">
          {COACH_INPUTS.map((f) => (
            <Field key={f.name} name={`coachInfo.${f.name}`} label={f.label} type={f.type} autoComplete={f.autoComplete} required={f.required}
              value={values.coachInfo[f.name]} error={errors[`coachInfo.${f.name}`]} onChange={(v) => setCoach(f.name, v)} disabled={busy} />
          ))}
        </div>
      </fieldset>

      <section className="card registration-section" aria-labelledby={`${uid}-athletes`}>
        <h2 id={`${uid}-athletes`}>Athletes</h2>
        <p className="field-hint">An athlete is registered once every field of the row is filled in.</p>
        {errorText("athletes")}
        <div className="team-athletes">
          {rows.map((row, i) => (
            <AthleteFieldset key={i} index={i} row={row} busy={busy} canRemove={rows.length > 1} errors={errors} ages={ages}
              onChange={setAthlete} onRemove={removeAthlete} />
          ))}
        </div>
        {rows.length < TEAM_MAXIMUM ? (
          <button type="submit" name="intent" value="add" className="btn btn-secondary" formNoValidate onClick={addAthlete} disabled={busy}>Add athlete</button>
        ) : (
          <p className="field-hint">{TEAM_TEXT.tooMany}</p>
        )}
      </section>

      <TeamInviteSection invite={props.invite ? { ...props.invite, rows: invited } : null} busy={busy} id={`${uid}-invite`} />

      <section className="card registration-section team-summary" aria-labelledby={`${uid}-summary`}>
        <h2 id={`${uid}-summary`}>Registration Summary</h2>
        <dl className="summary-rows">
          <div><dt>Complete athletes</dt><dd data-testid="team-complete">{complete}</dd></div>
          <div><dt>Price per athlete</dt><dd>{formatPrice(props.teamPriceCents)}</dd></div>
          {off && props.discount ? <div><dt>{`Discount (${props.discount.code})`}</dt><dd>{`-${formatPrice(off.offCents)}`}</dd></div> : null}
          <div className="summary-total"><dt>Total</dt><dd data-testid="team-total">{formatPrice(totalCents)}</dd></div>
        </dl>
        <PaymentPlanChoice offer={props.depositOffer} priceCents={totalCents} athletes={complete} value={paymentPlan} onChange={setPaymentPlan} error={errors.paymentPlan} />
        <p className="muted">{TEAM_TEXT.minimumNote}. Every athlete takes a place; your places are held for 30 minutes while you pay.</p>
        <TeamAgreementNote />
        <div className="registration-actions">
          <a className="btn btn-secondary" href={`/events/${props.eventId}`}>Back to Event</a>
          <button type="submit" name="intent" value="register" className="btn btn-primary" disabled={busy || (enhanced && complete === 0)}>
            {busy ? TEAM_TEXT.processing : todayPlan ? TEAM_TEXT.depositButton(todayPlan.todayCents) : TEAM_TEXT.button(totalCents)}
          </button>
        </div>
      </section>
    </Form>
    </CsrfContext>
  );
}

function AthleteFieldset(props: {
  index: number;
  row: AthleteRow;
  busy: boolean;
  canRemove: boolean;
  errors: FieldErrors;
  ages: AgeLimits;
  onChange: (i: number, name: AthleteField, v: string) => void;
  onRemove: (e: MouseEvent<HTMLButtonElement>, i: number) => void;
}) {
  const { index: i, row } = props;
  const heading = `Athlete ${i + 1}`;
  return (
    <fieldset className="team-athlete" data-athlete={i}>
      <legend>{heading}</legend>
      <div className="field-grid">
        {ATHLETE_INPUTS.map((f) => (
          <Field key={f.name} name={`athletes.${i}.${f.name}`} label={f.label} type={f.type} required autoComplete="off"
            {...(f.type === "number" ? { min: props.ages.min, max: props.ages.max } : {})} value={row[f.name]} error={props.errors[`athletes.${i}.${f.name}`]}
            onChange={(v) => props.onChange(i, f.name, v)} disabled={props.busy} />
        ))}
        <Field name={`athletes.${i}.shirtSize`} label="Shirt Size" required options={SHIRT_SIZES} placeholder="Select size" value={row.shirtSize}
          error={props.errors[`athletes.${i}.shirtSize`]} onChange={(v) => props.onChange(i, "shirtSize", v)} disabled={props.busy} />
      </div>
      {props.canRemove ? (
        <button type="submit" name="remove" value={String(i)} className="btn btn-link team-athlete-remove" formNoValidate disabled={props.busy}
          aria-label={`Remove ${heading}`} onClick={(e) => props.onRemove(e, i)}>Remove</button>
      ) : null}
    </fieldset>
  );
}
