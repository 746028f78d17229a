import * as z from "zod/mini";
import type { EventDetail } from "../../shared/events/types.ts";
import { validate, type FieldErrors, type Validation } from "../../shared/forms.ts";
import { multiLine, singleLine } from "../../shared/text.ts";
import { REGISTRATION_ERRORS, REGISTRATION_MESSAGES } from "../../shared/registrations/rules.ts";
import { ATHLETE_FIELDS, teamSchemaFor, teamValuesOf, type TeamAthlete } from "../../shared/registrations/teamRules.ts";
import type { Registration, RegistrationAthlete } from "../core/registration.ts";
import { teamOf } from "../core/tables/formHolds.ts";

/** A team athlete's family: who may sign for the athlete, the family's form and its checks, what a record still lacks. */

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
