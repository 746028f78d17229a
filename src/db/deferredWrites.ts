import type { Knex } from "knex";
import mysql from "mysql2";
import { isMysql } from "./dialect.ts";

/**
 * Writes a transaction sends with the statement that ends it (MySQL): a write whose answer nobody needs and that
 * nothing in the transaction reads back (a hold's athletes and days, a settlement's manage link) costs no round trip
 * of its own. It goes, as SQL text, in the call that ends the transaction: a hold's admission (`admit_places_then`,
 * src/events/places.ts: admitPlaces; a refused hold never sends it) or, in place of knex's COMMIT, `commit_then`
 * (src/db/serverCommits.ts). Formatted as mysql2 formats a query's values on this connection (its time zone), so the
 * server gets the same text. A transaction defers only when told (`deferWrites`); SQLite writes at once.
 */
const deferred = new WeakMap<object, string[]>();

/** From here on, `writeDeferred` in this transaction defers its writes to the statement that ends it (MySQL). */
export function deferWrites(trx: Knex.Transaction): void {
  if (isMysql(trx) && !deferred.has(trx)) deferred.set(trx, []);
}

/** Sends `query` now, or defers it to the end of the transaction when it was told to (`deferWrites`). */
export async function writeDeferred(conn: Knex | Knex.Transaction, query: Knex.QueryBuilder): Promise<void> {
  const writes = deferred.get(conn);
  if (!writes) {
    await query;
    return;
  }
  const { sql, bindings } = query.toSQL().toNative();
  const timezone = ((conn.client as Knex.Client).config.connection as { timezone?: string } | undefined)?.timezone ?? "local";
  writes.push(mysql.format(sql, bindings as Parameters<typeof mysql.format>[1], false, timezone));
}

/** The writes deferred so far, in order, as a JSON array of SQL texts (what the procedures take); none are deferred after. */
export function takeDeferredWrites(trx: object): string {
  const writes = deferred.get(trx) ?? [];
  deferred.delete(trx);
  return JSON.stringify(writes);
}

/** Whether writes wait for the end of this transaction. */
export function hasDeferredWrites(trx: object): boolean {
  return (deferred.get(trx)?.length ?? 0) > 0;
}
