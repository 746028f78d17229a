import type { Knex } from "knex";
import type { Db } from "../../db/knex.ts";
import type { JobQueue } from "../../db/jobQueue.ts";
import * as repo from "../waitlist/repository.ts";

/** The offer queues of this process: placesFreed wakes them once its transaction commits (a hint; the timer is the net). */
export const offerQueues = new Set<JobQueue>();

/**
 * THE call for every place that frees places at an event (a hold that lapsed, a registration canceled or refunded,
 * capacity raised): in the caller's transaction, when anyone is in line, it asks for an offer round at the event;
 * the round runs in the job queue once that transaction commits (never inside it). Cheap when nobody waits.
 */
export async function placesFreed(conn: Db | Knex.Transaction, eventId: number): Promise<void> {
  if (!(await repo.hasLine(conn, eventId))) return;
  await repo.insertJob(conn, eventId, new Date());
  const committed = (conn as Knex.Transaction).isTransaction ? (conn as Knex.Transaction).executionPromise : Promise.resolve();
  committed.then(
    () => offerQueues.forEach((q) => q.wake()),
    () => undefined,
  );
}

