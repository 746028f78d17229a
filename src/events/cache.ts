import type { Db } from "../db/knex.ts";
import { onCommittedWrites } from "../db/committedWrites.ts";
import { createTtlCache, type TtlCache } from "../cache/ttl.ts";

/**
 * How long pages may show event data and places left read by an earlier request. Short enough that another
 * instance's change (a price edited, a place taken there) shows within seconds, which no visitor filling a form
 * notices; long enough that a busy page reads the database once per interval instead of on every request.
 * Writes made by this process invalidate at once (after their commit). Capacity is never decided from it.
 */
export const EVENT_CACHE_MS = 5_000;

export const EVENT_TABLES = ["events", "event_packages", "event_days", "event_college_logos", "event_coaches"] as const;

export interface EventCaches {
  /** Events as stored: the listing and each event's detail. */
  events: TtlCache;
  /** Places taken per event (registrations); the capacities come with the events. */
  places: TtlCache;
}

const cachesByDb = new WeakMap<Db, EventCaches>();

/** The caches of one database (tests run several apps, each on its own). */
export function eventCaches(db: Db): EventCaches {
  let caches = cachesByDb.get(db);
  if (!caches) {
    caches = { events: createTtlCache({ ttlMs: EVENT_CACHE_MS }), places: createTtlCache({ ttlMs: EVENT_CACHE_MS }) };
    const { events, places } = caches;
    onCommittedWrites(db, EVENT_TABLES, () => events.invalidate());
    onCommittedWrites(db, ["registrations", "waiting_list_entries"], () => places.invalidate());
    cachesByDb.set(db, caches);
  }
  return caches;
}
