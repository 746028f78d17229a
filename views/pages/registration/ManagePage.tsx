import { familyFactRows, type FamilyLineView } from "../../../src/shared/registrations/siblings.ts";
import type { FormState } from "../../../src/shared/forms.ts";
import { formatPrice } from "../../../src/shared/money.ts";
import { GENDERS, SHIRT_SIZES } from "../../../src/shared/registrations/rules.ts";
import { CAMP_POLICY_PATHS } from "../../../src/shared/registrations/agreements.ts";
import type { ChangePhase } from "../../../src/shared/registrations/changePolicy.ts";
import { Field, Form, FormErrors, stateField, SubmitButton, WithFieldId } from "../../../components/Form.tsx";
import { CancellationPolicyList } from "../../../components/CampAgreements.tsx";
import { CHANGE_TEXT } from "../../../src/shared/registrations/changeTexts.ts";
import { pendingLine, type PendingChange } from "./ChangePages.tsx";
import { PackageAndDays } from "./PackageAndDays.tsx";
import { SummaryRows } from "../../components/SummaryRows.tsx";
import { GuardianFields } from "../../../components/GuardianFields.tsx";
import { completeCount, missingBadge } from "../../../src/shared/texts.ts";
import type { BalanceView } from "../../../src/shared/registrations/deposits.ts";
import { BalanceSection } from "./BalancePage.tsx";

/** Everything the manage page shows, prepared by the route (dates already in the event's own time zone). */
export interface ManageView {
  /** The page's own address (`/my-registration/{token}`): its forms post below it. */
  base: string;
  reference: string;
  kind: "individual" | "team";
  title: string;
  statusLabel: string;
  eventTitle: string;
  eventId: number;
  dateText: string;
  hours: string;
  location: string;
  packageLabel: string;
  days: { id: number; label: string; attended: boolean }[];
  /** The package covers every day: there is no day to move. */
  everyDay: boolean;
  dayCount: number;
  athletes: { position: number; name: string; /** Grade or age, school: one line each. */ detail: string[]; shirtSize: string; /** The parent or guardian contact of an individual athlete under 18. */ guardian?: string; emergency: string; medical: string; active: boolean; waiverText: string; missing: string[] }[];
  /** A team's coach can send each family its own link. */
  familyLinks: boolean;
  amountPaidCents: number;
  amountRefundedCents: number;
  /** 'Canceled on ...; refund of $x requested' for a canceled one. */
  canceledText: string | null;
  phase: ChangePhase;
  changesUntil: string;
  reason: string;
  canCancel: boolean;
  refundNowCents: number;
  refundNowPercent: number;
  tierDeadlines: { percent: number; until: string }[];
  version: number;
  /** Cheaper packages this registration can move to, and what each gives back. */
  /** A family's athletes whose package leaves a choice of days, each with its days now (open phase only). */
  familyDays?: { position: number; name: string; dayCount: number; days: { id: number; label: string; attended: boolean }[] }[];
  downgrades: { code: string; label: string; priceCents: number; refundCents: number; dayCount: number; everyDay: boolean }[];
  /** A change that costs money and waits for its payment: the other changes are refused meanwhile. */
  pending: PendingChange | null;
  /** A deposit plan with a balance still owed (src/registrations/changes/balance.ts). */
  balance?: BalanceView | null;
  /** Siblings registered together: each athlete's package, days and price, and the sibling discount (null otherwise). */
  family?: FamilyLineView[] | null;
}

/** The change waiting for its payment: what it is, its amount, and its own page. */
function PendingSection({ pending }: { pending: PendingChange }) {
  return (
    <section className="card registration-section" aria-labelledby="manage-pending" data-testid="manage-pending">
      <h2 id="manage-pending">{CHANGE_TEXT.pendingHeading}</h2>
      <p>{pendingLine(pending)}</p>
      <p className="muted">{CHANGE_TEXT.pendingBlocks}</p>
      <a className="btn btn-primary" href={pending.href}>{CHANGE_TEXT.pendingLink}</a>
    </section>
  );
}

/** Moving to a cheaper package: the refund is named on each choice, before anything changes. */
function DowngradeForm({ view, form }: { view: ManageView; form: FormState }) {
  return (
    <section className="card registration-section" aria-labelledby="manage-package">
      <h2 id="manage-package">Change to a smaller package</h2>
      <p className="muted">{`You can do this ${view.changesUntil}. The difference goes back to your card.`}</p>
      <Form action={`${view.base}/package`} label="Change to a smaller package">
        <FormErrors errors={form.errors} focus />
        <input type="hidden" name="version" value={String(view.version)} />
        <PackageAndDays
          moves={view.downgrades.map((d) => ({ ...d, line: `${d.label} (${formatPrice(d.priceCents)}): you get back ${formatPrice(d.refundCents)}` }))}
          days={view.days}
          form={form}
          idPrefix="manage-package"
        />
        <SubmitButton className="btn btn-secondary">Change Package</SubmitButton>
      </Form>
    </section>
  );
}

/** Changes that cost money have pages of their own (routes/manageUpgrade.tsx, routes/manageAthletes.tsx): a bigger package, or more athletes. */
function PaidChangeLinks({ view }: { view: ManageView }) {
  const team = view.kind === "team";
  return (
    <section className="card registration-section" aria-labelledby="manage-more">
      <h2 id="manage-more">{team ? "Add athletes" : "Change to a bigger package"}</h2>
      <p className="muted">
        {team
          ? `Add athletes to the team at the team price, paid by card, ${view.changesUntil}.`
          : `Add days by moving to a bigger package: you pay the difference by card, ${view.changesUntil}.`}
      </p>
      <a className="btn btn-secondary" href={`${view.base}/${team ? "athletes" : "upgrade"}`}>{team ? "Add athletes…" : "Choose a bigger package…"}</a>
    </section>
  );
}

/** A form per athlete of a family: that athlete's days, as many as its own package has. */
function FamilyDaysForms({ view }: { view: ManageView }) {
  return (
    <section className="card registration-section" aria-labelledby="manage-family-days">
      <h2 id="manage-family-days">Change an athlete's days</h2>
      {(view.familyDays ?? []).map((a) => (
        <Form key={a.position} action={`${view.base}/athlete-days`} label={`Change ${a.name}'s days`}>
          <input type="hidden" name="version" value={String(view.version)} />
          <input type="hidden" name="athlete" value={a.position} />
          <fieldset className="fieldset">
            <legend>{`${a.name}: tick ${a.dayCount === 1 ? "1 day" : `${a.dayCount} days`} for their package`}</legend>
            <div className="check-grid">
              {a.days.map((d, i) => (
                <label className="check" key={d.id}>
                  <input type="checkbox" name={`day${i + 1}`} defaultChecked={d.attended} />
                  <span>{d.label}</span>
                </label>
              ))}
            </div>
          </fieldset>
          <SubmitButton>
            Save days<span className="visually-hidden">{` for ${a.name}`}</span>
          </SubmitButton>
        </Form>
      ))}
    </section>
  );
}

function Facts({ view }: { view: ManageView }) {
  const owed: [string, string][] = view.balance ? [["Balance due", `${formatPrice(view.balance.owedCents)} on ${view.balance.dueText}`]] : [];
  const rows: [string, string][] = [
    ["Reference", view.reference],
    ["Status", view.statusLabel],
    ["Event", view.eventTitle],
    ["Dates", view.dateText],
    ["Daily hours", view.hours],
    ["Location", view.location],
    ...(view.family
      ? familyFactRows(view.family)
      : ([
          ["Package", view.packageLabel],
          ["Days", view.days.filter((d) => d.attended).map((d) => d.label).join("; ")],
        ] as [string, string][])),
    ["Amount paid", formatPrice(view.amountPaidCents)],
    ...owed,
  ];
  if (view.amountRefundedCents > 0) rows.push(["Refunded", formatPrice(view.amountRefundedCents)]);
  return <SummaryRows rows={rows} className="manage-facts" />;
}

/** One athlete per card: a name with its badge, then each fact on its own line; a team's count above the list. */
function Athletes({ view }: { view: ManageView }) {
  const team = view.kind === "team";
  const active = view.athletes.filter((a) => a.active);
  const complete = active.filter((a) => a.missing.length === 0).length;
  return (
    <section className="card registration-section" aria-labelledby="manage-athletes">
      <h2 id="manage-athletes">{team ? "Roster" : "Athlete"}</h2>
      {view.familyLinks ? <p className="muted">Send each family its own link: they can correct their athlete's details, add medical notes and sign the waiver.</p> : null}
      {team ? <p className="roster-count" data-testid="roster-count"><strong>{completeCount(complete, active.length)}</strong></p> : null}
      <ul className="manage-athletes">
        {view.athletes.map((a, i) => (
          <li key={i} className={`roster-athlete${a.active ? "" : " is-withdrawn"}`}>
            <div className="roster-head">
              <h3 className="roster-name">{a.name}</h3>
              {(team || a.missing.length > 0) && a.active ? <span className={`roster-badge ${a.missing.length > 0 ? "manage-missing" : "manage-complete"}`}>{missingBadge(a.missing)}</span> : null}
            </div>
            <ul className="roster-facts">
              {a.detail.map((fact) => <li key={fact}>{fact}</li>)}
              {a.shirtSize ? <li>Shirt: {a.shirtSize}</li> : null}
              <li>Emergency contact: {a.emergency}</li>
              {a.guardian ? <li>Parent or guardian: {a.guardian}</li> : null}
              {!team && a.missing.length > 0 ? <li>Parent or guardian: not given yet. Add their name, e-mail and phone under "Change the details" below, or tick "The athlete is 18 or older".</li> : null}
              {a.medical ? <li>Medical notes: {a.medical}</li> : null}
              {team && a.active ? <li>{a.waiverText}</li> : null}
            </ul>
            {view.familyLinks && a.active ? (
              <Form action={`${view.base}/family`} label={`Send ${a.name}'s family their link`}>
                <input type="hidden" name="athlete" value={String(a.position)} />
                <button type="submit" className="btn btn-secondary">
                  Send family link again<span className="visually-hidden">{` for ${a.name}`}</span>
                </button>
              </Form>
            ) : null}
          </li>
        ))}
      </ul>
    </section>
  );
}

/** The individual's change form: every detail of registration's step 1 (not the package), or only the medical notes after the freeze. */
function ChangeForm({ view, form }: { view: ManageView; form: FormState }) {
  const f = (name: string) => stateField(form, name);
  const dayError = form.errors.days;
  return (
    <section className="card registration-section" aria-labelledby="manage-change">
      <h2 id="manage-change">Change the details</h2>
      <p className="muted">
        {view.phase === "open" ? `You can change these ${view.changesUntil}.` : view.reason}
      </p>
      <Form action={`${view.base}/details`} label="Change the registration's details">
        <FormErrors errors={form.errors} focus />
        <input type="hidden" name="version" value={String(view.version)} />
        {view.phase === "open" ? (
          <>
            <div className="form-grid">
              <Field {...f("firstName")} label="First Name" required autoComplete="given-name" />
              <Field {...f("lastName")} label="Last Name" required autoComplete="family-name" />
              <Field {...f("email")} label="Email" type="email" required autoComplete="email" />
              <Field {...f("phone")} label="Phone Number" type="tel" required autoComplete="tel" />
              <Field {...f("grade")} label="Grade" required />
              <Field {...f("gender")} label="Gender" required options={GENDERS} placeholder="Select gender" />
              <Field {...f("schoolName")} label="School Name" required />
              <Field {...f("clubName")} label="Club Name" />
              <Field {...f("tShirtSize")} label="T-Shirt Size" options={SHIRT_SIZES} placeholder="Select size" />
              <Field {...f("emergencyContactName")} label="Emergency Contact Name" required />
              <Field {...f("emergencyContactPhone")} label="Emergency Contact Phone" type="tel" required />
            </div>
            <GuardianFields field={f} adult={form.values.adult === "on"} boxed={false} />
            {view.everyDay ? null : (
              <WithFieldId name="days">{(id) => (
              <fieldset className="fieldset" id={id} aria-describedby={dayError ? "manage-days-error" : undefined}>
                <legend>Days (tick {view.dayCount === 1 ? "1 day" : `${view.dayCount} days`} for your package)</legend>
                <div className="check-grid">
                  {view.days.map((d, i) => (
                    <label className="check" key={d.id}>
                      <input type="checkbox" name={`day${i + 1}`} defaultChecked={form.values[`day${i + 1}`] === "on"} />
                      <span>{d.label}</span>
                    </label>
                  ))}
                </div>
                {dayError ? <p className="field-error" id="manage-days-error">{dayError}</p> : null}
              </fieldset>
              )}</WithFieldId>
            )}
          </>
        ) : null}
        <Field {...f("specialRequirements")} label="Medical conditions, allergies or other needs (optional)" multiline={4} />
        <SubmitButton>Save Changes</SubmitButton>
      </Form>
    </section>
  );
}

function CancelSection({ view }: { view: ManageView }) {
  return (
    <section className="card registration-section" aria-labelledby="manage-cancel">
      <h2 id="manage-cancel">Cancel</h2>
      {view.refundNowPercent > 0 ? (
        <p>Canceling now gives back {formatPrice(view.refundNowCents)} ({view.refundNowPercent}% of what you paid).</p>
      ) : (
        <p>Canceling now gives no refund, but frees the place for someone else.</p>
      )}
      <ul className="cancellation-deadlines">
        {view.tierDeadlines.map((t) => (
          <li key={t.percent}>{t.percent === 100 ? "Full refund" : `${t.percent}% refund`} if you cancel {t.until}</li>
        ))}
      </ul>
      <a className="btn btn-secondary" href={`${view.base}/cancel`}>Cancel this registration…</a>
    </section>
  );
}

/** /my-registration/{token}: the registration as it stands, what can change and until when. */
export function ManagePage({ view, form, packageForm, message }: { view: ManageView; form?: FormState; packageForm?: FormState; message?: string }) {
  return (
    <section className="section registration-page">
      <div className="container registration-container">
        <header className="registration-header">
          <p className="eyebrow">Your registration</p>
          <h1>{view.title}</h1>
          <p className="lead">{view.eventTitle} · {view.dateText} · {view.location}</p>
        </header>
        {message ? <p className="card registration-section manage-message" role="alert">{message}</p> : null}
        <section className="card registration-section" aria-labelledby="manage-summary">
          <h2 id="manage-summary">Registration</h2>
          <Facts view={view} />
          {view.canceledText ? <p>{view.canceledText}</p> : null}
          <p>
            <a className="link-target" href={`${view.base}/calendar.ics`} download={`${view.reference}.ics`}>Add the camp days to your calendar (.ics)</a>
          </p>
          <p className="muted">Your receipt is the confirmation e-mail; Stripe also e-mails a card receipt when your bank asks for one.</p>
        </section>
        {view.balance ? <BalanceSection balance={view.balance} /> : null}
        {view.pending ? <PendingSection pending={view.pending} /> : null}
        <Athletes view={view} />
        {view.phase !== "closed" && view.kind === "individual" && form ? <ChangeForm view={view} form={form} /> : null}
        {view.phase === "open" && view.familyDays?.length ? <FamilyDaysForms view={view} /> : null}
        {view.phase === "open" && view.downgrades.length > 0 ? <DowngradeForm view={view} form={packageForm ?? { values: {}, errors: {} }} /> : null}
        {/* A family's packages change by writing to us: each athlete has its own package and price. */}
        {view.phase === "open" && !view.family ? <PaidChangeLinks view={view} /> : null}
        {view.phase === "closed" ? <p className="card registration-section">{`Nothing can change any more: ${view.reason}`}</p> : null}
        {view.kind === "team" && view.phase !== "closed" ? (
          <p className="card registration-section">{`Each athlete's family can change their athlete's details ${view.changesUntil} through the link you send them; after that only the medical notes.`}</p>
        ) : null}
        {view.canCancel ? <CancelSection view={view} /> : null}
        <section className="card registration-section" aria-labelledby="manage-policy">
          <h2 id="manage-policy">Camp refund and cancellation policy</h2>
          <CancellationPolicyList />
          <p>
            <a href={CAMP_POLICY_PATHS.cancellation}>The full policy</a> · <a href={CAMP_POLICY_PATHS.waiver}>Liability waiver</a> ·{" "}
            <a href={CAMP_POLICY_PATHS.medicalRelease}>Medical release</a>
          </p>
        </section>
      </div>
    </section>
  );
}

/** An unknown, malformed or revoked link: one page, whatever the reason. */
export function ManageLinkNotFound() {
  return (
    <section className="page-center">
      <p className="eyebrow">Registration</p>
      <h1 className="display">Link Not Found</h1>
      <p className="lead">This registration link does not work. Ask for a new one with "Lost your confirmation?" on the event's page.</p>
      <a className="btn btn-primary" href="/events">See the Events</a>
    </section>
  );
}

/** What the cancel page shows: the refund first, then the confirm buttons (a coach: the team, or one athlete). */
export interface CancelView {
  base: string;
  title: string;
  eventTitle: string;
  kind: "individual" | "team";
  version: number;
  whole: { refundCents: number; percent: number; partCents: number };
  /** A team's athletes that can be withdrawn one by one (empty: the team is at its minimum). */
  athletes: { position: number; name: string }[];
  athlete: { refundCents: number; partCents: number };
  teamMinimum: number;
  /** Siblings: each athlete can be canceled on its own (its refund in its label) while another stays. */
  family?: boolean;
}

const refundWords = (cents: number, percent: number, partCents: number) =>
  cents > 0 ? `You get back ${formatPrice(cents)} (${percent}% of ${formatPrice(partCents)}).` : `You get no refund (canceled this close to the camp), but the place is freed for someone else.`;

/** /my-registration/{token}/cancel: the refund the policy gives now, before anything is canceled. */
export function CancelPage({ view, message }: { view: CancelView; message?: string }) {
  return (
    <section className="section registration-page">
      <div className="container registration-container">
        <p className="back-link">
          <a href={view.base}><span aria-hidden="true">←&nbsp;</span>Back to the registration</a>
        </p>
        <header className="registration-header">
          <p className="eyebrow">Cancel</p>
          <h1>{`Cancel ${view.title}'s registration?`}</h1>
          <p className="lead">{view.eventTitle}</p>
        </header>
        {message ? <p className="card registration-section manage-message" role="alert">{message}</p> : null}
        <section className="card registration-section" aria-labelledby="cancel-all">
          <h2 id="cancel-all">{view.kind === "team" ? "Cancel the whole team" : "Cancel the registration"}</h2>
          <p className="cancel-refund">{refundWords(view.whole.refundCents, view.whole.percent, view.whole.partCents)}</p>
          <p>Canceling cannot be undone: the {view.kind === "team" ? "places go" : "place goes"} to someone else at once. We e-mail you a receipt.</p>
          <Form action={`${view.base}/cancel`} label="Confirm the cancellation">
            <input type="hidden" name="version" value={String(view.version)} />
            <input type="hidden" name="scope" value="all" />
            <SubmitButton className="btn btn-primary">{view.kind === "team" ? "Cancel the Whole Team" : "Cancel Registration"}</SubmitButton>
          </Form>
        </section>
        {view.kind === "team" || (view.family && view.athletes.length > 0) ? (
          <section className="card registration-section" aria-labelledby="cancel-one">
            <h2 id="cancel-one">Cancel one athlete</h2>
            {view.athletes.length > 0 ? (
              <>
                <p className="cancel-refund">{view.family ? `Each athlete's refund is its share of what you paid, under the policy (${view.whole.percent}% now).` : refundWords(view.athlete.refundCents, view.whole.percent, view.athlete.partCents)}</p>
                <Form action={`${view.base}/cancel`} label="Cancel one athlete">
                  <input type="hidden" name="version" value={String(view.version)} />
                  <input type="hidden" name="scope" value="athlete" />
                  <Field name="athlete" label="Athlete" required options={view.athletes.map((a) => ({ value: String(a.position), label: a.name }))} placeholder="Choose an athlete" />
                  <SubmitButton className="btn btn-secondary">Cancel This Athlete</SubmitButton>
                </Form>
              </>
            ) : (
              <p>{`A team needs at least ${view.teamMinimum} athletes, so no single athlete can be canceled; cancel the whole team instead.`}</p>
            )}
          </section>
        ) : null}
        <section className="card registration-section" aria-labelledby="cancel-policy">
          <h2 id="cancel-policy">Camp refund and cancellation policy</h2>
          <CancellationPolicyList />
        </section>
      </div>
    </section>
  );
}
