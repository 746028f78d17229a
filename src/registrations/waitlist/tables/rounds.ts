import type { Knex } from "knex";
import { toDate } from "../../../db/rows.ts";
import type { Conn, Row } from "../../core/tables/rows.ts";

/**
 * Offer rounds: the registrations an offer holds (waiting_list_holds), the round jobs (waiting_list_jobs, worked by
 * src/db/jobQueue.ts) and an operator's new capacity that may start one.
 */
export async function linkHold(trx: Knex.Transaction, entryId: number, registrationId: number, placeNumber: number): Promise<void> {
  await trx("waiting_list_holds").insert({ entry_id: entryId, registration_id: registrationId, place_number: placeNumber });
}

/** The registrations an offer holds, by place number, with their places, status and hold. */
export async function holdsOf(conn: Conn, entryId: number): Promise<{ placeNumber: number; registrationId: number; reference: string; places: number; status: string; reservedUntil: Date | null }[]> {
  const rows: Row[] = await conn("waiting_list_holds as h")
    .join("registrations as r", "r.id", "h.registration_id")
    .where("h.entry_id", entryId)
    .orderBy("h.place_number")
    .select("h.place_number", "r.id", "r.reference", "r.places", "r.status", "r.reserved_until");
  return rows.map((r) => ({ placeNumber: Number(r.place_number), registrationId: Number(r.id), reference: String(r.reference), places: Number(r.places), status: String(r.status), reservedUntil: toDate(r.reserved_until) }));
}

/**
 * Whether the registration is a waiting-list offer's (read under its lock): an individual one keeps the places it was
 * offered (an athlete and its siblings on one form; src/registrations/booking/hold.ts refuses another count).
 */
export async function isOfferHold(conn: Conn, registrationId: number): Promise<boolean> {
  return (await conn("waiting_list_holds").where({ registration_id: registrationId }).first("entry_id")) !== undefined;
}

/** The places a waiting-list offer's individual registration holds, by its form's id; undefined for any other form. */
export async function offeredAthletes(conn: Conn, formSessionId: string): Promise<number | undefined> {
  const row: Row | undefined = await conn("waiting_list_holds as h")
    .join("registrations as r", "r.id", "h.registration_id")
    .where({ "r.form_session_id": formSessionId, "r.kind": "individual" })
    .first("r.places");
  return row ? Number(row.places) : undefined;
}

/** Offer rounds done before `before` (they record nothing else). */
export async function deleteSentJobs(conn: Conn, before: Date): Promise<void> {
  await conn("waiting_list_jobs").where("status", "sent").andWhere("sent_at", "<", before).delete();
}

/** Events where someone is in line or holds an offer and no offer round is pending or running. */
export async function eventsNeedingRound(conn: Conn): Promise<number[]> {
  const rows: { event_id: unknown }[] = await conn("waiting_list_entries as w")
    .whereIn("w.status", ["waiting", "offered"])
    .whereNotExists((q) => { q.select(conn.raw("1")).from("waiting_list_jobs as j").whereRaw("j.event_id = w.event_id").whereIn("j.status", ["pending", "sending"]); })
    .distinct("w.event_id");
  return rows.map((r) => Number(r.event_id));
}

/** Whether an offer round is asked for at the event and not yet run. */
export async function roundPending(conn: Conn, eventId: number): Promise<boolean> {
  return (await conn("waiting_list_jobs").where({ event_id: eventId, status: "pending" }).first("id")) !== undefined;
}

/** An operator's new capacity for the event (decided under the event's lock: src/registrations/waitlist/capacity.ts). */
export async function setEventCapacity(trx: Knex.Transaction, eventId: number, capacity: number): Promise<void> {
  await trx("events").where({ id: eventId }).update({ capacity });
}
