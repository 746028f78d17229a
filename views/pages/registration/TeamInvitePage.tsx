import type { FormState } from "../../../src/shared/forms.ts";
import { SHIRT_SIZES } from "../../../src/shared/registrations/rules.ts";
import { CAMP_POLICY_PATHS } from "../../../src/shared/registrations/agreements.ts";
import { INVITE_TEXT } from "../../../src/shared/registrations/invites.ts";
import { Field, Form, FormErrors, stateField, SubmitButton, WithFieldId } from "../../../components/Form.tsx";

/** What a family sees through a team's invite link: the team, the event, the first names already in, never a contact. */
export interface TeamInviteView {
  action: string;
  teamName: string;
  coachName: string;
  eventTitle: string;
  dateText: string;
  location: string;
  firstNames: string[];
  closed: boolean;
  /** This browser saved a row before: the form holds it and corrects it. */
  own: boolean;
  /** The signature this browser's row already has. */
  signed: { signedName: string; relationship: string } | null;
  relationships: readonly string[];
  waiverVersion: string;
}

/** /team-invite/{token}: one family fills in its athlete's row and signs the waiver; a plain form, no JavaScript needed. */
export function TeamInvitePage({ view, form, message }: { view: TeamInviteView; form: FormState; message?: string }) {
  const row = (f: string) => stateField(form, `athlete.${f}`);
  const f = (name: string) => stateField(form, name);
  return (
    <section className="section registration-page">
      <div className="container registration-container">
        <header className="registration-header">
          <p className="eyebrow">{view.eventTitle} · {view.dateText} · {view.location}</p>
          <h1>{INVITE_TEXT.title(view.teamName)}</h1>
          <p>{`${view.coachName} is registering the team and pays for it. Fill in your athlete's row below.`}</p>
        </header>
        {message ? <p className="card registration-section manage-message" role="alert">{message}</p> : null}
        <section className="card registration-section" aria-labelledby="invite-in">
          <h2 id="invite-in">{INVITE_TEXT.already}</h2>
          {view.firstNames.length === 0 ? <p className="muted">{INVITE_TEXT.noneYet}</p> : <ul className="invite-names" data-testid="invite-names">{view.firstNames.map((n, i) => <li key={i}>{n}</li>)}</ul>}
        </section>
        {view.closed ? (
          <p className="card registration-section">{INVITE_TEXT.closed}</p>
        ) : (
          <Form action={view.action} label="Your athlete's row">
            <FormErrors errors={form.errors} focus />
            <section className="card registration-section" aria-labelledby="invite-athlete">
              <h2 id="invite-athlete">Your athlete</h2>
              {view.own ? <p className="muted">{INVITE_TEXT.ownRow}</p> : null}
              <div className="form-grid">
                <Field {...row("firstName")} label="First Name" required autoComplete="off" />
                <Field {...row("lastName")} label="Last Name" required autoComplete="off" />
                <Field {...row("age")} label="Age" type="number" required min={1} max={99} />
                <Field {...row("email")} label="Athlete's Email" type="email" required hint="Your athlete's own link arrives here once the coach has paid." />
                <Field {...row("shirtSize")} label="Shirt Size" required options={SHIRT_SIZES} placeholder="Select size" />
                <Field {...row("parentName")} label="Parent or Guardian Name" required autoComplete="name" hint="The emergency contact at the camp" />
                <Field {...row("parentPhoneNumber")} label="Parent or Guardian Phone" type="tel" required autoComplete="tel" />
              </div>
            </section>
            <section className="card registration-section" aria-labelledby="invite-waiver">
              <h2 id="invite-waiver">Liability waiver and medical release</h2>
              {view.signed ? (
                <p>{`Signed by ${view.signed.signedName} (${view.signed.relationship}). It is recorded for your athlete when the coach pays.`}</p>
              ) : (
                <>
                  <p>
                    Please read the <a href={CAMP_POLICY_PATHS.waiver}>liability waiver</a> and the <a href={CAMP_POLICY_PATHS.medicalRelease}>medical release</a>{" "}
                    (version {view.waiverVersion}). An athlete under 18 needs a parent or legal guardian to sign. You may also sign later, through your athlete's own link.
                  </p>
                  <Field {...f("signedName")} label="Your full name" autoComplete="name" />
                  <Field {...f("relationship")} label="Relationship to the athlete" options={view.relationships} placeholder="Choose one" />
                  <div className={`registration-agreement${form.errors.agrees ? " field-invalid" : ""}`}>
                    <label className="check">
                      <WithFieldId name="agrees">{(id) => <input id={id} type="checkbox" name="agrees" defaultChecked={form.values.agrees === "on"} aria-invalid={form.errors.agrees ? true : undefined}
                        aria-describedby={form.errors.agrees ? "invite-agrees-error" : undefined} />}</WithFieldId>
                      <span>I have read and agree to the liability waiver and medical release for my athlete.</span>
                    </label>
                    {form.errors.agrees ? <p className="field-error" id="invite-agrees-error">{form.errors.agrees}</p> : null}
                  </div>
                </>
              )}
            </section>
            <SubmitButton>{view.own ? "Save Changes" : "Add to the team"}</SubmitButton>
          </Form>
        )}
      </div>
    </section>
  );
}
