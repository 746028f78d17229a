import type { FormState } from "../../../src/shared/forms.ts";
import { SHIRT_SIZES } from "../../../src/shared/registrations/rules.ts";
import { CAMP_POLICY_PATHS } from "../../../src/shared/registrations/agreements.ts";
import type { ChangePhase } from "../../../src/shared/registrations/changePolicy.ts";
import { Field, Form, FormErrors, stateField, SubmitButton, WithFieldId } from "../../../components/Form.tsx";
import { SummaryRows } from "../../components/SummaryRows.tsx";

/** A family's page: one athlete of a team, opened by the link the coach sent. */
export interface FamilyView {
  base: string;
  athleteName: string;
  teamName: string;
  coachName: string;
  eventTitle: string;
  dateText: string;
  hours: string;
  location: string;
  version: number;
  phase: ChangePhase;
  changesUntil: string;
  reason: string;
  waiver: { version: string; signedName: string; relationship: string; signedAt: string } | null;
  waiverVersion: string;
  minor: boolean;
  relationships: readonly string[];
}

/** After the freeze date, why only the medical notes change (the coach's reason also speaks of canceling, which a family cannot). */
function frozenText(view: Pick<FamilyView, "changesUntil">): string {
  return `Changes had to be made ${view.changesUntil}: only the medical notes can still change, so our staff know them at the camp. For anything else, ask your coach or write to us.`;
}

/** The athlete's row as stored, shown when it can no longer change. */
function StoredDetails({ row }: { row: Record<string, unknown> }) {
  const text = (k: string) => (typeof row[k] === "string" ? row[k] : "");
  const rows: [string, string][] = [
    ["Name", `${text("firstName")} ${text("lastName")}`],
    ["Age", text("age")],
    ["Email", text("email")],
    ["Shirt size", text("shirtSize")],
    ["Parent", `${text("parentName")}, ${text("parentPhoneNumber")}`],
  ];
  return <SummaryRows rows={rows} className="manage-facts family-stored" />;
}

function DetailsForm({ view, form }: { view: FamilyView; form: FormState }) {
  const row = (f: string) => stateField(form, `athlete.${f}`);
  return (
    <section className="card registration-section" aria-labelledby="family-details">
      <h2 id="family-details">{`${view.athleteName}'s details`}</h2>
      <p className="muted">{view.phase === "open" ? `You can change these ${view.changesUntil}.` : frozenText(view)}</p>
      <Form action={`${view.base}/details`} label="Change the athlete's details">
        <FormErrors errors={form.errors} focus />
        <input type="hidden" name="version" value={String(view.version)} />
        {view.phase === "open" ? (
          <div className="form-grid">
            <Field {...row("firstName")} label="First Name" required />
            <Field {...row("lastName")} label="Last Name" required />
            <Field {...row("age")} label="Age" type="number" required min={1} max={99} />
            <Field {...row("email")} label="Email" type="email" required />
            <Field {...row("shirtSize")} label="Shirt Size" required options={SHIRT_SIZES} placeholder="Select size" />
            <Field {...row("parentName")} label="Parent Name" required />
            <Field {...row("parentPhoneNumber")} label="Parent Phone Number" type="tel" required />
          </div>
        ) : (
          <StoredDetails row={(form.values.athlete ?? {}) as Record<string, unknown>} />
        )}
        <Field {...stateField(form, "specialRequirements")} label="Medical conditions, allergies or other needs (optional)" multiline={4} />
        <SubmitButton>Save Changes</SubmitButton>
      </Form>
    </section>
  );
}

function WaiverSection({ view, form }: { view: FamilyView; form: FormState }) {
  const f = (name: string) => stateField(form, name);
  return (
    <section className="card registration-section" aria-labelledby="family-waiver">
      <h2 id="family-waiver">Liability waiver and medical release</h2>
      {view.waiver ? (
        <>
          {/* A post from a second tab, refused: the signature that stands is shown below it. */}
          {Object.values(form.errors).length > 0 ? <p className="field-error" role="alert">{Object.values(form.errors).join(" ")}</p> : null}
          <p>{`Signed by ${view.waiver.signedName} (${view.waiver.relationship}) on ${view.waiver.signedAt}, version ${view.waiver.version}.`}</p>
        </>
      ) : (
        <>
          <p>
            Please read the <a href={CAMP_POLICY_PATHS.waiver}>liability waiver</a> and the <a href={CAMP_POLICY_PATHS.medicalRelease}>medical release</a>{" "}
            (version {view.waiverVersion}).{view.minor ? " An athlete under 18 needs a parent or legal guardian to sign." : ""}
          </p>
          <Form action={`${view.base}/waiver`} label="Sign the waiver and medical release">
            <FormErrors errors={form.errors} focus />
            <Field {...f("signedName")} label="Your full name" required autoComplete="name" />
            <Field {...f("relationship")} label="Relationship to the athlete" required options={view.relationships} placeholder="Choose one" />
            <div className={`registration-agreement${form.errors.agrees ? " field-invalid" : ""}`}>
              <label className="check">
                <WithFieldId name="agrees">{(id) => <input id={id} type="checkbox" name="agrees" defaultChecked={form.values.agrees === "on"} aria-invalid={form.errors.agrees ? true : undefined}
                  aria-describedby={form.errors.agrees ? "waiver-agrees-error" : undefined} />}</WithFieldId>
                <span>{`I have read and agree to the liability waiver and medical release for ${view.athleteName}.`}</span>
              </label>
              {form.errors.agrees ? <p className="field-error" id="waiver-agrees-error">{form.errors.agrees}</p> : null}
            </div>
            <SubmitButton>Sign</SubmitButton>
          </Form>
        </>
      )}
    </section>
  );
}

/** /my-registration/{token} opened by a family's link: one athlete of a team. */
export function FamilyPage({ view, details, waiver, message }: { view: FamilyView; details: FormState; waiver: FormState; message?: string }) {
  return (
    <section className="section registration-page">
      <div className="container registration-container">
        <header className="registration-header">
          <p className="eyebrow">{view.teamName}</p>
          <h1>{view.athleteName}</h1>
          <p className="lead">{view.eventTitle} · {view.dateText} · {view.hours} · {view.location}</p>
          <p>{`Registered and paid for by ${view.coachName}.`}</p>
        </header>
        {message ? <p className="card registration-section manage-message" role="alert">{message}</p> : null}
        {view.phase !== "closed" ? <DetailsForm view={view} form={details} /> : <p className="card registration-section">{`Nothing can change any more: ${view.reason}`}</p>}
        <WaiverSection view={view} form={waiver} />
      </div>
    </section>
  );
}
