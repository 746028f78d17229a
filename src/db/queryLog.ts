import { AsyncLocalStorage } from "node:async_hooks";
import type { RequestHandler } from "express";
import type { Db } from "./knex.ts";

/**
 * Development's per-request query log: each request's number of queries at debug level, and a warning for each
 * SQL text the request ran more than once (the text only: values can be e-mail addresses). Repeats are counted
 * outside transactions and within each transaction apart, since a read repeated under a lock is on purpose.
 */

interface RequestQueries {
  count: number;
  /** Per scope (a transaction id, or '' outside transactions): how often each SQL text ran. */
  runs: Map<string, number>;
  done: boolean;
}

const current = new AsyncLocalStorage<RequestQueries>();
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
    if (TRANSACTION_CONTROL.test(q.sql)) return;
    const key = `${q.__knexTxId ?? ""}\u0000${q.sql}`;
    request.runs.set(key, (request.runs.get(key) ?? 0) + 1);
  });
}

/** The middleware: logs through the request's logger when the response is finished. */
export function queryLog(): RequestHandler {
  return (req, res, next) => {
    const request: RequestQueries = { count: 0, runs: new Map(), done: false };
    res.once("finish", () => {
      request.done = true;
      req.log.debug({ queries: request.count }, "database queries");
      for (const [key, times] of request.runs) {
        if (times > 1) req.log.warn({ sql: key.slice(key.indexOf("\u0000") + 1), times }, "the same query ran more than once in one request");
      }
    });
    current.run(request, next);
  };
}

/** Runs work that a request starts but that is not the request's own (a job queue's drain), outside its count. */
export function outsideRequest<T>(work: () => T): T {
  return current.exit(work);
}
