import type { Knex } from "knex";
import type { Db } from "../../db/knex.ts";
import { asStored, toDate } from "../../db/rows.ts";
import type { Guardian, IndividualRegistration } from "../../shared/registrations/rules.ts";
import { TEAM_PACKAGE, type TeamRegistration } from "../../shared/registrations/teamRules.ts";
import { CHANGE_TRANSITIONS, REGISTRATION_TRANSITIONS, type ChangeStatus, type ChangeTransition, type RegistrationStatus, type RegistrationTransition } from "./states.ts";
import { toText } from "../../shared/toText.ts";
import { changeCountsPlaces, countsPlaces, lockPlacesCount, movePlaces } from "../../events/places.ts";

/**
 * The kernel's repository: the registration aggregate's types, the only writer of its registration, athlete and day
 * rows, the state moves (registrations and registration_changes), the locks in their order and the reads every part
 * needs. Each part's own tables are queried by its slice: booking/repository.ts (holds swept, the code applied),
 * changes/repository.ts (manage links, reminders, a change's row before payment), waitlist/repository.ts.
 */

type Conn = Db | Knex.Transaction;
type Row = Record<string, unknown>;

export type { RegistrationStatus };
export type RegistrationKind = "individual" | "team";

export interface RegistrationAthlete {
  /** 1, 2, ... in the order the registrant gave them. */
  position: number;
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
  /** Withdrawn from its team by the coach (the place is free; the row stays for the record). */
  withdrawnAt: Date | null;
  /** The liability waiver and medical release as signed through the family's link; null until signed. */
  waiver: { version: string; signedName: string; relationship: string; signedAt: Date } | null;
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
  /** An individual athlete's parent or guardian (under 18): the e-mails greet them and go to their address. */
  guardian: Guardian | null;
  /** Registered by a request without the guardian block (the spec's shape): the contact is still to be given. */
  guardianMissing?: boolean;
  formSessionId: string;
  reservedUntil: Date | null;
  createdAt: Date;
  paidAt: Date | null;
  athletes: RegistrationAthlete[];
  /** event_days ids, in the event's day order. */
  dayIds: number[];
  /** Bumped when what it pays for changes (package, days, places, code, amount). */
  version: number;
  /** Hashes of the visitor who holds it unpaid (session key, address). */
  holderSession: string | null;
  amountRefundedCents: number;
  /** Canceled by its registrant through the manage link (status `withdrawn`): when, and the refund the policy gave. */
  withdrawnAt: Date | null;
  withdrawalRefundCents: number | null;
  /** Plan deposit (src/shared/registrations/deposits.ts): what its payment is, when the balance is due, the saved card; null: paid in full. */
  deposit: DepositTerms | null;
}

/** A deposit plan's terms as stored on the registration (the balance is `amountCents` minus what was paid). */
export interface DepositTerms {
  depositCents: number;
  balanceDueAt: Date;
  customerId: string | null;
  paymentMethodId: string | null;
  card: { brand: string; last4: string; expMonth: number; expYear: number } | null;
  consent: { version: string; text: string } | null;
}

function depositTerms(row: Row): DepositTerms | null {
  if (toText(row.payment_plan ?? "full") !== "deposit" || row.deposit_cents === null || row.deposit_cents === undefined) return null;
  return {
    depositCents: Number(row.deposit_cents),
    balanceDueAt: toDate(row.balance_due_at)!,
    customerId: str(row.stripe_customer_id),
    paymentMethodId: str(row.payment_method_id),
    card: row.card_last4 ? { brand: toText(row.card_brand), last4: toText(row.card_last4), expMonth: Number(row.card_exp_month), expYear: Number(row.card_exp_year) } : null,
    consent: row.card_consent_version ? { version: toText(row.card_consent_version), text: toText(row.card_consent_text) } : null,
  };
}

const str = (v: unknown) => (v === null || v === undefined ? null : toText(v));

function mapAthlete(r: Row): RegistrationAthlete {
  return {
    position: Number(r.position),
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
    withdrawnAt: toDate(r.withdrawn_at),
    waiver: r.waiver_version
      ? { version: toText(r.waiver_version), signedName: String(r.waiver_signed_name), relationship: String(r.waiver_signer_relationship), signedAt: toDate(r.waiver_signed_at)! }
      : null,
  };
}

async function load(conn: Conn, row: Row | undefined): Promise<Registration | undefined> {
  if (!row) return undefined;
  const id = Number(row.id);
  const [athletes, days] = await Promise.all([
    conn("registration_athletes").where({ registration_id: id }).orderBy(["position", "id"]),
    conn("registration_days as rd").join("event_days as d", "d.id", "rd.event_day_id").where("rd.registration_id", id).orderBy(["d.sort_order", "d.id"]).select("d.id"),
  ]);
  return registrationOf(row, athletes as Row[], (days as Row[]).map((d) => Number(d.id)));
}

/** A registration from its row, its athletes' rows in position order and its days in the event's order. */
function registrationOf(row: Row, athletes: Row[], dayIds: number[]): Registration {
  const id = Number(row.id);
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
    guardian: str(row.guardian_email) ? { name: str(row.guardian_name) ?? "", email: str(row.guardian_email)!, phone: str(row.guardian_phone) ?? "" } : null,
    guardianMissing: row.guardian_missing === true || Number(row.guardian_missing ?? 0) === 1,
    formSessionId: String(row.form_session_id),
    reservedUntil: toDate(row.reserved_until),
    createdAt: toDate(row.created_at)!,
    paidAt: toDate(row.paid_at),
    athletes: athletes.map(mapAthlete),
    dayIds,
    version: Number(row.version ?? 1),
    holderSession: str(row.holder_session),
    amountRefundedCents: Number(row.amount_refunded_cents ?? 0),
    withdrawnAt: toDate(row.withdrawn_at),
    withdrawalRefundCents: row.withdrawal_refund_cents === null || row.withdrawal_refund_cents === undefined ? null : Number(row.withdrawal_refund_cents),
    deposit: depositTerms(row),
  };
}

export async function findByReference(conn: Conn, reference: string): Promise<Registration | undefined> {
  return load(conn, await conn<Row>("registrations").where({ reference }).first());
}

export async function findByFormSession(conn: Conn, formSessionId: string): Promise<Registration | undefined> {
  return load(conn, await conn<Row>("registrations").where({ form_session_id: formSessionId }).first());
}

/**
 * The registration aggregate's lock order, followed by every transaction that changes a registration:
 *
 *   1. the event row            places are decided under it, and it serialises every change to the event's registrations
 *   2. the discount code row    a code's limit is decided under it (only when a code is involved)
 *   3. the registration row     its status, version, details and code
 *   (4. a change's row          registration_changes: after the registration's, when a change is settled or ended)
 *
 * A transaction that refunds (a cancellation, a cheaper package) first locks the payments that hold the registration's
 * money (its payment group, src/payments/groups.ts), in id order, as settlement does. src/registrations/core/
 * withRegistration.ts takes these locks once for every use case that changes a registration. The payment core's settlement holds the payment row before it calls the registration handler, which then takes
 * 1 to 3 in this order, or 3 alone when it pays a live hold (nothing about places or codes is decided then; should the
 * hold be found lapsed under 3, the transaction starts again and takes 1 to 3: src/registrations/booking/paymentHandler.ts);
 * no registration transaction locks a payment row after these. All of them run through
 * `lockingTransaction` (src/db/transaction.ts): READ COMMITTED on MySQL, so what is read after a lock is current,
 * and a deadlock or lock-wait timeout runs the transaction again instead of answering 500.
 */

/** The name under which this process queues the transactions that take an event's lock (src/db/rowQueue.ts). */
export const eventKey = (eventId: number) => `event:${eventId}`;
/**
 * The payment core's transactions on an event's registrations (a settlement after the card) queue apart from its
 * holds: a live hold's settlement takes no event lock at all, and any other waits in MySQL for it behind the one hold
 * running, not behind every hold queued here.
 */
export const eventPaymentsKey = (eventId: number) => `event:${eventId}:payments`;
/** The in-process queue of one registration's settlements that lock only its own row (a live hold's). */
export const registrationPaymentsKey = (reference: string) => `registration:${reference}:payments`;

/**
 * 1. The event: its row share-locked (its capacity and dates stay as read; a hold's insert share-locks it too), then its
 * count of places (src/events/places.ts) locked for update; undefined when there is no such event. The row comes with
 * `places_taken`, the count as locked. Every decision on the event's places that is not a hold's admission runs under
 * this lock.
 */
export async function lockEvent(trx: Knex.Transaction, eventId: number): Promise<Record<string, unknown> | undefined> {
  const row = await trx<Row>("events").where({ id: eventId }).forShare().first();
  if (!row) return undefined;
  return { ...row, places_taken: await lockPlacesCount(trx, eventId) };
}

/** 1. The event row locked for update, then its count: an operator's change of the row itself (capacity, dates). */
export async function lockEventForChange(trx: Knex.Transaction, eventId: number): Promise<Record<string, unknown> | undefined> {
  const row = await trx<Row>("events").where({ id: eventId }).forUpdate().first();
  if (!row) return undefined;
  return { ...row, places_taken: await lockPlacesCount(trx, eventId) };
}

/** 2. A discount code's row. */
export async function lockCode(trx: Knex.Transaction, codeId: number): Promise<void> {
  await trx("discount_codes").where({ id: codeId }).forUpdate().first("id");
}

/** 3. The registration's row locked for this transaction (third in the lock order: src/registrations/core/repository.ts), then read whole. */
export async function lockByFormSession(trx: Knex.Transaction, formSessionId: string): Promise<Registration | undefined> {
  return load(trx, await trx<Row>("registrations").where({ form_session_id: formSessionId }).forUpdate().first());
}

export async function lockByReference(trx: Knex.Transaction, reference: string): Promise<Registration | undefined> {
  return load(trx, await trx<Row>("registrations").where({ reference }).forUpdate().first());
}

/** The price of an event's package as stored now (cents); undefined when the event has no such package. */
export async function packagePriceCents(conn: Conn, eventId: number, code: string): Promise<number | undefined> {
  const row = await conn<Row>("event_packages").where({ event_id: eventId, code }).first("price_cents");
  return row ? Number(row.price_cents) : undefined;
}

/** The event's team price per athlete as stored now (cents). */
export async function teamPriceCents(conn: Conn, eventId: number): Promise<number> {
  return Number((await conn<Row>("events").where({ id: eventId }).first("team_price_cents"))?.team_price_cents);
}

/** The places a registration holds while its hold is live (0 once paid, lapsed or gone). */
export async function livePlacesHeld(conn: Conn, id: number, now: Date): Promise<number> {
  const row = await conn<Row>("registrations").where({ id, status: "pending_payment" }).andWhere("reserved_until", ">", now).first("places");
  return Number(row?.places ?? 0);
}

/** A waiting-list offer's place taken by a visitor: from now on it counts against that visitor's cap (placesHeldBy). */
export async function claimHold(trx: Knex.Transaction, registrationId: number, holder: Holder, now: Date): Promise<void> {
  await trx("registrations").where({ id: registrationId }).update({ holder_session: holder.session, holder_address: holder.address, updated_at: now });
}

/** A registration's id and event, read without a lock (neither ever changes): what its transactions lock first. */
export async function idsOf(conn: Conn, reference: string): Promise<{ id: number; eventId: number } | undefined> {
  const row = await conn<Row>("registrations").where({ reference }).first("id", "event_id");
  return row ? { id: Number(row.id), eventId: Number(row.event_id) } : undefined;
}

/** The event a registration belongs to, read without a lock (it never changes): the first lock of its transactions. */
/** A registration's event and hold state, read without a lock (which queue its settlement joins). */
export async function settlementStateOf(conn: Conn, reference: string): Promise<(Pick<Registration, "status" | "reservedUntil" | "eventId">) | undefined> {
  const row = await conn<Row>("registrations").where({ reference }).first("event_id", "status", "reserved_until");
  return row ? { eventId: Number(row.event_id), status: String(row.status) as RegistrationStatus, reservedUntil: toDate(row.reserved_until) } : undefined;
}

export async function eventIdOf(conn: Conn, reference: string): Promise<number | undefined> {
  const row = await conn<Row>("registrations").where({ reference }).first("event_id");
  return row ? Number(row.event_id) : undefined;
}

/**
 * Moves a registration along one step of REGISTRATION_TRANSITIONS (src/registrations/core/states.ts): only a row still
 * in one of the step's `from` statuses changes, so of two callers of the same step exactly one gets true.
 */
export async function transition(
  trx: Knex.Transaction,
  id: number,
  step: RegistrationTransition,
  now: Date,
  fields: Record<string, unknown> = {},
  locked?: Pick<Registration, "status" | "places" | "eventId">,
): Promise<boolean> {
  const { from, to } = REGISTRATION_TRANSITIONS[step];
  // The event's count moves with the row (src/events/places.ts). A hold's count is moved by its admission statement
  // (booking/hold.ts); a step whose every `from` counts as `to` does moves nothing and needs no read; nor does a row
  // the caller read under its lock in this transaction (`locked`).
  const moves = step !== "hold" && from.some((s) => countsPlaces(s) !== countsPlaces(to));
  const before = !moves ? undefined : locked ? { status: locked.status, places: locked.places, event_id: locked.eventId } : await trx<Row>("registrations").where({ id }).forUpdate().first("status", "places", "event_id");
  const changed = await trx("registrations").where({ id }).whereIn("status", [...from]).update({ ...fields, status: to, updated_at: now });
  if (changed === 1 && before) {
    const places = Number(before.places);
    await movePlaces(trx, Number(before.event_id), (countsPlaces(to) ? places : 0) - (countsPlaces(String(before.status)) ? places : 0));
  }
  return changed === 1;
}

/** A live hold kept until `until` (never shortened): its payment is being confirmed. Under the aggregate's locks. */
export async function keepHoldUntil(trx: Knex.Transaction, id: number, until: Date, now: Date): Promise<boolean> {
  const changed = await trx("registrations").where({ id, status: "pending_payment" }).andWhere("reserved_until", ">", now).andWhere("reserved_until", "<", until).update({ reserved_until: until, updated_at: now });
  return changed === 1;
}

/** Who holds a registration unpaid: hashes of the visitor's session key and address. */
export interface Holder {
  session: string;
  address: string;
}

/**
 * 0. The visitor's own rows (one per hash: session key, address), locked first by a hold or a join: one visitor's
 * holds are decided one after another, so their cap (placesHeldBy, read after this lock) holds under races, and no
 * other visitor waits for them.
 */
export async function lockVisitor(trx: Knex.Transaction, holder: Holder): Promise<void> {
  const rows = [...new Set([holder.session, holder.address])].sort().map((h) => ({ holder: h }));
  await trx("hold_visitors").insert(rows).onConflict("holder").merge();
}

/** Places this visitor (by session key, or by address) holds unpaid right now, other than in `exceptId`. */
export async function placesHeldBy(trx: Knex.Transaction, holder: Holder, now: Date, exceptId?: number): Promise<{ session: number; address: number }> {
  const q = trx<Row>("registrations")
    .where("status", "pending_payment")
    .andWhere("reserved_until", ">", now)
    .andWhere((w) => { w.where("holder_session", holder.session).orWhere("holder_address", holder.address); });
  if (exceptId !== undefined) q.andWhereNot("id", exceptId);
  const bySessionAndAddress = [
    trx.raw("coalesce(sum(case when holder_session = ? then places else 0 end), 0) as by_session", [holder.session]),
    trx.raw("coalesce(sum(case when holder_address = ? then places else 0 end), 0) as by_address", [holder.address]),
  ];
  // Athletes being added to a paid team hold places too (registration_changes).
  const changes = trx<Row>("registration_changes")
    .where("status", "pending")
    .andWhere("reserved_until", ">", now)
    .andWhere((w) => { w.where("holder_session", holder.session).orWhere("holder_address", holder.address); })
    .select(...bySessionAndAddress);
  // One round trip (a hold runs this under the event's lock): both sums in one statement.
  const rows: Row[] = await trx.select("*").from(q.select(...bySessionAndAddress).unionAll(changes).as("held"));
  return {
    session: rows.reduce((sum, r) => sum + Number(r.by_session ?? 0), 0),
    address: rows.reduce((sum, r) => sum + Number(r.by_address ?? 0), 0),
  };
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
    places: 1,
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

/** Writes the athlete's row and the days; returns the athlete's row as written. */
async function writeAthleteAndDays(trx: Knex.Transaction, registrationId: number, h: IndividualHold, replacing: boolean): Promise<Row> {
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
  await trx("registration_athletes").insert(athlete);
  if (h.data.dayIds.length > 0) {
    await trx("registration_days").insert(h.data.dayIds.map((dayId) => ({ registration_id: registrationId, event_day_id: dayId })));
  }
  return athlete;
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
  const athlete = await writeAthleteAndDays(trx, registrationId, h, false);
  return registrationOf({ ...row, id: registrationId }, [athlete], h.data.dayIds);
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
/** What a waiting-list offer holds (src/registrations/waitlist/offers.ts): its places, package and price, no athletes yet. */
export interface OfferedHold {
  reference: string;
  eventId: number;
  kind: RegistrationKind;
  teamName: string | null;
  places: number;
  packageCode: string;
  packageLabel: string;
  priceCents: number;
  contact: { firstName: string; lastName: string; email: string; phone: string | null };
  formSessionId: string;
  reservedUntil: Date;
  dayIds: number[];
}

/**
 * A pending registration holding an offer's places until the offer ends: the entry's contact and package, no
 * athletes yet (the registration or team form fills them in, on the same row: its form id is the row's).
 */
export async function insertOfferedHold(trx: Knex.Transaction, h: OfferedHold, now: Date): Promise<number> {
  const [id] = await trx("registrations").insert({
    reference: h.reference,
    event_id: h.eventId,
    kind: h.kind,
    team_name: h.teamName,
    status: "pending_payment",
    places: h.places,
    package_code: h.packageCode,
    package_label: h.packageLabel,
    list_price_cents: h.priceCents,
    amount_cents: h.priceCents,
    contact_first_name: h.contact.firstName,
    contact_last_name: h.contact.lastName,
    contact_email: h.contact.email,
    contact_phone: h.contact.phone,
    form_session_id: h.formSessionId,
    reserved_until: h.reservedUntil,
    // The row requires it; the form records the real agreement when it is submitted (it rewrites agreed_at).
    agreed_at: now,
    created_at: now,
    updated_at: now,
    version: 1,
  });
  const registrationId = Number(id);
  if (h.dayIds.length > 0) await trx("registration_days").insert(h.dayIds.map((dayId) => ({ registration_id: registrationId, event_day_id: dayId })));
  // An offer round decides under the event's lock (lockEvent): its places are counted here.
  await movePlaces(trx, h.eventId, h.places);
  return registrationId;
}

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

/** A team athlete's row: the team form's fields (the parent is the emergency contact). */
function teamAthleteRow(registrationId: number, position: number, a: TeamRegistration["athletes"][number]) {
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

/** Writes the athletes' rows (one statement) and the days; returns the athletes' rows as written. */
async function writeTeamAthletesAndDays(trx: Knex.Transaction, registrationId: number, h: TeamHold, replacing: boolean): Promise<Row[]> {
  if (replacing) {
    await trx("registration_athletes").where({ registration_id: registrationId }).delete();
    await trx("registration_days").where({ registration_id: registrationId }).delete();
  }
  const athletes = h.data.athletes.map((a, i) => teamAthleteRow(registrationId, i + 1, a));
  await trx("registration_athletes").insert(athletes);
  if (h.dayIds.length > 0) await trx("registration_days").insert(h.dayIds.map((dayId) => ({ registration_id: registrationId, event_day_id: dayId })));
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

/** The amount to pay (after a code), and the version it belongs to. */
export async function setAmount(trx: Knex.Transaction, id: number, amountCents: number, version: number, now: Date): Promise<void> {
  await trx("registrations").where({ id }).update({ amount_cents: amountCents, version, updated_at: now });
}

/** Refunded so far; `refunded_at` is set with the first refund. */
export async function setAmountRefunded(trx: Knex.Transaction, id: number, amountRefundedCents: number, now: Date): Promise<void> {
  await trx("registrations").where({ id }).update({ amount_refunded_cents: amountRefundedCents, updated_at: now });
  await trx("registrations").where({ id }).whereNull("refunded_at").update({ refunded_at: now });
}

// ---- the deposit plan and the card its balance is charged to ----

/** Plan deposit's terms as a hold writes them: the deposit, the due date and the consent shown next to the Pay button. */
export interface PlanTerms {
  depositCents: number;
  balanceDueAt: Date;
  consent: { version: string; text: string };
}

/** The plan chosen with a hold: its terms, or null for plan full (which clears them). */
export async function setPaymentPlan(trx: Knex.Transaction, id: number, plan: PlanTerms | null): Promise<void> {
  await trx("registrations")
    .where({ id })
    .update(
      plan
        ? { payment_plan: "deposit", deposit_cents: plan.depositCents, balance_due_at: plan.balanceDueAt, card_consent_version: plan.consent.version, card_consent_text: plan.consent.text }
        : { payment_plan: "full", deposit_cents: null, balance_due_at: null, card_consent_version: null, card_consent_text: null },
    );
}

/** A card saved for the balance, as the gateway describes it. */
export interface SavedCardColumns {
  paymentMethodId: string;
  card: { brand: string; last4: string; expMonth: number; expYear: number };
}

const cardColumns = (c: SavedCardColumns) => ({ payment_method_id: c.paymentMethodId, card_brand: c.card.brand, card_last4: c.card.last4, card_exp_month: c.card.expMonth, card_exp_year: c.card.expYear });

/** The Stripe Customer the registration's cards are saved on (one per reference). */
export async function setStripeCustomer(conn: Conn, id: number, customerId: string): Promise<void> {
  await conn("registrations").where({ id }).update({ stripe_customer_id: customerId });
}

/** The deposit's card, kept only when the registration has none yet (a card chosen later is not overwritten). */
export async function rememberFirstCard(conn: Conn, id: number, customerId: string, saved: SavedCardColumns): Promise<void> {
  await conn("registrations").where({ id }).whereNull("payment_method_id").update({ stripe_customer_id: customerId, ...cardColumns(saved) });
}

/** "Use another card": the new card for the next balance charge, only while a balance is owed (one statement decides). */
export async function replaceBalanceCard(conn: Conn, id: number, saved: SavedCardColumns, now: Date): Promise<boolean> {
  const changed = await conn("registrations").where({ id }).whereIn("status", ["deposit_paid", "balance_overdue"]).update({ ...cardColumns(saved), updated_at: now });
  return changed === 1;
}

// ---- the code applied to a registration (discount_redemptions) ----

export type RedemptionStatus = "held" | "redeemed" | "released";

export interface Redemption {
  id: number;
  codeId: number;
  code: string;
  registrationId: number;
  amountOffCents: number;
  status: RedemptionStatus;
}

export async function redemptionOf(conn: Conn, registrationId: number): Promise<Redemption | undefined> {
  const row: Row | undefined = await conn<Row>("discount_redemptions as dr")
    .join("discount_codes as c", "c.id", "dr.discount_code_id")
    .where("dr.registration_id", registrationId)
    .first("dr.id", "dr.discount_code_id", "c.code", "dr.registration_id", "dr.amount_off_cents", "dr.status");
  if (!row) return undefined;
  return {
    id: Number(row.id),
    codeId: Number(row.discount_code_id),
    code: String(row.code),
    registrationId: Number(row.registration_id),
    amountOffCents: Number(row.amount_off_cents),
    status: String(row.status) as RedemptionStatus,
  };
}

// ---- after payment: manage links and the registrant's own changes (src/registrations/changes/) ----

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
export interface AthleteDetails {
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

export async function setVersion(trx: Knex.Transaction, id: number, version: number, now: Date): Promise<void> {
  await trx("registrations").where({ id }).update({ version, updated_at: now });
}

/** The event's own deadline for changes (`events.changes_freeze_at`), null when it keeps the default. */
export async function eventChangesFreezeAt(conn: Conn, eventId: number): Promise<Date | null> {
  return toDate((await conn<Row>("events").where({ id: eventId }).first("changes_freeze_at"))?.changes_freeze_at);
}

/** One athlete leaves a team: marked withdrawn with the refund it gave, the team holds one place fewer, a new version. */
export async function withdrawAthlete(trx: Knex.Transaction, registrationId: number, position: number, refundCents: number, places: number, version: number, now: Date): Promise<void> {
  await trx("registration_athletes").where({ registration_id: registrationId, position }).update({ withdrawn_at: now, withdrawal_refund_cents: refundCents });
  const before = (await trx<Row>("registrations").where({ id: registrationId }).forUpdate().first("status", "places", "event_id"))!;
  await trx("registrations").where({ id: registrationId }).update({ places, version, updated_at: now });
  if (countsPlaces(String(before.status))) await movePlaces(trx, Number(before.event_id), places - Number(before.places));
}

/** A paid individual registration moves to a cheaper package: its package, price and amount, at a new version. */
export async function setPackage(trx: Knex.Transaction, id: number, p: { code: string; label: string; priceCents: number }, version: number, now: Date): Promise<void> {
  await trx("registrations").where({ id }).update({ package_code: p.code, package_label: p.label, list_price_cents: p.priceCents, amount_cents: p.priceCents, version, updated_at: now });
}

// ---- changes paid through their own PaymentIntent: an upgrade, athletes added to a team (registration_changes) ----

export type ChangeKind = "upgrade" | "add_athletes";
export type { ChangeStatus } from "./states.ts";
/** The change's data: the new package and its days, or the athletes to add (the team form's fields, checked). */
export type ChangeData =
  | { kind: "upgrade"; fromPackageCode: string; fromListPriceCents: number; packageCode: string; packageLabel: string; priceCents: number; dayIds: number[] }
  /** balanceCents: on a deposit plan, the part of the athletes' price added to the balance (the change charges the rest). */
  | { kind: "add_athletes"; pricePerAthleteCents: number; athletes: TeamRegistration["athletes"]; balanceCents?: number };

export interface RegistrationChange {
  id: number;
  registrationId: number;
  eventId: number;
  kind: ChangeKind;
  data: ChangeData;
  places: number;
  amountCents: number;
  pricedVersion: number;
  status: ChangeStatus;
  reservedUntil: Date;
  holderSession: string | null;
  createdAt: Date;
  paidAt: Date | null;
}

export function mapChange(row: Row): RegistrationChange {
  return {
    id: Number(row.id),
    registrationId: Number(row.registration_id),
    eventId: Number(row.event_id),
    kind: String(row.kind) as ChangeKind,
    data: JSON.parse(String(row.data_json)) as ChangeData,
    places: Number(row.places),
    amountCents: Number(row.amount_cents),
    pricedVersion: Number(row.priced_version),
    status: String(row.status) as ChangeStatus,
    reservedUntil: toDate(row.reserved_until)!,
    holderSession: str(row.holder_session),
    createdAt: toDate(row.created_at)!,
    paidAt: toDate(row.paid_at),
  };
}

export async function findChange(conn: Conn, id: number): Promise<RegistrationChange | undefined> {
  const row: Row | undefined = await conn<Row>("registration_changes").where({ id }).first();
  return row ? mapChange(row) : undefined;
}

/** After the event's and the registration's locks (the aggregate's order): the change's own row. */
export async function lockChange(trx: Knex.Transaction, id: number): Promise<RegistrationChange | undefined> {
  const row: Row | undefined = await trx<Row>("registration_changes").where({ id }).forUpdate().first();
  return row ? mapChange(row) : undefined;
}

/** The registration's changes in these statuses, oldest first. */
export async function changesOf(conn: Conn, registrationId: number, statuses: readonly ChangeStatus[]): Promise<RegistrationChange[]> {
  const rows: Row[] = await conn<Row>("registration_changes").where({ registration_id: registrationId }).whereIn("status", [...statuses]).orderBy("id");
  return rows.map(mapChange);
}

/** Moves a change from one of `from` to `to`; of two callers exactly one gets true. Under the aggregate's locks. */
export async function moveChange(trx: Knex.Transaction, id: number, step: ChangeTransition, now: Date, fields: Record<string, unknown> = {}): Promise<boolean> {
  const { from, to } = CHANGE_TRANSITIONS[step];
  const moves = from.some((s) => changeCountsPlaces(s) !== changeCountsPlaces(to));
  const before = moves ? await trx<Row>("registration_changes").where({ id }).forUpdate().first("status", "places", "event_id") : undefined;
  const changed = (await trx("registration_changes").where({ id }).whereIn("status", [...from]).update({ ...fields, status: to, updated_at: now })) === 1;
  if (changed && before) {
    const places = Number(before.places);
    await movePlaces(trx, Number(before.event_id), (changeCountsPlaces(to) ? places : 0) - (changeCountsPlaces(String(before.status)) ? places : 0));
  }
  return changed;
}

/** Places that pending add-athlete changes hold at an event at `now` (a lapsed one holds none, before the sweep marks it). */
export async function placesHeldByChanges(conn: Conn, eventId: number, now: Date, exceptChangeId?: number): Promise<number> {
  const q = conn("registration_changes")
    .where({ event_id: eventId })
    .andWhere((w) => { w.where("status", "needs_review").orWhere((h) => { h.where("status", "pending").andWhere("reserved_until", ">", now); }); });
  if (exceptChangeId !== undefined) q.andWhereNot("id", exceptChangeId);
  const row: Row | undefined = await q.sum({ held: "places" }).first();
  return Number(row?.held ?? 0) || 0;
}

/** A change applied: the registration's amount paid (and, for a team, its amount and list price) grows by what the change cost. */
export async function addPaid(trx: Knex.Transaction, id: number, cents: number, now: Date): Promise<void> {
  await trx("registrations").where({ id }).update({ amount_paid_cents: trx.raw("coalesce(amount_paid_cents, 0) + ?", [cents]), updated_at: now });
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

/** A registration's reference, read without a lock (it never changes). */
export async function referenceOf(conn: Conn, id: number): Promise<string | undefined> {
  const row = await conn<Row>("registrations").where({ id }).first("reference");
  return row ? String(row.reference) : undefined;
}
