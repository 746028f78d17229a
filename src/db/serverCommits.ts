import type { Knex } from "knex";
import { transactionEnded } from "./locks.ts";
import { hasDeferredWrites } from "./deferredWrites.ts";

/**
 * Transactions whose last statement COMMITted or rolled back inside the server (a stored procedure:
 * `admit_places_then`): knex's own COMMIT or ROLLBACK after it would be a statement that does nothing, at the cost of
 * a round trip while the hold's request waits.
 */
const committedInServer = new WeakSet<object>();
const rolledBackInServer = new WeakSet<object>();

/** Called right after the statement that committed: the transaction is over; knex sends no COMMIT for it. */
export function committedByServer(trx: Knex.Transaction): void {
  committedInServer.add(trx);
}

/** Called right after the statement that rolled back: the transaction is over; the work must throw, and knex sends no ROLLBACK. */
export function rolledBackByServer(trx: Knex.Transaction): void {
  rolledBackInServer.add(trx);
}

/** knex's transaction object (knex/lib/execution/transaction.js, 3.x): what finishing one without a COMMIT needs. */
interface KnexTransaction {
  txid: string;
  transactor?: object;
  _completed: boolean;
  _resolver(value: unknown): void;
  _rejecter(error: unknown): void;
  commit(connection: unknown, value: unknown): Promise<unknown>;
  rollback(connection: unknown, error: unknown): Promise<unknown>;
}

/**
 * createDb (MySQL): a transaction marked `committedByServer` ends as knex ends it after its COMMIT (the transaction's
 * promise resolves with the work's value, the connection goes back to the pool), without sending the COMMIT; one
 * marked `rolledBackByServer` as after its ROLLBACK (the promise rejects with the work's error).
 */
export function skipCommitsDoneInServer(db: Knex): void {
  const client = db.client as { transaction(...args: unknown[]): KnexTransaction };
  const make = client.transaction.bind(client);
  client.transaction = (...args: unknown[]) => {
    const trx = make(...args);
    const commit = trx.commit.bind(trx);
    trx.commit = (connection, value) => {
      // Writes deferred to an admission that never came (src/db/deferredWrites.ts) would be lost: the transaction fails.
      if (trx.transactor && hasDeferredWrites(trx.transactor)) return trx.rollback(connection, new Error("writes deferred to an admission were never sent; the transaction is rolled back"));
      const rolledBack = trx.transactor !== undefined && rolledBackInServer.has(trx.transactor);
      if (!rolledBack && (!trx.transactor || !committedInServer.has(trx.transactor))) return commit(connection, value);
      trx._completed = true;
      transactionEnded(trx.txid);
      // Work that went on as if its transaction were open after the server rolled it back did not happen: it fails.
      if (rolledBack) trx._rejecter(new Error("the transaction was rolled back inside the server; its work must throw"));
      else trx._resolver(value);
      return Promise.resolve();
    };
    const rollback = trx.rollback.bind(trx);
    trx.rollback = (connection, error) => {
      if (!trx.transactor || !rolledBackInServer.has(trx.transactor)) return rollback(connection, error);
      trx._completed = true;
      transactionEnded(trx.txid);
      trx._rejecter(error);
      return Promise.resolve();
    };
    return trx;
  };
}
