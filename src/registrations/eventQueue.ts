import type { Knex } from "knex";
import type { Db } from "../db/knex.ts";
import { lockingTransaction } from "../db/transaction.ts";

/** A locking transaction of the aggregate on one event (lock order: repository.ts), queued behind this process's others on that event. */
export function inEventQueue<T>(db: Db, eventId: number, work: (trx: Knex.Transaction) => Promise<T>): Promise<T> {
  return oneAtATime(db, eventId, () => lockingTransaction(db, work));
}

/**
 * The aggregate's transactions on one event run one at a time in this process. The database lock decides (and is
 * what makes several instances safe); queueing here first keeps a crowd's requests from each holding a pooled
 * connection while they wait for the event's lock, which would starve the pool and turn an answer into a 503.
 */
const queuesByDb = new WeakMap<Db, Map<number, Promise<void>>>();
function oneAtATime<T>(db: Db, eventId: number, work: () => Promise<T>): Promise<T> {
  let holdQueues = queuesByDb.get(db);
  if (!holdQueues) queuesByDb.set(db, (holdQueues = new Map()));
  const queues = holdQueues;
  const previous = queues.get(eventId) ?? Promise.resolve();
  const run = previous.then(work);
  const tail = run.then(
    () => undefined,
    () => undefined,
  );
  queues.set(eventId, tail);
  void tail.then(() => {
    if (queues.get(eventId) === tail) queues.delete(eventId);
  });
  return run;
}
