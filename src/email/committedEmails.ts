import type { Knex } from "knex";
import type { CommittedJobs, JobRow } from "../db/jobQueue.ts";

/**
 * E-mails this process queued, kept as written from the moment their transaction commits until the outbox of the
 * same database is woken: it claims each by id (attempts 0) and sends what it holds, without looking for due rows
 * or reading the row back, and without racing the other instances for rows they queued.
 * Keyed by the knex instance's configuration, which its transactions share.
 */
interface Waiting {
  rows: JobRow[];
  /** Something was queued whose id is not known here (several rows in one INSERT, a nested transaction). */
  unlisted: boolean;
}

/** Beyond this (nobody wakes the outbox, e.g. an operator's command), the oldest are left to a pass over due rows. */
const KEPT = 200;

const waiting = new WeakMap<object, Waiting>();

function waitingFor(db: Knex | Knex.Transaction): Waiting {
  const key = (db.client as { config: object }).config;
  let w = waiting.get(key);
  if (!w) waiting.set(key, (w = { rows: [], unlisted: false }));
  return w;
}

/**
 * Called right after the INSERT: the row is handed over once the transaction commits (a rolled-back one hands nothing
 * over; on SQLite its id may be taken again by another e-mail). In a nested transaction the commit that counts is the
 * outermost's, so the row is only marked as unlisted: the next wake looks for due rows as before.
 */
export function noteQueued(trx: Knex | Knex.Transaction, row: JobRow | undefined): void {
  const w = waitingFor(trx);
  const hand = () => {
    if (!row) w.unlisted = true;
    else if (w.rows.push(row) > KEPT) {
      w.rows.shift();
      w.unlisted = true;
    }
  };
  if (!trx.isTransaction) hand();
  else if ((trx as Knex.Transaction).parentTransaction) w.unlisted = true;
  else (trx as Knex.Transaction).executionPromise.then(hand, () => undefined);
}

/** The outbox's side: what was handed over since the last call. */
export function takeCommitted(db: Knex): CommittedJobs {
  const w = waitingFor(db);
  const taken = { rows: w.rows, unlisted: w.unlisted };
  w.rows = [];
  w.unlisted = false;
  return taken;
}
