import type { Knex } from "knex";
import { transactionEnded } from "./locks.ts";
import { hasDeferredWrites, takeDeferredWrites } from "./deferredWrites.ts";

/**
 * Transactions whose last statement COMMITted or rolled back inside the server (a stored procedure:
 * `admit_places_then`): knex's own COMMIT or ROLLBACK after it would be a statement that does nothing, at the cost of
 * a round trip while the hold's request waits. And transactions with writes deferred to their end
 * (src/db/deferredWrites.ts): `commit_then` sends them with the COMMIT.
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
  trxClient: { query(conn: unknown, q: { sql: string; bindings: unknown[] }): Promise<unknown> };
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
    const rollback = trx.rollback.bind(trx);
    /** Ends the transaction as knex does after its COMMIT (or ROLLBACK, given an error), without sending one. */
    const ended = (value: unknown, error?: Error) => {
      trx._completed = true;
      transactionEnded(trx.txid);
      if (error) trx._rejecter(error);
      else trx._resolver(value);
    };
    trx.commit = (connection, value) => {
      const ender = trx.transactor;
      const rolledBack = ender !== undefined && rolledBackInServer.has(ender);
      const committed = ender !== undefined && committedInServer.has(ender);
      const deferred = ender !== undefined && hasDeferredWrites(ender);
      // Work that went on as if its transaction were open after the server rolled it back did not happen: it fails.
      if (rolledBack) ended(value, new Error("the transaction was rolled back inside the server; its work must throw"));
      // Committed inside the server by a statement that did not take them: they are lost, which is a bug.
      else if (committed) ended(value, deferred ? new Error("writes deferred to the end of a transaction that committed without them") : undefined);
      // Writes deferred to the end (src/db/deferredWrites.ts) go with the COMMIT, in one call; if one fails, all is rolled back.
      else if (deferred) {
        const then = takeDeferredWrites(ender);
        return trx.trxClient.query(connection, { sql: "call commit_then(?)", bindings: [then] }).then(() => ended(value), (err: unknown) => rollback(connection, err));
      } else return commit(connection, value);
      return Promise.resolve();
    };
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
