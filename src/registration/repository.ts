import type { Knex } from "knex";
import type { Db } from "../db/knex.ts";
import { toDate } from "../db/rows.ts";
import type { IndividualRegistration } from "./rules.ts";
import { TEAM_PACKAGE, type TeamRegistration } from "../teams/rules.ts";

/** The one module that queries the registration tables. */

type Conn = Db | Knex.Transaction;
type Row = Record<string, unknown>;

/**
 * A registration's life: pending_payment (holds its places until reserved_until) -> paid (free ones too);
 * pending_payment -> expired (the hold lapsed; the sweep cancels its PaymentIntent) or canceled (the payment
 * could not be set up); a payment that still succeeds on an expired or canceled one makes it paid when a
 * place is free, else refunded.
 */
export type RegistrationStatus = "pending_payment" | "paid" | "expired" | "canceled" | "refunded";
export type RegistrationKind = "individual" | "team";

export interface RegistrationAthlete {
  firstName: string;
  lastName: string;
  email: string;
  phone: string | null;
  grade: string | null;
  age: number | null;
  gender: string | null;
  schoolName: string | null;
  clubName: string | null;
  shirtSize: string | null;
  emergencyContactName: string;
  emergencyContactPhone: string;
  specialRequirements: string | null;
}

export interface Registration {
  id: number;
  reference: string;
  eventId: number;
  kind: RegistrationKind;
  teamName: string | null;
  status: RegistrationStatus;
  places: number;
  packageCode: string;
  packageLabel: string;
  listPriceCents: number;
  amountCents: number;
  amountPaidCents: number | null;
  contact: { firstName: string; lastName: string; email: string; phone: string };
  formSessionId: string;
  reservedUntil: Date | null;
  createdAt: Date;
  paidAt: Date | null;
  athletes: RegistrationAthlete[];
  /** event_days ids, in the event's day order. */
  dayIds: number[];
}

const str = (v: unknown) => (v === null || v === undefined ? null : String(v));

function mapAthlete(r: Row): RegistrationAthlete {
  return {
    firstName: String(r.first_name),
    lastName: String(r.last_name),
    email: String(r.email),
    phone: str(r.phone),
    grade: str(r.grade),
    age: r.age === null || r.age === undefined ? null : Number(r.age),
    gender: str(r.gender),
    schoolName: str(r.school_name),
    clubName: str(r.club_name),
    shirtSize: str(r.shirt_size),
    emergencyContactName: String(r.emergency_contact_name),
    emergencyContactPhone: String(r.emergency_contact_phone),
    specialRequirements: str(r.special_requirements),
  };
}

async function load(conn: Conn, row: Row | undefined): Promise<Registration | undefined> {
  if (!row) return undefined;
  const id = Number(row.id);
  const [athletes, days] = await Promise.all([
    conn("registration_athletes").where({ registration_id: id }).orderBy(["position", "id"]),
    conn("registration_days as rd").join("event_days as d", "d.id", "rd.event_day_id").where("rd.registration_id", id).orderBy(["d.sort_order", "d.id"]).select("d.id"),
  ]);
  return {
    id,
    reference: String(row.reference),
    eventId: Number(row.event_id),
    kind: String(row.kind) as RegistrationKind,
    teamName: str(row.team_name),
    status: String(row.status) as RegistrationStatus,
    places: Number(row.places),
    packageCode: String(row.package_code),
    packageLabel: String(row.package_label),
    listPriceCents: Number(row.list_price_cents),
    amountCents: Number(row.amount_cents),
    amountPaidCents: row.amount_paid_cents === null || row.amount_paid_cents === undefined ? null : Number(row.amount_paid_cents),
    contact: {
      firstName: String(row.contact_first_name),
      lastName: String(row.contact_last_name),
      email: String(row.contact_email),
      phone: String(row.contact_phone),
    },
    formSessionId: String(row.form_session_id),
    reservedUntil: toDate(row.reserved_until),
    createdAt: toDate(row.created_at)!,
    paidAt: toDate(row.paid_at),
    athletes: (athletes as Row[]).map(mapAthlete),
    dayIds: (days as Row[]).map((d) => Number(d.id)),
  };
}

export async function findByReference(conn: Conn, reference: string): Promise<Registration | undefined> {
  return load(conn, await conn("registrations").where({ reference }).first());
}

export async function findByFormSession(conn: Conn, formSessionId: string): Promise<Registration | undefined> {
  return load(conn, await conn("registrations").where({ form_session_id: formSessionId }).first());
}

/** What a pending individual registration holds: its package, price and the athlete's details. */
export interface IndividualHold {
  eventId: number;
  packageLabel: string;
  priceCents: number;
  reservedUntil: Date;
  data: IndividualRegistration;
}

function individualColumns(h: IndividualHold, now: Date) {
  return {
    status: "pending_payment",
    places: 1,
    package_code: h.data.registrationType,
    package_label: h.packageLabel,
    list_price_cents: h.priceCents,
    amount_cents: h.priceCents,
    contact_first_name: h.data.firstName,
    contact_last_name: h.data.lastName,
    contact_email: h.data.email,
    contact_phone: h.data.phone,
    reserved_until: h.reservedUntil,
    agreed_at: now,
    updated_at: now,
  };
}

async function writeAthleteAndDays(trx: Knex.Transaction, registrationId: number, h: IndividualHold): Promise<void> {
  const d = h.data;
  await trx("registration_athletes").where({ registration_id: registrationId }).delete();
  await trx("registration_days").where({ registration_id: registrationId }).delete();
  await trx("registration_athletes").insert({
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
  });
  if (h.data.dayIds.length > 0) {
    await trx("registration_days").insert(h.data.dayIds.map((dayId) => ({ registration_id: registrationId, event_day_id: dayId })));
  }
}

/** A new pending individual registration with its athlete and days. */
export async function insertIndividual(trx: Knex.Transaction, reference: string, h: IndividualHold, now: Date): Promise<number> {
  const [id] = await trx("registrations").insert({
    reference,
    event_id: h.eventId,
    kind: "individual",
    form_session_id: h.data.formSessionId,
    created_at: now,
    ...individualColumns(h, now),
  });
  const registrationId = Number(id);
  await writeAthleteAndDays(trx, registrationId, h);
  return registrationId;
}

/** The same form submitted again (Back, a changed package, a reload): the same row, held again with the new details. */
export async function updateIndividual(trx: Knex.Transaction, id: number, h: IndividualHold, now: Date): Promise<void> {
  await trx("registrations").where({ id }).whereNot({ status: "paid" }).update(individualColumns(h, now));
  await writeAthleteAndDays(trx, id, h);
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
    status: "pending_payment",
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

async function writeTeamAthletesAndDays(trx: Knex.Transaction, registrationId: number, h: TeamHold): Promise<void> {
  await trx("registration_athletes").where({ registration_id: registrationId }).delete();
  await trx("registration_days").where({ registration_id: registrationId }).delete();
  await trx("registration_athletes").insert(
    h.data.athletes.map((a, i) => ({
      registration_id: registrationId,
      position: i + 1,
      first_name: a.firstName,
      last_name: a.lastName,
      email: a.email,
      age: a.age,
      shirt_size: a.shirtSize,
      emergency_contact_name: a.parentName,
      emergency_contact_phone: a.parentPhoneNumber,
    })),
  );
  if (h.dayIds.length > 0) await trx("registration_days").insert(h.dayIds.map((dayId) => ({ registration_id: registrationId, event_day_id: dayId })));
}

/** A new pending team registration with its athletes (one place each) and the event's days. */
export async function insertTeam(trx: Knex.Transaction, reference: string, h: TeamHold, now: Date): Promise<number> {
  const [id] = await trx("registrations").insert({ reference, event_id: h.eventId, kind: "team", form_session_id: h.data.formSessionId, created_at: now, ...teamColumns(h, now) });
  await writeTeamAthletesAndDays(trx, Number(id), h);
  return Number(id);
}

/** The same team form submitted again (Back from the checkout, a double click): the same row, held again. */
export async function updateTeam(trx: Knex.Transaction, id: number, h: TeamHold, now: Date): Promise<void> {
  await trx("registrations").where({ id }).whereNot({ status: "paid" }).update(teamColumns(h, now));
  await writeTeamAthletesAndDays(trx, id, h);
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

/** Gives a hold's places back at once (the payment could not be set up). */
export async function releaseHold(conn: Conn, reference: string): Promise<void> {
  await conn("registrations").where({ reference, status: "pending_payment" }).update({ status: "canceled", reserved_until: null, updated_at: new Date() });
}

/** Marks paid once: true for the caller whose update found it unpaid. */
export async function markPaid(trx: Knex.Transaction, id: number, amountPaidCents: number, now: Date): Promise<boolean> {
  const changed = await trx("registrations")
    .where({ id })
    .whereIn("status", ["pending_payment", "expired", "canceled"])
    .update({ status: "paid", amount_paid_cents: amountPaidCents, paid_at: now, reserved_until: null, updated_at: now });
  return changed === 1;
}

export async function markRefunded(trx: Knex.Transaction, id: number, now: Date): Promise<void> {
  await trx("registrations").where({ id }).whereNot({ status: "paid" }).update({ status: "refunded", reserved_until: null, updated_at: now });
}

/** Pending registrations whose hold has lapsed, oldest first. */
export async function expiredHolds(conn: Conn, now: Date, limit: number): Promise<{ id: number; reference: string }[]> {
  const rows: Row[] = await conn("registrations").where("status", "pending_payment").andWhere("reserved_until", "<=", now).orderBy("reserved_until").limit(limit).select("id", "reference");
  return rows.map((r) => ({ id: Number(r.id), reference: String(r.reference) }));
}

/** Moves one lapsed hold to expired; false when another instance (or a payment) got there first. */
export async function markExpired(conn: Conn, id: number, now: Date): Promise<boolean> {
  const changed = await conn("registrations").where({ id, status: "pending_payment" }).andWhere("reserved_until", "<=", now).update({ status: "expired", updated_at: now });
  return changed === 1;
}
