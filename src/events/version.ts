import type { Knex } from "knex";
import type { RequestHandler } from "express";
import type { Db } from "../db/knex.ts";

/**
 * The events' version stamp (`content_versions`, row `events`): a change of an event made outside the app's own
 * writes (an operator's command) bumps it in the change's transaction, and every app instance compares it, one
 * primary-key read, before it serves what it kept (the event cache and kept pages), so the change shows on every
 * instance at its next request instead of after EVENT_CACHE_MS.
 */
const ROW = { name: "events" } as const;

export async function bumpEventsVersion(trx: Knex.Transaction): Promise<void> {
  await trx("content_versions").where(ROW).increment("version", 1);
}

export async function eventsVersion(db: Db): Promise<number> {
  const row: { version: number | string } | undefined = await db("content_versions").where(ROW).first("version");
  return Number(row?.version ?? 0);
}

/**
 * Before kept data is served: a version newer than the one this instance last saw empties its caches (`stale`).
 * When the database cannot be read the request goes on: it answers from what is kept, or fails as any read would.
 */
export function eventsVersionCheck(db: Db, stale: () => void): RequestHandler {
  let seen: number | undefined;
  return async (_req, _res, next) => {
    try {
      const version = await eventsVersion(db);
      if (seen !== undefined && version > seen) stale();
      if (seen === undefined || version > seen) seen = version;
    } catch {
      // the read that follows reports the database's failure
    }
    next();
  };
}
