import type { Knex } from "knex";

/**
 * Rule: `lockForUpdate` is the FIRST statement of its transaction, and the decision (a count of holds,
 * a stock level, a payment's status) is read after it, inside the same transaction.
 *
 * - MySQL/MariaDB: `SELECT ... FOR UPDATE` on the row. Under REPEATABLE READ a plain read before it
 *   would fix the transaction's snapshot earlier, and the count after the lock would miss rows that
 *   the previous lock holder committed: two holds for one place. Hence "first statement".
 * - SQLite (the single-process embedded default): knex compiles `forUpdate()` to nothing. The pool has
 *   one connection and a knex transaction keeps it from BEGIN to COMMIT, so every other transaction and
 *   query of the process waits for it: the transaction itself is the lock. That holds for one process
 *   only; running several app instances needs MySQL.
 *
 * Returns the locked row, or undefined when there is no row with that id.
 */
export async function lockForUpdate(trx: Knex.Transaction, table: string, id: number): Promise<Record<string, unknown> | undefined> {
  const txid = await transactionId(trx);
  if (txid && statementsRun.has(txid)) {
    throw new Error(`lockForUpdate(${table}) must be the first statement of its transaction`);
  }
  return trx<Record<string, unknown>>(table).where({ id }).forUpdate().first();
}

/** Transactions (by knex's txid) that have run a statement other than BEGIN; forgotten at COMMIT/ROLLBACK. */
const statementsRun = new Set<string>();

/** knex marks a transaction's connection with the id that its query events carry. */
async function transactionId(trx: Knex.Transaction): Promise<string | undefined> {
  const connection = (await (trx.client as Knex.Client).acquireConnection()) as { __knexTxId?: string };
  return connection.__knexTxId;
}

/** A transaction that ended without a COMMIT or ROLLBACK of knex's (src/db/serverCommits.ts). */
export function transactionEnded(txid: string): void {
  statementsRun.delete(txid);
}

/** createDb calls this once per database: it lets lockForUpdate check that it runs first. */
export function trackTransactionStatements(db: Knex): void {
  db.on("query", (q: { __knexTxId?: string; sql?: string }) => {
    const txid = q.__knexTxId;
    if (!txid) return;
    const sql = (q.sql ?? "").trim().toUpperCase();
    if (sql.startsWith("BEGIN") || sql.startsWith("START TRANSACTION") || sql.startsWith("SET TRANSACTION")) return;
    if (sql.startsWith("COMMIT") || sql.startsWith("ROLLBACK")) statementsRun.delete(txid);
    else statementsRun.add(txid);
  });
}
