import type { Knex } from "knex";
import type { Db } from "../../db/knex.ts";
import { toDate } from "../../db/rows.ts";

/**
 * Booking's own queries (src/registrations/booking/): the holds the sweep ends. The registration rows themselves are
 * written by src/registrations/core/tables/ only.
 */

type Conn = Db | Knex.Transaction;
type Row = Record<string, unknown>;

/** Pending registrations whose hold has lapsed, oldest first. */
export async function expiredHolds(conn: Conn, now: Date, limit: number): Promise<{ id: number; reference: string; eventId: number; reservedUntil: Date }[]> {
  const rows: Row[] = await conn("registrations")
    .where("status", "pending_payment")
    .andWhere("reserved_until", "<=", now)
    .orderBy("reserved_until")
    .limit(limit)
    .select("id", "reference", "event_id", "reserved_until");
  return rows.map((r) => ({ id: Number(r.id), reference: String(r.reference), eventId: Number(r.event_id), reservedUntil: toDate(r.reserved_until)! }));
}
