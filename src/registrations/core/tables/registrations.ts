import type { Knex } from "knex";
import { toDate, toJson } from "../../../db/rows.ts";
import { REDEMPTION_JSON, redemptionFrom, type Redemption } from "../money/redemptions.ts";
import { countsPlaces, movePlaces } from "../../../events/places.ts";
import { isMysql } from "../../../db/dialect.ts";
import { readRegistration, readWhole, type Registration, type RegistrationStatus } from "../registration.ts";
import { REGISTRATION_TRANSITIONS, type RegistrationTransition } from "../states.ts";
import type { Conn, Row } from "./rows.ts";
import { paymentOf, type PaymentRow } from "../../../payments/repository.ts";

/** The registrations table: a registration found or locked (third in the lock order, core/locks.ts), its state moves and amounts. */

export async function findByReference(conn: Conn, reference: string): Promise<Registration | undefined> {
  return readRegistration(conn, { reference }, false);
}

export async function findByFormSession(conn: Conn, formSessionId: string): Promise<Registration | undefined> {
  return readRegistration(conn, { form_session_id: formSessionId }, false);
}

/** 3. The registration's row locked for this transaction (third in the lock order: src/registrations/core/locks.ts), then read whole. */
export async function lockByFormSession(trx: Knex.Transaction, formSessionId: string): Promise<Registration | undefined> {
  return readRegistration(trx, { form_session_id: formSessionId }, true);
}

export async function lockByReference(trx: Knex.Transaction, reference: string): Promise<Registration | undefined> {
  return readRegistration(trx, { reference }, true);
}

/**
 * lockByReference with the registration's code use read in the same statement on MySQL (null: none), after the lock
 * as redemptionOf would read it; undefined on SQLite (not read: the caller reads it when it needs it).
 */
export async function lockWithRedemption(trx: Knex.Transaction, reference: string): Promise<{ r: Registration; redemption: Redemption | null | undefined } | undefined> {
  const read = await readWhole(trx, { reference }, true, isMysql(trx) ? [REDEMPTION_JSON] : []);
  if (!read) return undefined;
  if (!isMysql(trx)) return { r: read.r, redemption: undefined };
  const found = toJson<Row | null>(read.row.redemption_json, null);
  return { r: read.r, redemption: found ? redemptionFrom(found) : null };
}

/** A registration's id and event, read without a lock (neither ever changes): what its transactions lock first. */
export async function idsOf(conn: Conn, reference: string): Promise<{ id: number; eventId: number } | undefined> {
  const row = await conn<Row>("registrations").where({ reference }).first("id", "event_id");
  return row ? { id: Number(row.id), eventId: Number(row.event_id) } : undefined;
}

export type SettlementState = Pick<Registration, "status" | "reservedUntil" | "eventId">;

/** A registration's event and hold state, read without a lock (which queue its settlement joins). */
export async function settlementStateOf(conn: Conn, reference: string): Promise<SettlementState | undefined> {
  const row = await conn<Row>("registrations").where({ reference }).first("event_id", "status", "reserved_until");
  return row ? { eventId: Number(row.event_id), status: String(row.status) as RegistrationStatus, reservedUntil: toDate(row.reserved_until) } : undefined;
}

/**
 * The browser's return: the registration's settlement state (settlementStateOf) and its newest payment of `kind`
 * (PaymentCore.latestFor), read without a lock in one statement.
 */
export async function settlementStateWithPayment(conn: Conn, reference: string, kind: string): Promise<{ state: SettlementState; payment: PaymentRow | undefined } | undefined> {
  const row: Row | undefined = await conn<Row>("registrations as r")
    .leftJoin("payments as p", (on) => on.on("p.reference", "r.reference").andOnVal("p.kind", kind))
    .where("r.reference", reference)
    .orderBy("p.id", "desc")
    .first<Row | undefined>("p.*", "r.event_id as registration_event_id", "r.status as registration_status", "r.reserved_until as registration_reserved_until");
  if (!row) return undefined;
  const state = { eventId: Number(row.registration_event_id), status: String(row.registration_status) as RegistrationStatus, reservedUntil: toDate(row.registration_reserved_until) };
  return { state, payment: row.id === null || row.id === undefined ? undefined : paymentOf(row) };
}

/** The event a registration belongs to, read without a lock (it never changes): the first lock of its transactions. */
export async function eventIdOf(conn: Conn, reference: string): Promise<number | undefined> {
  const row = await conn<Row>("registrations").where({ reference }).first("event_id");
  return row ? Number(row.event_id) : undefined;
}

/** A registration's reference, read without a lock (it never changes). */
export async function referenceOf(conn: Conn, id: number): Promise<string | undefined> {
  const row = await conn<Row>("registrations").where({ id }).first("reference");
  return row ? String(row.reference) : undefined;
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

/** The amount to pay (after a code), and the version it belongs to. */
export async function setAmount(trx: Knex.Transaction, id: number, amountCents: number, version: number, now: Date): Promise<void> {
  await trx("registrations").where({ id }).update({ amount_cents: amountCents, version, updated_at: now });
}

/** Refunded so far; `refunded_at` is set with the first refund. */
export async function setAmountRefunded(trx: Knex.Transaction, id: number, amountRefundedCents: number, now: Date): Promise<void> {
  await trx("registrations").where({ id }).update({ amount_refunded_cents: amountRefundedCents, updated_at: now });
  await trx("registrations").where({ id }).whereNull("refunded_at").update({ refunded_at: now });
}

export async function setVersion(trx: Knex.Transaction, id: number, version: number, now: Date): Promise<void> {
  await trx("registrations").where({ id }).update({ version, updated_at: now });
}

/** A change applied: the registration's amount paid (and, for a team, its amount and list price) grows by what the change cost. */
export async function addPaid(trx: Knex.Transaction, id: number, cents: number, now: Date): Promise<void> {
  await trx("registrations").where({ id }).update({ amount_paid_cents: trx.raw("coalesce(amount_paid_cents, 0) + ?", [cents]), updated_at: now });
}

/** A paid individual registration moves to a cheaper package: its package, price and amount, at a new version. */
export async function setPackage(trx: Knex.Transaction, id: number, p: { code: string; label: string; priceCents: number }, version: number, now: Date): Promise<void> {
  await trx("registrations").where({ id }).update({ package_code: p.code, package_label: p.label, list_price_cents: p.priceCents, amount_cents: p.priceCents, version, updated_at: now });
}
