import type { Knex } from "knex";
import { isMysql } from "./dialect.ts";

/**
 * Transactions begun inside the server: a stored procedure whose first statement is START TRANSACTION (`begin_hold`)
 * is sent instead of knex's BEGIN, so that BEGIN and the transaction's first statements cost one round trip. Given as
 * `{ beginWith }` in the transaction's config; `rows` is what the procedure answered, set before the work runs.
 * MySQL only (createDb installs it there); elsewhere the config is ignored, so callers pass it on MySQL alone.
 */
export interface ServerBegin {
  sql: string;
  bindings: unknown[];
  rows?: Record<string, unknown>[];
}

/** knex's transaction object (knex/lib/execution/transaction.js, 3.x): what beginning one differently needs. */
interface KnexTransaction {
  trxClient: { query(conn: unknown, q: { sql: string; bindings: unknown[] } | string): Promise<{ response: unknown }> };
  begin(conn: unknown): Promise<unknown>;
}

/**
 * createDb (MySQL): a transaction given `beginWith` sends that call in place of BEGIN. Should it fail, a ROLLBACK ends
 * whatever it began (a lock wait timeout leaves the transaction open) and the transaction fails with its error
 * before the work runs, as when BEGIN fails.
 */
export function beginInServerWhenAsked(db: Knex): void {
  const client = db.client as { transaction(...args: unknown[]): KnexTransaction };
  const make = client.transaction.bind(client);
  client.transaction = (...args: unknown[]) => {
    const trx = make(...args);
    const begin = (args[1] as { beginWith?: ServerBegin } | undefined)?.beginWith;
    if (!begin) return trx;
    trx.begin = async (conn) => {
      try {
        const { response } = await trx.trxClient.query(conn, { sql: begin.sql, bindings: begin.bindings });
        // A CALL answers its SELECT's rows, then the call's own status.
        begin.rows = ((response as unknown[][])[0]?.[0] ?? []) as Record<string, unknown>[];
      } catch (err) {
        await trx.trxClient.query(conn, "ROLLBACK;").catch(() => undefined);
        throw err;
      }
    };
    return trx;
  };
}

/** Whether `db` begins transactions given `beginWith` in the server (MySQL), or ignores it. */
export function beginsInServer(db: { client: unknown }): boolean {
  return isMysql(db);
}
