import type { Knex } from "knex";
import mysql from "mysql2";
import { isMysql } from "./dialect.ts";

/**
 * Writes a transaction sends with its admission (MySQL): a hold's athletes and days need no answer and nothing in the
 * hold reads them back, so instead of a round trip each they go, as SQL texts, in the call that takes the event's
 * places and COMMITs (`admit_places_then`, src/events/places.ts: admitPlaces), and a refused hold never sends them.
 * Formatted as mysql2 formats a query's values on this connection (its time zone), so the server gets the same text.
 * Only a transaction that ends with `admitPlaces` may defer (`deferToAdmission`); one that reaches knex's COMMIT with
 * writes still deferred fails and is rolled back (src/db/serverCommits.ts). SQLite: written at once.
 */
const deferred = new WeakMap<object, string[]>();

/** From here on, `writeWithAdmission` in this transaction defers its writes to the admission (MySQL). */
export function deferToAdmission(trx: Knex.Transaction): void {
  if (isMysql(trx)) deferred.set(trx, []);
}

/** Sends `query` now, or defers it to the transaction's admission when it was told to. */
export async function writeWithAdmission(trx: Knex.Transaction, query: Knex.QueryBuilder): Promise<void> {
  const writes = deferred.get(trx);
  if (!writes) {
    await query;
    return;
  }
  const { sql, bindings } = query.toSQL().toNative();
  const timezone = ((trx.client as Knex.Client).config.connection as { timezone?: string } | undefined)?.timezone ?? "local";
  writes.push(mysql.format(sql, bindings as Parameters<typeof mysql.format>[1], false, timezone));
}

/** The writes deferred so far, in order; the transaction defers no more. */
export function takeDeferredWrites(trx: Knex.Transaction): string[] {
  const writes = deferred.get(trx) ?? [];
  deferred.delete(trx);
  return writes;
}

/** Whether writes wait for an admission that has not come (the transaction must not commit). */
export function hasDeferredWrites(trx: object): boolean {
  return (deferred.get(trx)?.length ?? 0) > 0;
}
