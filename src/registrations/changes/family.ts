import type { Knex } from "knex";
import * as z from "zod/mini";
import { enqueueEmail } from "../../email/outbox.ts";
import { DomainError } from "../../errors.ts";
import { deadlineText } from "../../shared/texts.ts";
import type { EventDetail } from "../../shared/events/types.ts";
import { validate, type FieldErrors, type Validation } from "../../shared/forms.ts";
import { multiLine, singleLine } from "../../shared/text.ts";
import { REGISTRATION_ERRORS, REGISTRATION_MESSAGES } from "../../shared/registrations/rules.ts";
import { ATHLETE_FIELDS, teamSchemaFor, teamValuesOf, type TeamAthlete } from "../../shared/registrations/teamRules.ts";
import type { Registration, RegistrationAthlete } from "../core/registration.ts";
import { signWaiver, updateAthlete, voidWaiver, type AthleteDetails } from "../core/tables/athletes.ts";
import { eventChangesFreezeAt } from "../core/tables/eventTerms.ts";
import { teamOf } from "../core/tables/formHolds.ts";
import { findByReference, setVersion } from "../core/tables/registrations.ts";
import * as changesRepo from "./repository.ts";
import type { RegistrationDeps } from "../core/deps.ts";
import { AGREEMENTS_VERSION } from "../../shared/registrations/agreements.ts";
import { familyLinkEmail, registrationChangedEmail, type FamilyDue } from "./email.ts";
import { issueManageLink, manageUrl } from "./links.ts";
import { permissions } from "../core/permissions.ts";
import { PERMIT, withRegistration } from "../core/withRegistration.ts";
import type { ChangePhase } from "../../shared/registrations/changePolicy.ts";

/** Who may sign for an athlete; an athlete under 18 needs a parent or guardian. */
export const SIGNER_RELATIONSHIPS = ["Parent", "Legal guardian", "Athlete (18 or older)"] as const;
export const ADULT_AGE = 18;
const ATHLETE_SIGNS: (typeof SIGNER_RELATIONSHIPS)[number] = "Athlete (18 or older)";

/** Whether a signer may sign for an athlete of this age: the athlete only at 18 or older (an unknown age is a minor's). */
export function maySign(relationship: string, age: number | null): boolean {
  return relationship !== ATHLETE_SIGNS || (age !== null && age >= ADULT_AGE);
}

export const FAMILY_TEXT = {
  linkSent: (name: string) => `We've e-mailed ${name}'s family their own link.`,
  signed: "Thank you: the waiver and medical release are signed.",
  minorSigner: "An athlete under 18 needs a parent or legal guardian to sign.",
  agree: "Please tick the box to agree to the liability waiver and medical release",
  alreadySigned: (by: string) => `The waiver and medical release are already signed (by ${by}).`,
  ownSignatureVoided: (first: string) =>
    `${first} is under 18 now, so ${first}'s own signature no longer counts: a parent or legal guardian must sign the waiver and medical release.`,
} as const;

/** A team athlete's details as the team form's row (its field names and values), for the family's form. */
export function athleteRowOf(a: RegistrationAthlete): Record<string, string> {
  return {
    firstName: a.firstName,
    lastName: a.lastName,
    age: a.age === null ? "" : String(a.age),
    email: a.email,
    shirtSize: a.shirtSize ?? "",
    parentName: a.emergencyContactName,
    parentPhoneNumber: a.emergencyContactPhone,
  };
}

/** What an individual registered by a request of the spec's shape still lacks (the roster's `missing` says the same). */
export const GUARDIAN_MISSING = "parent or guardian contact";

/** What a team athlete's record still lacks: the waiver, for a minor (team rows are complete by the form's rule). */
export function missingFor(a: RegistrationAthlete): string[] {
  return a.waiver === null && (a.age === null || a.age < ADULT_AGE) ? ["waiver and medical release"] : [];
}

/** What a family's e-mail asks of it and until when: the event's freeze date (read in the caller's transaction). */
export async function familyDue(conn: Knex.Transaction, event: EventDetail, athlete: RegistrationAthlete, now: Date): Promise<FamilyDue> {
  const { freezeAt } = permissions("paid", event, await eventChangesFreezeAt(conn, event.id), now);
  return { until: deadlineText(freezeAt, event.timeZone), missing: missingFor(athlete), minor: athlete.age === null || athlete.age < ADULT_AGE };
}

/** The claim (a `registration_reminders` row) that a team athlete's family got its link at payment. */
export const FAMILY_LINK_AT_PAYMENT = "family_link_at_payment";

/**
 * At payment, in the transaction that marks a team paid (the caller holds the registration's lock): each athlete's
 * family gets its own link e-mail, to the athlete's address on the roster. Once per athlete, whatever calls it again
 * (a retried settlement, another instance, an operator's acceptance): each e-mail is claimed by a row under the
 * reminders' unique index, read and written under that lock. Returns how many were queued.
 */
export async function queueFamilyLinks(trx: Knex.Transaction, deps: Pick<RegistrationDeps, "site" | "publicUrl">, event: EventDetail, r: Registration, now: Date): Promise<number> {
  if (r.kind !== "team") return 0;
  const claimed = new Set(await changesRepo.claimedReminderPositions(trx, r.id, FAMILY_LINK_AT_PAYMENT));
  let queued = 0;
  for (const athlete of r.athletes.filter((a) => a.withdrawnAt === null && !claimed.has(a.position))) {
    await changesRepo.claimReminder(trx, r.id, athlete.position, FAMILY_LINK_AT_PAYMENT, now);
    const token = await issueManageLink(trx, r.id, "family", now, athlete.position);
    await enqueueEmail(trx, familyLinkEmail(deps.site, event, r, athlete, manageUrl(deps.publicUrl, token), await familyDue(trx, event, athlete, now)));
    queued += 1;
  }
  return queued;
}

const medicalSchema = z.object({
  specialRequirements: z.optional(multiLine().check(z.maxLength(2000, REGISTRATION_ERRORS.tooLong(2000)))),
});

/**
 * The family's details form (fields `athlete[firstName]`...), checked by the team form's own schema: the whole team as
 * stored with this athlete's row replaced by the form's, so the messages are the team form's ('Please enter a valid
 * email address for ...'). Errors come back under the form's names (`athlete.email`).
 */
export function validateFamilyForm(event: EventDetail, r: Registration, position: number, body: Record<string, unknown>): Validation<{ athlete: TeamAthlete; specialRequirements: string | null }> {
  const index = r.athletes.findIndex((a) => a.position === position);
  const values = teamValuesOf(teamOf(r));
  const posted = (body.athlete && typeof body.athlete === "object" ? body.athlete : {}) as Record<string, unknown>;
  const row = Object.fromEntries(ATHLETE_FIELDS.map((f) => [f, typeof posted[f] === "string" ? (posted[f]).trim() : ""])) as (typeof values.athletes)[number];
  values.athletes[index] = row;
  const errors: FieldErrors = {};
  // A blank field would make the team form leave the row out; here every field stays required.
  for (const f of ATHLETE_FIELDS) if (row[f] === "") errors[`athlete.${f}`] = REGISTRATION_MESSAGES.required;
  const team = validate(teamSchemaFor(event.ageLimits), values);
  const prefix = `athletes.${index}.`;
  if (!team.ok) for (const [k, v] of Object.entries(team.errors)) if (k.startsWith(prefix)) errors[`athlete.${k.slice(prefix.length)}`] ??= v;
  const medical = validate(medicalSchema, { specialRequirements: typeof body.specialRequirements === "string" ? body.specialRequirements : undefined });
  if (!medical.ok) Object.assign(errors, medical.errors);
  if (Object.keys(errors).length > 0 || !team.ok || !medical.ok) return { ok: false, errors, message: Object.values(errors)[0] ?? "Invalid input" };
  return { ok: true, data: { athlete: team.data.athletes[index]!, specialRequirements: medical.data.specialRequirements?.trim() || null } };
}

export const waiverSchema = z.object({
  signedName: singleLine(REGISTRATION_MESSAGES.required).check(z.minLength(3, REGISTRATION_MESSAGES.required), z.maxLength(160, REGISTRATION_ERRORS.tooLong(160))),
  relationship: z.enum(SIGNER_RELATIONSHIPS, REGISTRATION_MESSAGES.required),
  agrees: z.literal("on", FAMILY_TEXT.agree),
});

/** The coach sends (again) one athlete's family a link that opens only that athlete (to the athlete's e-mail on the roster). */
export async function sendFamilyLink(deps: RegistrationDeps, event: EventDetail, reference: string, position: number): Promise<RegistrationAthlete> {
  const athlete = await withRegistration(deps, reference, { event, kind: "team", athletePosition: position, permit: PERMIT.active }, async ({ trx, now, r, athlete }) => {
    const token = await issueManageLink(trx, r.id, "family", now, position);
    await enqueueEmail(trx, familyLinkEmail(deps.site, event, r, athlete, manageUrl(deps.publicUrl, token), await familyDue(trx, event, athlete, now)));
    return athlete;
  });
  deps.outbox.wake();
  return athlete;
}

/** A family corrects its athlete: before the freeze date every field of the team form's row and the medical notes, after it the medical notes. */
export async function changeTeamAthlete(
  deps: RegistrationDeps,
  event: EventDetail,
  input: { reference: string; position: number; shownVersion: number; phase: ChangePhase; athlete: TeamAthlete; specialRequirements: string | null },
): Promise<"changed" | "unchanged" | "waiverVoided"> {
  const need = { event, kind: "team" as const, athletePosition: input.position, permit: PERMIT.phase(input.phase), shownVersion: input.shownVersion };
  const outcome = await withRegistration(deps, input.reference, need, async ({ trx, now, r, athlete, allowed }) => {
    const a = input.athlete;
    const next: AthleteDetails =
      allowed.phase === "open"
        ? { ...athlete, firstName: a.firstName, lastName: a.lastName, email: a.email, age: a.age, shirtSize: a.shirtSize, emergencyContactName: a.parentName, emergencyContactPhone: a.parentPhoneNumber, specialRequirements: input.specialRequirements }
        : { ...athlete, specialRequirements: input.specialRequirements };
    const what: string[] = [];
    const differs = (keys: (keyof AthleteDetails)[]) => keys.some((k) => (next[k] ?? null) !== (athlete[k] ?? null));
    if (differs(["firstName", "lastName", "email", "age"])) what.push("athlete details");
    if (differs(["shirtSize"])) what.push("shirt size");
    if (differs(["emergencyContactName", "emergencyContactPhone"])) what.push("parent's contact");
    if (differs(["specialRequirements"])) what.push("medical notes and special requirements");
    if (what.length === 0) return "unchanged" as const;
    // Who may sign is decided again with the new age: an athlete who is a minor now cannot have signed for themself.
    const voided = athlete.waiver !== null && !maySign(athlete.waiver.relationship, next.age);
    await updateAthlete(trx, r.id, athlete.position, next);
    if (voided) await voidWaiver(trx, r.id, athlete.position);
    if (voided) what.push("the athlete's own signature of the waiver voided (under 18)");
    await setVersion(trx, r.id, r.version + 1, now);
    const changed = (await findByReference(trx, r.reference))!;
    // The coach hears of it: the contact of the team's registration.
    await enqueueEmail(trx, registrationChangedEmail(deps.site, event, changed, [`${athlete.firstName} ${athlete.lastName}: ${what.join(", ")}`]));
    if (voided) {
      // The family is asked again, at the athlete's address as it now stands, for a parent's or guardian's signature.
      const asNow = changed.athletes.find((x) => x.position === athlete.position)!;
      const token = await issueManageLink(trx, r.id, "family", now, athlete.position);
      await enqueueEmail(trx, familyLinkEmail(deps.site, event, changed, asNow, manageUrl(deps.publicUrl, token), await familyDue(trx, event, asNow, now), true));
      return "waiverVoided" as const;
    }
    return "changed" as const;
  });
  if (outcome !== "unchanged") deps.outbox.wake();
  return outcome;
}

/** The family signs the current waiver and medical release for its athlete: the typed name, the relationship, when, the version. */
export async function signFamilyWaiver(deps: RegistrationDeps, event: EventDetail, input: { reference: string; position: number; signedName: string; relationship: (typeof SIGNER_RELATIONSHIPS)[number] }): Promise<void> {
  await withRegistration(deps, input.reference, { event, kind: "team", athletePosition: input.position, permit: PERMIT.active }, async ({ trx, now, r, athlete }) => {
    if (!maySign(input.relationship, athlete.age)) throw new DomainError("invalid", FAMILY_TEXT.minorSigner);
    // A second tab or a re-post does not replace the signature already given for this version.
    if (athlete.waiver?.version === AGREEMENTS_VERSION) throw new DomainError("conflict", FAMILY_TEXT.alreadySigned(athlete.waiver.signedName));
    await signWaiver(trx, r.id, athlete.position, { version: AGREEMENTS_VERSION, signedName: input.signedName, relationship: input.relationship }, now);
  });
}
