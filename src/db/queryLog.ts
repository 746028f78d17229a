import { AsyncLocalStorage } from "node:async_hooks";
import type { RequestHandler } from "express";
import type { Db } from "./knex.ts";

/**
 * The per-request query log. In every mode: a request that took a contended row lock (src/db/rowQueue.ts, e.g. an
 * event's on opening day) logs one "row lock" line at info with its queries outside and inside the locked
 * transactions and the time it spent queued in this process, waiting for the lock, and holding it. In development
 * also each request's number of queries at debug level, and a warning for each SQL text the request ran more than
 * once (the text only: values can be e-mail addresses). Repeats are counted outside transactions and within each
 * transaction apart, since a read repeated under a lock is on purpose.
 */

interface RequestQueries {
  count: number;
  /** Queries run inside locking transactions (src/db/rowQueue.ts), and those transactions' times. */
  locked: { queries: number; transactions: number; queuedMs: number; lockWaitMs: number; heldMs: number; key: string; batch: number };
  /** Per scope (a transaction id, or '' outside transactions): how often each SQL text ran (development only). */
  runs: Map<string, number> | undefined;
  done: boolean;
}

const current = new AsyncLocalStorage<RequestQueries>();
/** Set while a locking transaction's work runs: its queries count as under the lock; the first answer marks the lock taken. */
const underLock = new AsyncLocalStorage<{ locked(): void }>();
const counted = new WeakSet<Db>();

const TRANSACTION_CONTROL = /^\s*(begin|commit|rollback|savepoint|release savepoint|start transaction|set transaction)\b/i;

/** Counts `db`'s queries against the request that runs them (once per database, however many apps use it). */
export function countRequestQueries(db: Db): void {
  if (counted.has(db)) return;
  counted.add(db);
  db.on("query", (q: { sql?: string; __knexTxId?: string }) => {
    const request = current.getStore();
    if (!request || request.done || !q.sql) return;
    request.count += 1;
    if (underLock.getStore()) request.locked.queries += 1;
    if (!request.runs || TRANSACTION_CONTROL.test(q.sql)) return;
    const key = `${q.__knexTxId ?? ""}\u0000${q.sql}`;
    request.runs.set(key, (request.runs.get(key) ?? 0) + 1);
  });
  db.on("query-response", (_response: unknown, q: { sql?: string }) => {
    const scope = underLock.getStore();
    if (scope && q.sql && !TRANSACTION_CONTROL.test(q.sql)) scope.locked();
  });
}

/** The middleware: logs through the request's logger when the response is finished. `development` adds the debug count and repeat warnings. */
export function queryLog(opts: { development: boolean }): RequestHandler {
  return (req, res, next) => {
    const request: RequestQueries = { count: 0, locked: { queries: 0, transactions: 0, queuedMs: 0, lockWaitMs: 0, heldMs: 0, key: "", batch: 0 }, runs: opts.development ? new Map() : undefined, done: false };
    res.once("finish", () => {
      request.done = true;
      const l = request.locked;
      if (l.transactions > 0) {
        const ms = (n: number) => Math.round(n * 10) / 10;
        req.log.info(
          {
            route: `${req.method} ${(req.route as { path?: string } | undefined)?.path ?? ""}`,
            lock: l.key,
            queries: { outside: request.count - l.queries, inside: l.queries },
            transactions: l.transactions,
            // 1: each locking transaction decides one request (holds are no longer batched; the bench still reads the field).
            batch: l.batch,
            ms: { queued: ms(l.queuedMs), lockWait: ms(l.lockWaitMs), held: ms(l.heldMs) },
          },
          "row lock",
        );
      }
      if (!opts.development) return;
      req.log.debug({ queries: request.count }, "database queries");
      for (const [key, times] of request.runs!) {
        if (times > 1) req.log.warn({ sql: key.slice(key.indexOf("\u0000") + 1), times }, "the same query ran more than once in one request");
      }
    });
    current.run(request, next);
  };
}

/**
 * Runs a locking transaction with its times told to the request's log: `queuedMs` in this process's queue before it
 * started; its first statement takes the lock (the time to its answer is the wait for it, BEGIN included), and from
 * there to the end of the work (the commit included) the lock is held.
 */
export async function timeLockedWork<T>(key: string, queuedMs: number, work: () => Promise<T>): Promise<T> {
  const request = current.getStore();
  if (!request || request.done) return work();
  const started = performance.now();
  let lockedAt: number | undefined;
  request.locked.transactions += 1;
  request.locked.queuedMs += queuedMs;
  request.locked.key = key;
  request.locked.batch = Math.max(request.locked.batch, 1);
  try {
    return await underLock.run({ locked: () => void (lockedAt ??= performance.now()) }, work);
  } finally {
    const end = performance.now();
    request.locked.lockWaitMs += (lockedAt ?? end) - started;
    request.locked.heldMs += end - (lockedAt ?? end);
  }
}

/** Runs work that a request starts but that is not the request's own (a job queue's drain), outside its count. */
export function outsideRequest<T>(work: () => T): T {
  return current.exit(work);
}
