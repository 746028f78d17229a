import type { Knex } from "knex";
import type { Db } from "../db/knex.ts";
import { isMysql } from "../db/dialect.ts";
import { takeDeferredWrites } from "../db/deferredWrites.ts";
import { committedByServer, rolledBackByServer } from "../db/serverCommits.ts";

/**
 * Each event's count of places taken (`event_places.taken`), the number a hold is admitted on. It counts by status,
 * not by time: registrations pending payment (their hold lapsed or not, until the lapse is released), paid, in review,
 * deposit paid or balance overdue, and paid registrations' changes pending or in review, each by its places. Every
 * writer of those rows moves the count in the same transaction (src/registrations/core/tables/); `npm run
 * capacity -- check` compares it with the rows.
 *
 * Lock order: the event's row (shared: its capacity; InnoDB also share-locks it for every registration insert's
 * foreign key), then this count's row. A hold locks the count with its last statement (`admitPlaces`), so the count
 * is locked only from that statement to COMMIT.
 */

type Conn = Db | Knex.Transaction;
type Row = Record<string, unknown>;

export const COUNTED_REGISTRATION_STATUSES = ["pending_payment", "paid", "needs_review", "deposit_paid", "balance_overdue"] as const;
export const COUNTED_CHANGE_STATUSES = ["pending", "needs_review"] as const;

export const countsPlaces = (status: string) => (COUNTED_REGISTRATION_STATUSES as readonly string[]).includes(status);
export const changeCountsPlaces = (status: string) => (COUNTED_CHANGE_STATUSES as readonly string[]).includes(status);

/** What the rows say an event's count is (a locking read in a transaction: every committed row). */
export async function placesInRows(conn: Conn, eventId: number): Promise<number> {
  const registrations = conn("registrations").where({ event_id: eventId }).whereIn("status", [...COUNTED_REGISTRATION_STATUSES]);
  const changes = conn("registration_changes").where({ event_id: eventId }).whereIn("status", [...COUNTED_CHANGE_STATUSES]);
  if ((conn as Knex.Transaction).isTransaction) {
    registrations.forShare();
    changes.forShare();
  }
  const [r] = await registrations.sum({ n: "places" });
  const [c] = await changes.sum({ n: "places" });
  return (Number(r?.n) || 0) + (Number(c?.n) || 0);
}

/**
 * The event's count, locked until COMMIT. An event with no count yet (made before this table, or by a tool that
 * wrote the events table only) is counted from its rows first.
 */
export async function lockPlacesCount(trx: Knex.Transaction, eventId: number): Promise<number> {
  const row = await trx<Row>("event_places").where({ event_id: eventId }).forUpdate().first("taken");
  if (row) return Number(row.taken);
  await trx("event_places").insert({ event_id: eventId, taken: await placesInRows(trx, eventId) }).onConflict("event_id").ignore();
  const counted = await trx<Row>("event_places").where({ event_id: eventId }).forUpdate().first("taken");
  return Number(counted?.taken);
}

/** Moves the count by `delta` (a writer of rows that hold places, in the same transaction as its rows). */
export async function movePlaces(trx: Knex.Transaction, eventId: number, delta: number): Promise<void> {
  if (delta === 0) return;
  await trx("event_places").where({ event_id: eventId }).update({ taken: trx.raw("taken + ?", [delta]) });
}

/** Why the count refused a hold: the places free by it, whether it exists, whether the line waits, whether lapsed holds could give places back. */
export interface Refusal {
  counted: boolean;
  free: number;
  lineWaits: boolean;
  lapsed: boolean;
}

/**
 * THE admission: takes `places` when the event has them free and nobody waits in its line (the line's kept-back
 * places are decided by `placesForSale`, apart). One statement that checks and takes at once.
 * It must be the transaction's last statement: on MySQL it runs as `admit_places_then`, which sends the writes the
 * transaction deferred to it (src/db/deferredWrites.ts) and COMMITs inside the server when it took the places
 * (migrations/20261209000100_admit_places_then.ts), so the count's row is locked only from the UPDATE to that COMMIT,
 * in one round trip, and knex sends no COMMIT of its own after it
 * (src/db/serverCommits.ts). Refused, the transaction is over too (rolled back inside the server, with the refusal's
 * reasons in the same answer) or, on SQLite, to be rolled back: either way the caller throws, and reads the reasons
 * itself when none came (`admissionState`, `hasLapsedHolds`).
 */
export async function admitPlaces(trx: Knex.Transaction, eventId: number, places: number, now: Date): Promise<{ admitted: true } | { admitted: false; refusal?: Refusal }> {
  if (isMysql(trx)) {
    const then = takeDeferredWrites(trx);
    const result = (await trx.raw("call admit_places_then(?, ?, ?, ?)", [eventId, places, now, then])) as unknown as [[Row[], ...unknown[]], ...unknown[]];
    const row = result[0][0][0] ?? {};
    if (Number(row.admitted) === 1) {
      committedByServer(trx);
      return { admitted: true };
    }
    rolledBackByServer(trx);
    const counted = row.taken !== null && row.taken !== undefined;
    return {
      admitted: false,
      refusal: { counted, free: Number(row.capacity ?? 0) - Number(row.taken ?? 0), lineWaits: Number(row.line_waits) === 1, lapsed: Number(row.lapsed) === 1 },
    };
  }
  const changed: unknown = await trx.raw(
    "update event_places set taken = taken + ? where event_id = ? and taken + ? <= (select capacity from events where id = ?) " +
      "and not exists (select 1 from waiting_list_entries where event_id = ? and status = 'waiting')",
    [places, eventId, places, eventId, eventId],
  );
  return affectedRows(changed) === 1 ? { admitted: true } : { admitted: false };
}

/** better-sqlite3 through knex.raw answers { changes }. */
function affectedRows(result: unknown): number {
  return Number((result as { changes?: number }).changes ?? 0);
}

/** Why `admitPlaces` refused, read without a lock (SQLite, a code's use): the places free by the count, whether the line waits, whether the count exists. */
export async function admissionState(conn: Conn, eventId: number): Promise<{ counted: boolean; free: number; lineWaits: boolean }> {
  const [row]: Row[] = await conn
    .select({
      capacity: conn("events").where({ id: eventId }).select("capacity"),
      taken: conn("event_places").where({ event_id: eventId }).select("taken"),
      waiting: conn("waiting_list_entries").where({ event_id: eventId, status: "waiting" }).count("*"),
    });
  const counted = row?.taken !== null && row?.taken !== undefined;
  return { counted, free: Number(row?.capacity ?? 0) - Number(row?.taken ?? 0), lineWaits: Number(row?.waiting ?? 0) > 0 };
}

export interface PlacesDrift {
  eventId: number;
  counted: number;
  rows: number;
  capacity: number;
}

/** Every event whose count is not what its rows say, or above its capacity (`npm run capacity -- check`). */
export async function placesDrift(db: Db): Promise<PlacesDrift[]> {
  const events: { id: unknown; capacity: unknown; taken: unknown }[] = await db("events")
    .leftJoin("event_places", "event_places.event_id", "events.id")
    .orderBy("events.id")
    .select("events.id", "events.capacity", "event_places.taken");
  const drift: PlacesDrift[] = [];
  for (const e of events) {
    const eventId = Number(e.id);
    const rows = await placesInRows(db, eventId);
    const counted = e.taken === null || e.taken === undefined ? null : Number(e.taken);
    // An event never counted yet is counted from its rows at its first hold: only a count that exists can drift.
    const capacity = Number(e.capacity);
    if (counted !== null && (counted !== rows || counted > capacity)) drift.push({ eventId, counted, rows, capacity });
  }
  return drift;
}
