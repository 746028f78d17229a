import type { Knex } from "knex";
import type { Db } from "./knex.ts";
import { lockingTransaction } from "./transaction.ts";
import { timeLockedWork } from "./queryLog.ts";
import type { ServerBegin } from "./serverBegins.ts";

/**
 * Transactions that will wait for the same row lock run one at a time in this process. The database lock decides
 * (and is what makes several instances safe); queueing here first keeps a crowd's requests from each holding a
 * pooled connection while they wait for that lock, which would starve the pool and turn an answer into a 503.
 * `key` names the contended row, e.g. `event:2` (src/registrations/core/locks.ts: the aggregate's first lock).
 */
export function queuedLockingTransaction<T>(
  db: Db,
  key: string,
  work: (trx: Knex.Transaction) => Promise<T>,
  opts: { atHead?: () => Promise<void>; beginWith?: ServerBegin } = {},
): Promise<T> {
  const queued = performance.now();
  return oneAtATime(db, key, async () => {
    // A request may give up at the head of the queue (its answer no longer needs the lock), before any connection is taken.
    await opts.atHead?.();
    return timeLockedWork(key, performance.now() - queued, () => lockingTransaction(db, work, opts.beginWith && { beginWith: opts.beginWith }));
  });
}

const queuesByDb = new WeakMap<Db, Map<string, Promise<void>>>();
function oneAtATime<T>(db: Db, key: string, work: () => Promise<T>): Promise<T> {
  let queues = queuesByDb.get(db);
  if (!queues) queuesByDb.set(db, (queues = new Map<string, Promise<void>>()));
  const previous = queues.get(key) ?? Promise.resolve();
  const run = previous.then(work);
  const tail = run.then(
    () => undefined,
    () => undefined,
  );
  const all = queues;
  all.set(key, tail);
  void tail.then(() => {
    if (all.get(key) === tail) all.delete(key);
  });
  return run;
}
