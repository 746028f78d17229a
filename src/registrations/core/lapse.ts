import type { Knex } from "knex";
import type { Db } from "../../db/knex.ts";
import { lockEvent } from "./locks.ts";
import { lockingTransaction } from "../../db/transaction.ts";
import { moveChange } from "./tables/changes.ts";
import { transition } from "./tables/registrations.ts";
import { countsPlaces } from "../../events/places.ts";
import { releaseUse } from "./money/codes.ts";
import { placesFreed } from "./placesFreed.ts";

/**
 * Holds whose time is over give their places back. The event's count (src/events/places.ts) counts a pending hold
 * until its lapse is released: by the sweep (which cancels its PaymentIntent first), or here, at once, when places
 * are decided on: a hold's admission that found the event full, an offer round, a late payment. A PaymentIntent of a
 * hold released here is left open; a payment on it later is a late payment (a free place, or refunded).
 */

type Conn = Db | Knex.Transaction;
type Row = Record<string, unknown>;

/** Whether the event has pending holds or paid changes' holds whose time is over (read without a lock: a hint). */
export async function hasLapsedHolds(conn: Conn, eventId: number, now: Date): Promise<boolean> {
  const [row]: Row[] = await conn.select({
    holds: conn("registrations").where({ event_id: eventId, status: "pending_payment" }).andWhere("reserved_until", "<=", now).count("*"),
    changes: conn("registration_changes").where({ event_id: eventId, status: "pending" }).andWhere("reserved_until", "<=", now).count("*"),
  });
  return Number(row?.holds ?? 0) + Number(row?.changes ?? 0) > 0;
}

/**
 * Under the event's lock (lockEvent, first): every lapsed hold of the event expired and its count given back, its
 * code's use released; the waiting list is told. Returns the places given back.
 */
export async function releaseLapsedHolds(trx: Knex.Transaction, eventId: number, now: Date, exceptRegistrationId?: number): Promise<number> {
  let released = 0;
  const lapsed = trx("registrations").where({ event_id: eventId, status: "pending_payment" }).andWhere("reserved_until", "<=", now);
  if (exceptRegistrationId !== undefined) lapsed.andWhereNot("id", exceptRegistrationId);
  const holds: Row[] = await lapsed.forUpdate().select("id", "places");
  for (const h of holds) {
    if (!(await transition(trx, Number(h.id), "expire", now))) continue;
    await releaseUse(trx, Number(h.id), now);
    released += Number(h.places);
  }
  const changes: Row[] = await trx("registration_changes").where({ event_id: eventId, status: "pending" }).andWhere("reserved_until", "<=", now).forUpdate().select("id", "places");
  for (const c of changes) if (await moveChange(trx, Number(c.id), "expire", now)) released += Number(c.places);
  if (released > 0) await placesFreed(trx, eventId);
  return released;
}

/** Places taken at `now`, under the event's lock (`locked`: its lockEvent row): lapsed holds released first. */
export async function placesTakenNow(trx: Knex.Transaction, eventId: number, locked: Record<string, unknown>, now: Date): Promise<number> {
  const released = await releaseLapsedHolds(trx, eventId, now);
  return Number(locked.places_taken) - released;
}

/**
 * Places a lapsed registration's late payment may take, under the event's and its own locks: the event's free places
 * by its count, other lapsed holds released first, its own places counted as its own while it still counts them.
 */
export async function placesLeftForLate(trx: Knex.Transaction, r: { id: number; eventId: number }, now: Date): Promise<number> {
  const locked = (await lockEvent(trx, r.eventId))!;
  const released = await releaseLapsedHolds(trx, r.eventId, now, r.id);
  const own = await trx<Row>("registrations").where({ id: r.id }).first("status", "places");
  const ownCounted = own && countsPlaces(String(own.status)) ? Number(own.places) : 0;
  return Number(locked.capacity) - (Number(locked.places_taken) - released - ownCounted);
}

/**
 * A hold's admission found the event full: its lapsed holds are released at once, in a transaction of their own (run
 * again when it loses a deadlock to another visitor's release or hold, as every locking transaction is).
 */
export async function releaseLapsedNow(db: Db, eventId: number, now: Date): Promise<number> {
  return lockingTransaction(db, async (trx) => {
    if (!(await lockEvent(trx, eventId))) return 0;
    return releaseLapsedHolds(trx, eventId, now);
  });
}
