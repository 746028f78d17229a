import { offerQueues as queues, requestOfferRound } from "../core/placesFreed.ts";
import { createJobQueue, type JobQueue } from "../../db/jobQueue.ts";
import { deleteLapsedRequests } from "./tables/requests.ts";
import { deleteSentJobs, eventsNeedingRound } from "./tables/rounds.ts";
import type { WaitingListDeps } from "./deps.ts";
import { offerRound } from "./offers.ts";

/** The job queue that runs offer rounds (one row per round asked for: placesFreed). */
export function createOfferQueue(deps: WaitingListDeps, intervalMs?: number): JobQueue {
  const queue = createJobQueue({
    db: deps.db,
    logger: deps.logger,
    table: "waiting_list_jobs",
    name: "waiting-list",
    intervalMs,
    describe: (row) => ({ jobId: row.id, eventId: row.event_id }),
    async run(row) {
      await offerRound(deps, Number(row.event_id));
    },
  });
  queues.add(queue);
  return {
    ...queue,
    async stop() {
      queues.delete(queue);
      await queue.stop();
    },
  };
}

/**
 * The minute's net (server.ts, with the hold sweep): a round is asked for at every event where someone is in line
 * or holds an offer and no round is pending, so an offer that ended, places an operator freed in the database,
 * or a missed wake are dealt with within a minute. Harmless when several instances do it. Rounds done a day ago are
 * deleted (they record nothing else), and so are requests to join never confirmed whose link lapsed a day ago.
 */
export async function askForDueRounds(deps: Pick<WaitingListDeps, "db" | "clock">): Promise<number> {
  const db = deps.db;
  const dayAgo = new Date(deps.clock().getTime() - 86_400_000);
  await deleteSentJobs(db, dayAgo);
  await deleteLapsedRequests(db, dayAgo);
  const events = await eventsNeedingRound(db);
  for (const eventId of events) await requestOfferRound(db, eventId, deps.clock());
  if (events.length > 0) queues.forEach((q) => q.wake());
  return events.length;
}
