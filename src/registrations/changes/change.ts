import { DomainError } from "../../errors.ts";
import { isFamily } from "../core/family.ts";
import { FAMILY_DAYS_TEXT } from "./familyDays.ts";
import { enqueueEmail } from "../../email/outbox.ts";
import type { EventDetail } from "../../shared/events/types.ts";
import type { IndividualRegistration } from "../../shared/registrations/rules.ts";
import type { Registration } from "../core/registration.ts";
import { replaceDays, updateAthlete, updateContact, updateGuardian, type AthleteDetails } from "../core/tables/athletes.ts";
import { findByReference, setVersion } from "../core/tables/registrations.ts";
import type { RegistrationDeps } from "../core/deps.ts";
import { registrationChangedEmail } from "./email.ts";
import { addresseeOf } from "../core/email.ts";
import { PERMIT, withRegistration } from "../core/withRegistration.ts";
import type { ChangePhase } from "../../shared/registrations/changePolicy.ts";

/** An individual registration as its form's data (the manage form starts from it and is checked by the same schema). */
export function individualOf(r: Registration): IndividualRegistration {
  const a = r.athletes[0]!;
  return {
    formSessionId: r.formSessionId,
    registrationType: r.packageCode as IndividualRegistration["registrationType"],
    dayIds: r.dayIds,
    firstName: a.firstName,
    lastName: a.lastName,
    email: a.email,
    phone: a.phone ?? r.contact.phone,
    grade: a.grade ?? "",
    gender: (a.gender ?? "Male") as IndividualRegistration["gender"],
    schoolName: a.schoolName ?? "",
    clubName: a.clubName ?? undefined,
    tShirtSize: (a.shirtSize ?? undefined) as IndividualRegistration["tShirtSize"],
    emergencyContactName: a.emergencyContactName,
    emergencyContactPhone: a.emergencyContactPhone,
    specialRequirements: a.specialRequirements ?? undefined,
    guardian: r.guardian,
    ...(r.guardianMissing ? { guardianMissing: true as const } : {}),
    agrees: true,
  };
}

/** What changed, in the words the e-mail uses; empty when nothing did. */
function changesBetween(before: IndividualRegistration, after: IndividualRegistration): string[] {
  const differs = (keys: (keyof IndividualRegistration)[]) => keys.some((k) => JSON.stringify(before[k] ?? null) !== JSON.stringify(after[k] ?? null));
  const what: string[] = [];
  if (differs(["firstName", "lastName", "email", "phone", "grade", "gender", "schoolName", "clubName"])) what.push("athlete details");
  if (differs(["tShirtSize"])) what.push("shirt size");
  if (differs(["emergencyContactName", "emergencyContactPhone"])) what.push("emergency contact");
  if (differs(["guardian", "guardianMissing"])) what.push("parent or guardian contact");
  if (differs(["specialRequirements"])) what.push("medical notes and special requirements");
  if (differs(["dayIds"])) what.push("days");
  return what;
}

function athleteDetails(d: IndividualRegistration): AthleteDetails {
  return {
    firstName: d.firstName,
    lastName: d.lastName,
    email: d.email,
    phone: d.phone,
    grade: d.grade,
    age: null,
    gender: d.gender,
    schoolName: d.schoolName,
    clubName: d.clubName ?? null,
    shirtSize: d.tShirtSize ?? null,
    emergencyContactName: d.emergencyContactName,
    emergencyContactPhone: d.emergencyContactPhone,
    specialRequirements: d.specialRequirements ?? null,
  };
}

export type ChangeOutcome = { status: "changed" | "unchanged"; registration: Registration };

/**
 * A registrant's change to an individual registration through its manage link. The form's data was checked with
 * registration's own schema; here, in one transaction that takes the aggregate's locks in their order (the event,
 * then the registration), the registration is read as it stands, the freeze date read under the event lock, and
 * a form shown for an older version (another tab changed it meanwhile) is refused. Before the freeze date every
 * detail and the days change; after it only the medical notes. Each change bumps the version and e-mails the contact.
 */
export async function changeIndividual(deps: RegistrationDeps, event: EventDetail, input: { reference: string; shownVersion: number; phase: ChangePhase; data: IndividualRegistration }): Promise<ChangeOutcome> {
  const need = { event, kind: "individual" as const, permit: PERMIT.phase(input.phase), shownVersion: input.shownVersion, noPendingChange: true };
  // An upgrade priced on this version waits for its payment: the registration stays as it was priced.
  const outcome = await withRegistration(deps, input.reference, need, async ({ trx, now, r, allowed }): Promise<ChangeOutcome> => {
    const before = individualOf(r);
    // After the freeze date the medical notes are the one thing taken from the form.
    const after: IndividualRegistration = allowed.phase === "open" ? input.data : { ...before, specialRequirements: input.data.specialRequirements };
    const what = changesBetween(before, after);
    if (what.length === 0) return { status: "unchanged", registration: r };
    if (what.includes("days") && isFamily(r)) throw new DomainError("conflict", FAMILY_DAYS_TEXT.eachAthlete);

    await updateAthlete(trx, r.id, 1, athleteDetails(after));
    await updateContact(trx, r.id, { firstName: after.firstName, lastName: after.lastName, email: after.email, phone: after.phone }, now);
    await updateGuardian(trx, r.id, after.guardian, now);
    if (what.includes("days")) await replaceDays(trx, r.id, after.dayIds);
    await setVersion(trx, r.id, r.version + 1, now);
    const changed = (await findByReference(trx, r.reference))!;
    await enqueueEmail(trx, registrationChangedEmail(deps.site, event, changed, what));
    // A changed address: the old one hears of it too, so a link in the wrong hands cannot move the registration quietly.
    if (addresseeOf(r).email.toLowerCase() !== addresseeOf(changed).email.toLowerCase()) {
      await enqueueEmail(trx, registrationChangedEmail(deps.site, event, { ...changed, contact: r.contact, guardian: r.guardian }, what));
    }
    return { status: "changed", registration: changed };
  });
  if (outcome.status === "changed") {
    deps.outbox.wake();
    deps.logger.info({ reference: input.reference }, "registration changed through its manage link");
  }
  return outcome;
}
