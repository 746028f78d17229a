import type { Knex } from "knex";
import { asStored } from "../../../db/rows.ts";
import { writeDeferred } from "../../../db/deferredWrites.ts";
import type { IndividualRegistration } from "../../../shared/registrations/rules.ts";
import { TEAM_PACKAGE, type TeamRegistration } from "../../../shared/registrations/teamRules.ts";
import { registrationOf, type FamilyAthlete, type Registration } from "../registration.ts";
import { teamAthleteRow } from "./athletes.ts";
import type { Holder } from "./holds.ts";
import type { Row } from "./rows.ts";

/** The holds the registration and team forms write: a new pending registration with its athletes and days, or the same one rewritten. */

/** What a pending individual registration holds: its package, price and the athlete's details. */
export interface IndividualHold {
  eventId: number;
  packageLabel: string;
  /** The list price: the package's, or a family's sum after the sibling discount. */
  priceCents: number;
  reservedUntil: Date;
  data: IndividualRegistration;
  /** Siblings: each athlete's own package and price, in the form's order (the first is the form's athlete). */
  family?: FamilyAthlete[];
}

function individualColumns(h: IndividualHold, now: Date) {
  return {
    places: 1 + (h.data.siblings?.length ?? 0),
    package_code: h.data.registrationType,
    package_label: h.packageLabel,
    list_price_cents: h.priceCents,
    amount_cents: h.priceCents,
    contact_first_name: h.data.firstName,
    contact_last_name: h.data.lastName,
    contact_email: h.data.email,
    contact_phone: h.data.phone,
    guardian_name: h.data.guardian?.name ?? null,
    guardian_email: h.data.guardian?.email ?? null,
    guardian_phone: h.data.guardian?.phone ?? null,
    guardian_missing: h.data.guardianMissing === true,
    reserved_until: h.reservedUntil,
    agreed_at: now,
    updated_at: now,
  };
}

/** Writes the athlete's row (a family's athletes' rows) and the days, or defers them to the hold's admission (writeDeferred); returns the rows as written. */
async function writeAthleteAndDays(trx: Knex.Transaction, registrationId: number, h: IndividualHold, replacing: boolean): Promise<Row[]> {
  const d = h.data;
  if (replacing) {
    await trx("registration_athletes").where({ registration_id: registrationId }).delete();
    await trx("registration_days").where({ registration_id: registrationId }).delete();
  }
  const athlete = {
    registration_id: registrationId,
    position: 1,
    first_name: d.firstName,
    last_name: d.lastName,
    email: d.email,
    phone: d.phone,
    grade: d.grade,
    gender: d.gender,
    school_name: d.schoolName,
    club_name: d.clubName ?? null,
    shirt_size: d.tShirtSize ?? null,
    emergency_contact_name: d.emergencyContactName,
    emergency_contact_phone: d.emergencyContactPhone,
    special_requirements: d.specialRequirements ?? null,
  };
  let rows: Row[] = [athlete];
  if (h.family) {
    // Siblings share the family's contact (the first athlete's e-mail and phone) and emergency contact.
    rows = [d, ...(d.siblings ?? [])].map((s, i) => ({
      ...athlete,
      position: i + 1,
      first_name: s.firstName,
      last_name: s.lastName,
      grade: s.grade,
      gender: s.gender,
      school_name: s.schoolName,
      club_name: s.clubName ?? null,
      shirt_size: s.tShirtSize ?? null,
      special_requirements: s.specialRequirements ?? null,
      ...familyColumns(h.family![i]!),
    }));
  }
  await writeDeferred(trx, trx("registration_athletes").insert(rows));
  if (h.data.dayIds.length > 0) {
    await writeDeferred(trx, trx("registration_days").insert(h.data.dayIds.map((dayId) => ({ registration_id: registrationId, event_day_id: dayId }))));
  }
  return rows;
}

function familyColumns(f: FamilyAthlete) {
  return { package_code: f.packageCode, package_label: f.packageLabel, list_price_cents: f.listPriceCents, sibling_discount_cents: f.siblingDiscountCents, day_ids: f.dayIds.join(",") };
}

/**
 * A new pending individual registration with its athlete and days (`h.data.dayIds` in the event's order), answered
 * as written: the hold does not read it back.
 */
export async function insertIndividual(trx: Knex.Transaction, reference: string, h: IndividualHold, holder: Holder, now: Date): Promise<Registration> {
  const row = asStored(trx, {
    reference,
    event_id: h.eventId,
    kind: "individual",
    form_session_id: h.data.formSessionId,
    created_at: now,
    holder_session: holder.session,
    holder_address: holder.address,
    version: 1,
    status: "pending_payment",
    ...individualColumns(h, now),
  });
  const [id] = await trx("registrations").insert(row);
  const registrationId = Number(id);
  const athletes = await writeAthleteAndDays(trx, registrationId, h, false);
  return registrationOf({ ...row, id: registrationId }, athletes, h.data.dayIds);
}

/**
 * The same form submitted again (Back, a changed package, a reload): the same row, held again with the new details.
 * Only for a row locked in this transaction and moved by the `hold` transition first; `version` is the row's version
 * after this change.
 */
export async function rewriteIndividual(trx: Knex.Transaction, id: number, h: IndividualHold, holder: Holder, version: number, now: Date): Promise<void> {
  await trx("registrations").where({ id }).update({ ...individualColumns(h, now), holder_session: holder.session, holder_address: holder.address, version });
  await writeAthleteAndDays(trx, id, h, true);
}

/** What a pending team registration holds: one place per athlete at the team price, every day of the event. */
export interface TeamHold {
  eventId: number;
  teamPriceCents: number;
  dayIds: number[];
  reservedUntil: Date;
  data: TeamRegistration;
}

function teamColumns(h: TeamHold, now: Date) {
  const list = h.teamPriceCents * h.data.athletes.length;
  return {
    team_name: h.data.coach.teamName,
    places: h.data.athletes.length,
    package_code: TEAM_PACKAGE.code,
    package_label: TEAM_PACKAGE.label,
    list_price_cents: list,
    amount_cents: list,
    contact_first_name: h.data.coach.firstName,
    contact_last_name: h.data.coach.lastName,
    contact_email: h.data.coach.email,
    contact_phone: h.data.coach.phone,
    reserved_until: h.reservedUntil,
    agreed_at: now,
    updated_at: now,
  };
}

/** Writes the athletes' rows (one statement) and the days, or defers them to the hold's admission (writeDeferred); returns the athletes' rows as written. */
async function writeTeamAthletesAndDays(trx: Knex.Transaction, registrationId: number, h: TeamHold, replacing: boolean): Promise<Row[]> {
  if (replacing) {
    await trx("registration_athletes").where({ registration_id: registrationId }).delete();
    await trx("registration_days").where({ registration_id: registrationId }).delete();
  }
  const athletes = h.data.athletes.map((a, i) => teamAthleteRow(registrationId, i + 1, a));
  await writeDeferred(trx, trx("registration_athletes").insert(athletes));
  if (h.dayIds.length > 0) await writeDeferred(trx, trx("registration_days").insert(h.dayIds.map((dayId) => ({ registration_id: registrationId, event_day_id: dayId }))));
  return athletes;
}

/** A new pending team registration with its athletes (one place each) and the event's days (in its order), answered as written. */
export async function insertTeam(trx: Knex.Transaction, reference: string, h: TeamHold, holder: Holder, now: Date): Promise<Registration> {
  const row = asStored(trx, {
    reference,
    event_id: h.eventId,
    kind: "team",
    form_session_id: h.data.formSessionId,
    created_at: now,
    holder_session: holder.session,
    holder_address: holder.address,
    version: 1,
    status: "pending_payment",
    ...teamColumns(h, now),
  });
  const [id] = await trx("registrations").insert(row);
  const athletes = await writeTeamAthletesAndDays(trx, Number(id), h, false);
  return registrationOf({ ...row, id: Number(id) }, athletes, h.dayIds);
}

/** The same team form submitted again (Back from the checkout, a double click): as rewriteIndividual, for a team. */
export async function rewriteTeam(trx: Knex.Transaction, id: number, h: TeamHold, holder: Holder, version: number, now: Date): Promise<void> {
  await trx("registrations").where({ id }).update({ ...teamColumns(h, now), holder_session: holder.session, holder_address: holder.address, version });
  await writeTeamAthletesAndDays(trx, id, h, true);
}

/** A stored team as the form's data (Back from the checkout shows it again). */
export function teamOf(r: Registration): TeamRegistration {
  return {
    formSessionId: r.formSessionId,
    coach: { ...r.contact, teamName: r.teamName },
    athletes: r.athletes.map((a) => ({
      firstName: a.firstName,
      lastName: a.lastName,
      age: a.age ?? 0,
      email: a.email,
      shirtSize: (a.shirtSize ?? "Small") as TeamRegistration["athletes"][number]["shirtSize"],
      parentName: a.emergencyContactName,
      parentPhoneNumber: a.emergencyContactPhone,
    })),
  };
}
