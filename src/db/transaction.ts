import type { Knex } from "knex";
import type { Db } from "./knex.ts";
import type { ServerBegin } from "./serverBegins.ts";

/** How often a transaction that lost a deadlock or waited too long for a lock is run again before the error stands. */
export const CONTENTION_ATTEMPTS = 4;

/** MySQL/MariaDB's deadlock (1213) and lock wait timeout (1205); SQLite's busy database. */
export function isContention(err: unknown): boolean {
  const e = err as { errno?: number; code?: string };
  return e?.errno === 1213 || e?.errno === 1205 || e?.code === "ER_LOCK_DEADLOCK" || e?.code === "ER_LOCK_WAIT_TIMEOUT" || e?.code === "SQLITE_BUSY";
}

/**
 * Thrown by a locking transaction's work that found, under the locks it took, that it needs one it may not take now
 * (an earlier one in the lock order): the transaction is rolled back and run again from the start, where the work,
 * told by its own state, takes every lock in order.
 */
export class RestartTransaction extends Error {}

/**
 * A transaction that decides on locked rows: READ COMMITTED on MySQL (every connection's level, set when it is
 * made: src/db/knex.ts), so that a row read after its lock is the row as last committed (under REPEATABLE READ a
 * read can return the snapshot taken before the lock was granted), and run again from the start, a few times, when
 * the database picked it as a deadlock's victim or its lock wait timed out. `work` must therefore do nothing outside
 * the database that a second run would repeat. `config.beginWith`: begun by a stored procedure (src/db/serverBegins.ts).
 */
export async function lockingTransaction<T>(db: Db, work: (trx: Knex.Transaction) => Promise<T>, config?: Knex.TransactionConfig & { beginWith?: ServerBegin }): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await db.transaction(work, config);
    } catch (err) {
      if (err instanceof RestartTransaction && attempt < CONTENTION_ATTEMPTS) continue;
      if (!isContention(err) || attempt >= CONTENTION_ATTEMPTS) throw err;
      await new Promise((resolve) => setTimeout(resolve, 5 + Math.random() * 20 * attempt));
    }
  }
}
