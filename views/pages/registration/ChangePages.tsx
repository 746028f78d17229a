import type { FormState } from "../../../src/shared/forms.ts";
import { formatPrice } from "../../../src/shared/money.ts";
import { SHIRT_SIZES } from "../../../src/shared/registrations/rules.ts";
import { CHANGE_TEXT } from "../../../src/shared/registrations/changeTexts.ts";
import { Field, Form, FormErrors, stateField, SubmitButton } from "../../../components/Form.tsx";
import { Widget } from "../../components/Widget.tsx";
import type { IslandProps } from "../../../components/islands.ts";
import { PackageAndDays } from "./PackageAndDays.tsx";

/** The head of every change page: back to the registration, the title, the event. */
function Shell({ base, eyebrow, title, lead, message, children }: { base: string; eyebrow: string; title: string; lead: string; message?: string; children: React.ReactNode }) {
  return (
    <section className="section registration-page">
      <div className="container registration-container">
        <p className="back-link">
          <a href={base}><span aria-hidden="true">←&nbsp;</span>Back to the registration</a>
        </p>
        <header className="registration-header">
          <p className="eyebrow">{eyebrow}</p>
          <h1>{title}</h1>
          <p className="lead">{lead}</p>
        </header>
        {message ? <p className="card registration-section manage-message" role="alert">{message}</p> : null}
        {children}
      </div>
    </section>
  );
}

/** A change waiting for its payment (or its review), linked from the manage page and the pages that would start another one. */
export interface PendingChange {
  href: string;
  /** What it changes: 'Change to Full Camp', 'Add 2 athletes (...)'. */
  what: string;
  amountCents: number;
  review: boolean;
}

export const pendingLine = (p: PendingChange) => CHANGE_TEXT.pendingLine(p.what, formatPrice(p.amountCents), p.review);

function Pending({ pending }: { pending: PendingChange | null }) {
  if (!pending) return null;
  return (
    <p className="card registration-section notice-inline" role="status">
      {pendingLine(pending)} <a href={pending.href}>{CHANGE_TEXT.pendingLink}</a>
    </p>
  );
}

export interface UpgradeView {
  base: string;
  title: string;
  eventTitle: string;
  packageLabel: string;
  paidListCents: number;
  changesUntil: string;
  version: number;
  days: { id: number; label: string }[];
  options: { code: string; label: string; priceCents: number; differenceCents: number; dayCount: number; everyDay: boolean }[];
  /** Why no option is offered ('' when some are). */
  reason: string;
  pending: PendingChange | null;
  /** A deposit plan: the difference goes on the balance, due on this day; nothing is charged now. */
  balanceDue?: string | null;
}

/** /my-registration/{token}/upgrade: the dearer packages, each with what it costs on top, and the new days. */
export function UpgradePage({ view, form, message }: { view: UpgradeView; form: FormState; message?: string }) {
  return (
    <Shell base={view.base} eyebrow="Change package" title={`Move ${view.title} to a bigger package`} lead={view.eventTitle} message={message}>
      <Pending pending={view.pending} />
      {view.options.length === 0 ? (
        <p className="card registration-section">{view.reason}</p>
      ) : (
        <section className="card registration-section" aria-labelledby="upgrade-heading">
          <h2 id="upgrade-heading">Choose the new package</h2>
          <p className="muted">
            {view.balanceDue
              ? `You have ${view.packageLabel} (${formatPrice(view.paidListCents)}). The difference goes on your balance, due on ${view.balanceDue}; nothing is charged now. You can make it ${view.changesUntil}.`
              : `You have ${view.packageLabel} (${formatPrice(view.paidListCents)}). You pay the difference by card; the change applies when the payment goes through. You can make it ${view.changesUntil}.`}
          </p>
          <Form action={`${view.base}/upgrade`} label="Move to a bigger package">
            <FormErrors errors={form.errors} focus />
            <input type="hidden" name="version" value={String(view.version)} />
            <PackageAndDays
              moves={view.options.map((o) => ({ ...o, line: `${o.label} (${formatPrice(o.priceCents)}): ${view.balanceDue ? "your balance grows by" : "you pay"} ${formatPrice(o.differenceCents)}${view.balanceDue ? "" : " more"}` }))}
              days={view.days}
              form={form}
              idPrefix="upgrade"
            />
            <SubmitButton className="btn btn-primary">{CHANGE_TEXT.upgradeButton}</SubmitButton>
          </Form>
        </section>
      )}
    </Shell>
  );
}

export interface AddAthletesView {
  base: string;
  title: string;
  eventTitle: string;
  pricePerAthleteCents: number;
  /** A team on a deposit plan with its balance still to come: what an added athlete costs today and what joins the balance. */
  depositSplit: { todayCents: number; balanceCents: number; dueText: string } | null;
  placesLeft: number;
  changesUntil: string;
  rows: number;
  maxRows: number;
  /** Why athletes cannot be added ('' when they can). */
  reason: string;
  pending: PendingChange | null;
}

/** One new athlete's fields: the team form's row, the same labels. */
function AthleteRowFields({ form, index }: { form: FormState; index: number }) {
  const f = (name: string) => stateField(form, `athletes.${index}.${name}`);
  return (
    <fieldset className="fieldset">
      <legend>{`New athlete ${index + 1}`}</legend>
      <div className="form-grid">
        <Field {...f("firstName")} label="First Name" required />
        <Field {...f("lastName")} label="Last Name" required />
        <Field {...f("age")} label="Age" type="number" required />
        <Field {...f("email")} label="Email" type="email" required />
        <Field {...f("shirtSize")} label="Shirt Size" required options={SHIRT_SIZES} placeholder="Select size" />
        <Field {...f("parentName")} label="Parent Name" required />
        <Field {...f("parentPhoneNumber")} label="Parent Phone" type="tel" required />
      </div>
    </fieldset>
  );
}

/** /my-registration/{token}/athletes: the coach adds athletes to the paid team (rows added on the server without JavaScript). */
export function AddAthletesPage({ view, form, message }: { view: AddAthletesView; form: FormState; message?: string }) {
  return (
    <Shell base={view.base} eyebrow="Roster" title={`Add athletes to ${view.title}`} lead={view.eventTitle} message={message}>
      <Pending pending={view.pending} />
      {view.reason ? (
        <p className="card registration-section">{view.reason}</p>
      ) : (
        <section className="card registration-section" aria-labelledby="add-heading">
          <h2 id="add-heading">New athletes</h2>
          <p className="muted">{`${formatPrice(view.pricePerAthleteCents)} per athlete (the team price)${view.depositSplit ? `: on your deposit plan ${formatPrice(view.depositSplit.todayCents)} each today, paid by card, and ${formatPrice(view.depositSplit.balanceCents)} each added to the balance due on ${view.depositSplit.dueText}` : ", paid by card"}. Their places are held for 30 minutes while you pay; ${view.placesLeft} ${view.placesLeft === 1 ? "place is" : "places are"} open now. You can add athletes ${view.changesUntil}.`}</p>
          <Form action={`${view.base}/athletes`} label="Add athletes to the team">
            <FormErrors errors={form.errors} focus />
            {form.errors.athletes ? <p className="field-error">{form.errors.athletes}</p> : null}
            {Array.from({ length: view.rows }, (_, i) => <AthleteRowFields key={i} form={form} index={i} />)}
            <input type="hidden" name="rows" value={String(view.rows)} />
            <div className="registration-actions">
              {view.rows < view.maxRows ? (
                <button type="submit" name="addRow" value="1" className="btn btn-secondary">Add another athlete</button>
              ) : null}
              <SubmitButton className="btn btn-primary">{CHANGE_TEXT.addButton}</SubmitButton>
            </div>
          </Form>
        </section>
      )}
    </Shell>
  );
}

export interface ChangePayView {
  base: string;
  changeHref: string;
  kind: "upgrade" | "add_athletes";
  title: string;
  eventTitle: string;
  reference: string;
  lines: string[];
  amountCents: number;
  status: "pending" | "paid" | "expired" | "cancelled" | "needs_review" | "rejected" | "processing";
  until: string;
  /** The card form's props while the change waits for its payment and its intent is ready. */
  card: IslandProps<"ChangePayment"> | null;
  setupError: string | null;
}

const STATUS_TEXT: Record<Exclude<ChangePayView["status"], "pending">, string> = {
  paid: CHANGE_TEXT.paid,
  processing: CHANGE_TEXT.processing,
  expired: CHANGE_TEXT.lapsed,
  cancelled: CHANGE_TEXT.cancelled,
  needs_review: CHANGE_TEXT.review,
  rejected: CHANGE_TEXT.rejected,
};

/** /my-registration/{token}/changes/{id}: the change, its amount, and the card form (or what became of it). */
export function ChangePayPage({ view, message }: { view: ChangePayView; message?: string }) {
  return (
    <Shell base={view.base} eyebrow="Payment" title={CHANGE_TEXT.payTitle(view.kind)} lead={`${view.title} · ${view.eventTitle}`} message={message}>
      {/* From 1024 px the summary beside the payment (registration.css). */}
      <div className="payment-layout">
        <section className="card registration-section change-summary" aria-labelledby="change-summary">
          <h2 id="change-summary">Summary</h2>
          <ul>
            {view.lines.map((l) => <li key={l}>{l}</li>)}
          </ul>
          <dl className="summary-rows">
            <div className="summary-total"><dt>To pay</dt><dd data-testid="change-total">{formatPrice(view.amountCents)}</dd></div>
          </dl>
          <p className="muted">{`Reference ${view.reference}.`}</p>
        </section>
        {view.status === "pending" ? (
          <div className="payment-pay">
            <p className="muted">{view.kind === "add_athletes" ? CHANGE_TEXT.placesHeldUntil(view.until) : CHANGE_TEXT.heldUntil(view.until)}</p>
            {view.setupError ? <p className="card registration-section payment-error" role="alert">{view.setupError}</p> : null}
            {view.card ? <Widget name="ChangePayment" load="interaction" trigger=".registration-page" props={view.card} /> : null}
            <Form action={`${view.changeHref}/cancel`} label="Cancel this change" className="card registration-section">
              <p>Changed your mind? Nothing is charged until you pay.</p>
              <SubmitButton className="btn btn-secondary">Cancel This Change</SubmitButton>
            </Form>
          </div>
        ) : (
          <p className="card registration-section change-status" role="status">{STATUS_TEXT[view.status]}</p>
        )}
      </div>
      <p>
        <a className="btn btn-secondary" href={view.base}>Back to the registration</a>
      </p>
    </Shell>
  );
}
