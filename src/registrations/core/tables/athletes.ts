import type { Knex } from "knex";
import { countsPlaces, movePlaces } from "../../../events/places.ts";
import type { Guardian } from "../../../shared/registrations/rules.ts";
import type { TeamRegistration } from "../../../shared/registrations/teamRules.ts";
import type { Registration, RegistrationAthlete } from "../registration.ts";
import type { Row } from "./rows.ts";

/** After payment, what a registrant changes on a registration: its athletes (details, waivers, withdrawals, added ones), contact, guardian, days and package. */

/** A team athlete's row: the team form's fields (the parent is the emergency contact). */
export function teamAthleteRow(registrationId: number, position: number, a: TeamRegistration["athletes"][number]) {
  return {
    registration_id: registrationId,
    position,
    first_name: a.firstName,
    last_name: a.lastName,
    email: a.email,
    age: a.age,
    shirt_size: a.shirtSize,
    emergency_contact_name: a.parentName,
    emergency_contact_phone: a.parentPhoneNumber,
  };
}

/** A family signs the waiver and medical release for its athlete. */
export async function signWaiver(trx: Knex.Transaction, registrationId: number, position: number, w: { version: string; signedName: string; relationship: string }, now: Date): Promise<void> {
  await trx("registration_athletes").where({ registration_id: registrationId, position }).update({
    waiver_version: w.version,
    waiver_signed_name: w.signedName,
    waiver_signer_relationship: w.relationship,
    waiver_signed_at: now,
  });
}

/** A signature that no longer counts (the athlete who signed for themself is a minor now): the waiver is unsigned again. */
export async function voidWaiver(trx: Knex.Transaction, registrationId: number, position: number): Promise<void> {
  await trx("registration_athletes").where({ registration_id: registrationId, position }).update({ waiver_version: null, waiver_signed_name: null, waiver_signer_relationship: null, waiver_signed_at: null });
}

/** The details a registrant may correct on one athlete (never the package, places or amount). */
export type AthleteDetails = Omit<RegistrationAthlete, "position" | "withdrawnAt" | "waiver" | "family">;

export async function updateAthlete(trx: Knex.Transaction, registrationId: number, position: number, d: AthleteDetails): Promise<void> {
  await trx("registration_athletes").where({ registration_id: registrationId, position }).update({
    first_name: d.firstName,
    last_name: d.lastName,
    email: d.email,
    phone: d.phone,
    grade: d.grade,
    age: d.age,
    gender: d.gender,
    school_name: d.schoolName,
    club_name: d.clubName,
    shirt_size: d.shirtSize,
    emergency_contact_name: d.emergencyContactName,
    emergency_contact_phone: d.emergencyContactPhone,
    special_requirements: d.specialRequirements,
  });
}

/** An individual's contact is the athlete who registered: it follows the corrected details. */
export async function updateContact(trx: Knex.Transaction, id: number, c: Registration["contact"], now: Date): Promise<void> {
  await trx("registrations").where({ id }).update({ contact_first_name: c.firstName, contact_last_name: c.lastName, contact_email: c.email, contact_phone: c.phone, updated_at: now });
}

/** An individual's parent or guardian, as given or corrected on the manage page (null: the athlete is 18 or older): no longer missing. */
export async function updateGuardian(trx: Knex.Transaction, id: number, g: Guardian | null, now: Date): Promise<void> {
  await trx("registrations").where({ id }).update({ guardian_name: g?.name ?? null, guardian_email: g?.email ?? null, guardian_phone: g?.phone ?? null, guardian_missing: false, updated_at: now });
}

export async function replaceDays(trx: Knex.Transaction, registrationId: number, dayIds: number[]): Promise<void> {
  await trx("registration_days").where({ registration_id: registrationId }).delete();
  if (dayIds.length > 0) await trx("registration_days").insert(dayIds.map((dayId) => ({ registration_id: registrationId, event_day_id: dayId })));
}

/** One athlete leaves a team: marked withdrawn with the refund it gave, the team holds one place fewer, a new version. */
export async function withdrawAthlete(trx: Knex.Transaction, registrationId: number, position: number, refundCents: number, places: number, version: number, now: Date): Promise<void> {
  await trx("registration_athletes").where({ registration_id: registrationId, position }).update({ withdrawn_at: now, withdrawal_refund_cents: refundCents });
  const before = (await trx<Row>("registrations").where({ id: registrationId }).forUpdate().first("status", "places", "event_id"))!;
  await trx("registrations").where({ id: registrationId }).update({ places, version, updated_at: now });
  if (countsPlaces(String(before.status))) await movePlaces(trx, Number(before.event_id), places - Number(before.places));
}

/** Athletes added to a paid team: new rows after the last position, one place each, the amount and list price grown, a new version. */
export async function addTeamAthletes(trx: Knex.Transaction, r: Registration, athletes: TeamRegistration["athletes"], cents: number, now: Date): Promise<void> {
  const last = Math.max(0, ...r.athletes.map((a) => a.position));
  await trx("registration_athletes").insert(athletes.map((a, i) => teamAthleteRow(r.id, last + i + 1, a)));
  await trx("registrations").where({ id: r.id }).update({
    places: r.places + athletes.length,
    amount_cents: r.amountCents + cents,
    list_price_cents: r.listPriceCents + cents,
    version: r.version + 1,
    updated_at: now,
  });
  // The change that brought them stops counting as it is applied (moveChange): the places move onto the team.
  if (countsPlaces(r.status)) await movePlaces(trx, r.eventId, athletes.length);
}

/** A family's athlete attends other days (its own package's count): its row's day_ids. */
export async function setAthleteDays(trx: Knex.Transaction, registrationId: number, position: number, dayIds: number[]): Promise<void> {
  await trx("registration_athletes").where({ registration_id: registrationId, position }).update({ day_ids: dayIds.join(",") });
}
