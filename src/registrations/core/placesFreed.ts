import type { Knex } from "knex";
import type { Db } from "../../db/knex.ts";
import type { JobQueue } from "../../db/jobQueue.ts";

/** The offer queues of this process: placesFreed wakes them once its transaction commits (a hint; the timer is the net). */
export const offerQueues = new Set<JobQueue>();

/**
 * THE call for every place that frees places at an event (a hold that lapsed, a registration canceled or refunded,
 * capacity raised): in the caller's transaction, when anyone is in line, it asks for an offer round at the event;
 * the round runs in the job queue once that transaction commits (never inside it). Cheap when nobody waits.
 */
export async function placesFreed(conn: Db | Knex.Transaction, eventId: number): Promise<void> {
  if (!(await hasLine(conn, eventId))) return;
  await requestOfferRound(conn, eventId, new Date());
  const committed = (conn as Knex.Transaction).isTransaction ? (conn as Knex.Transaction).executionPromise : Promise.resolve();
  committed.then(
    () => offerQueues.forEach((q) => q.wake()),
    () => undefined,
  );
}


/** Whether anyone is in line or holds an offer at the event (no round is asked for otherwise). */
async function hasLine(conn: Db | Knex.Transaction, eventId: number): Promise<boolean> {
  return !!(await conn("waiting_list_entries").where({ event_id: eventId }).whereIn("status", ["waiting", "offered"]).first("id"));
}

/** Asks for an offer round at the event (waiting_list_jobs; the waiting list's job queue runs it). */
export async function requestOfferRound(conn: Db | Knex.Transaction, eventId: number, now: Date): Promise<void> {
  await conn("waiting_list_jobs").insert({ event_id: eventId, status: "pending", attempts: 0, next_attempt_at: now, created_at: now });
}
