import type { Knex } from "knex";
import type { Db } from "./knex.ts";
import { DomainError } from "../errors.ts";
import { lockingTransaction } from "./transaction.ts";
import { asRequest, currentRequest, timeLockedBatch, timeLockedWork, type RequestHandle } from "./queryLog.ts";

/**
 * Transactions that will wait for the same row lock run one at a time in this process. The database lock decides
 * (and is what makes several instances safe); queueing here first keeps a crowd's requests from each holding a
 * pooled connection while they wait for that lock, which would starve the pool and turn an answer into a 503.
 * `key` names the contended row, e.g. `event:2` (src/registrations/core/repository.ts: the aggregate's first lock).
 */
export function queuedLockingTransaction<T>(
  db: Db,
  key: string,
  work: (trx: Knex.Transaction) => Promise<T>,
  opts: { atHead?: () => Promise<void> } = {},
): Promise<T> {
  const queued = performance.now();
  return oneAtATime(db, key, async () => {
    // A request may give up at the head of the queue (its answer no longer needs the lock), before any connection is taken.
    await opts.atHead?.();
    return timeLockedWork(key, performance.now() - queued, () => lockingTransaction(db, work));
  });
}

/** The most queued works one batch decides (one transaction holding the row lock for all of them). */
export const BATCH_LIMIT = 32;

interface Queued {
  work: (trx: Knex.Transaction) => Promise<unknown>;
  lock: (trx: Knex.Transaction) => Promise<unknown>;
  atHead?: () => Promise<void>;
  queued: number;
  request: RequestHandle;
  resolve(value: unknown): void;
  reject(err: unknown): void;
}
interface Batches {
  waiting: Queued[];
  /** A batch is in this key's queue and has not taken its works yet: a work arriving now joins it. */
  scheduled: boolean;
}
const batchesByDb = new WeakMap<Db, Map<string, Batches>>();

/**
 * queuedLockingTransaction for a crowd's works on one row (holds at an event's opening): group commit. While one
 * batch holds the lock, the works arriving for the same key wait; the next batch takes them all (at most BATCH_LIMIT)
 * and runs them in ONE locking transaction whose first statement, `lock`, locks the row. Each work runs in its own
 * savepoint, in arrival order, and sees the earlier works' writes: a work that throws a DomainError (sold out, a cap)
 * rolls back only its own writes and gets its own answer. A deadlock, a lock wait timeout or a RestartTransaction
 * aborts the whole transaction and lockingTransaction runs the whole batch again (so each work, as for
 * lockingTransaction, does nothing outside the database that a second run would repeat); any other error fails
 * every work of the batch with it. Batches share the key's queue with queuedLockingTransaction's transactions.
 */
export function batchedLockingTransaction<T>(
  db: Db,
  key: string,
  lock: (trx: Knex.Transaction) => Promise<unknown>,
  work: (trx: Knex.Transaction) => Promise<T>,
  opts: { atHead?: () => Promise<void> } = {},
): Promise<T> {
  let all = batchesByDb.get(db);
  if (!all) batchesByDb.set(db, (all = new Map<string, Batches>()));
  let batches = all.get(key);
  if (!batches) all.set(key, (batches = { waiting: [], scheduled: false }));
  const b = batches;
  return new Promise<T>((resolve, reject) => {
    b.waiting.push({ work, lock, atHead: opts.atHead, queued: performance.now(), request: currentRequest(), resolve, reject });
    if (!b.scheduled) scheduleBatch(db, key, b);
  });
}

/** How many works wait for the key's next batch (tests wait on it to know a crowd is queued). */
export function waitingForBatch(db: Db, key: string): number {
  return batchesByDb.get(db)?.get(key)?.waiting.length ?? 0;
}

function scheduleBatch(db: Db, key: string, b: Batches): void {
  b.scheduled = true;
  // Outside any request: the batch runs as its works' requests (timeLockedBatch), not as the one that scheduled it.
  void asRequest(undefined, () =>
    oneAtATime(db, key, async () => {
      b.scheduled = false;
      const taken = b.waiting.splice(0, BATCH_LIMIT);
      if (b.waiting.length > 0) scheduleBatch(db, key, b);
      await runBatch(db, key, taken);
    }),
  );
}

async function runBatch(db: Db, key: string, taken: Queued[]): Promise<void> {
  // Each work may give up at the head of the queue (its answer no longer needs the lock), before any connection is taken.
  const heads = await Promise.allSettled(taken.map((q) => q.atHead?.() ?? Promise.resolve()));
  const batch = taken.filter((q, i) => {
    const head = heads[i]!;
    if (head.status === "rejected") q.reject(head.reason);
    return head.status === "fulfilled";
  });
  if (batch.length === 0) return;
  const now = performance.now();
  try {
    const outcomes = await timeLockedBatch(
      key,
      batch.map((q) => ({ request: q.request, queuedMs: now - q.queued })),
      () =>
        lockingTransaction(db, async (trx) => {
          await batch[0]!.lock(trx);
          const results: ({ ok: true; value: unknown } | { ok: false; err: DomainError })[] = [];
          for (const q of batch) results.push(await inSavepoint(trx, q));
          return results;
        }),
    );
    outcomes.forEach((o, i) => (o.ok ? batch[i]!.resolve(o.value) : batch[i]!.reject(o.err)));
  } catch (err) {
    for (const q of batch) q.reject(err);
  }
}

/** One work in its own savepoint: its DomainError is its answer (its writes undone); any other error ends the batch. */
async function inSavepoint(trx: Knex.Transaction, q: Queued): Promise<{ ok: true; value: unknown } | { ok: false; err: DomainError }> {
  let thrown: { err: unknown } | undefined;
  try {
    const value = await trx.transaction((savepoint) =>
      asRequest(q.request, async () => {
        try {
          return await q.work(savepoint);
        } catch (err) {
          thrown = { err };
          throw err;
        }
      }),
    );
    return { ok: true, value };
  } catch (err) {
    // The work's own error, even when rolling back to the savepoint failed too (a deadlock already ended the transaction).
    const cause = thrown ? thrown.err : err;
    if (cause instanceof DomainError) return { ok: false, err: cause };
    throw cause;
  }
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
