import type { Knex } from "knex";
import type { RequestHandler } from "express";
import type { Db } from "../db/knex.ts";
import { onCommittedWrites } from "../db/committedWrites.ts";
import { redisAvailable, type Redis } from "../redis.ts";
import { subscribe } from "../redisSubscription.ts";
import type { Logger } from "../logger.ts";

/**
 * The events' version stamp (`content_versions`, row `events`): a change of an event made outside the app's own
 * writes (an operator's command) bumps it in the change's transaction. Once that transaction has committed, the
 * process that wrote it announces it over Redis (`announceEventsChanges`) and every app instance, subscribed,
 * empties its kept events and pages: the change shows at each instance's next request, and a kept page costs no
 * database round trip. Without a live subscription (no Redis, Redis down or not answering, the subscription being
 * made again) an instance reads the stamp instead, at most once per EVENTS_VERSION_POLL_MS, one read shared by all
 * the requests that arrive meanwhile.
 */
const ROW = { name: "events" } as const;

/** The longest an operator's change may take to show on an instance that cannot hear Redis. */
export const EVENTS_VERSION_POLL_MS = 250;

/** The Redis channel (under the instances' key prefix) that tells of a committed change of events. */
export const eventsChangedChannel = (prefix: string) => `${prefix}events-changed`;

export async function bumpEventsVersion(trx: Knex.Transaction): Promise<void> {
  await trx("content_versions").where(ROW).increment("version", 1);
}

export async function eventsVersion(db: Db): Promise<number> {
  const row: { version: number | string } | undefined = await db("content_versions").where(ROW).first("version");
  return Number(row?.version ?? 0);
}

/**
 * After each committed bump this process makes on `db`, `publish` tells the instances. `settled()` waits for the
 * announcements under way (a command awaits it before it exits). A failed announcement is logged; instances that
 * could not hear it read the stamp themselves, since their subscription is down too.
 */
export function announceEventsChanges(db: Db, publish: () => Promise<unknown>, logger: Logger): { settled(): Promise<void> } {
  const pending = new Set<Promise<void>>();
  onCommittedWrites(db, ["content_versions"], () => {
    const sent: Promise<void> = publish().then(
      () => undefined,
      (err: Error) => logger.warn({ err: err.message }, "events change not announced over redis; instances without it read the version"),
    );
    pending.add(sent);
    void sent.finally(() => pending.delete(sent));
  });
  return { settled: async () => void (await Promise.all([...pending])) };
}

export interface EventsVersionWatch {
  /** Before kept data is served: runs `stale` when another process changed events since this instance last knew. */
  check: RequestHandler;
  /** True while the subscription is live and Redis answers: requests then pass without any read. */
  live(): boolean;
  /** How many announcements this instance has heard. */
  heard(): number;
}

/**
 * Watches the events' version for one instance. `stale` empties its kept events and pages. With `redis`, a
 * subscriber connection of its own (closed when `redis` ends) hears each announcement; each time it is
 * (re)subscribed it reads the stamp once, since an announcement made while it was away was not heard.
 * When the database cannot be read the request goes on: it answers from what is kept, or fails as any read would.
 */
export function watchEventsVersion({ db, redis, prefix = "", stale, pollMs = EVENTS_VERSION_POLL_MS }: { db: Db; redis?: Redis; prefix?: string; stale: () => void; pollMs?: number }): EventsVersionWatch {
  let seen: number | undefined;
  let readStartedAt = -Infinity;
  let reading: Promise<void> | undefined;
  let subscribed = false;
  let heard = 0;

  const read = (): Promise<void> => {
    reading ??= (async () => {
      readStartedAt = Date.now();
      try {
        const version = await eventsVersion(db);
        if (seen !== undefined && version > seen) stale();
        if (seen === undefined || version > seen) seen = version;
      } catch {
        // the read that follows reports the database's failure
      } finally {
        reading = undefined;
      }
    })();
    return reading;
  };

  const live = () => subscribed && redis !== undefined && redisAvailable(redis);
  const onAnnouncement = () => {
    heard += 1;
    stale();
  };
  if (redis) subscribe(redis, eventsChangedChannel(prefix), onAnnouncement, {
    up: async () => {
      // A read that began before the subscription was in place may have missed a change announced meanwhile.
      if (reading) await reading;
      await read();
      subscribed = true;
    },
    down: () => {
      subscribed = false;
    },
  });

  return {
    live,
    heard: () => heard,
    check: (_req, _res, next) => {
      if (live()) return next();
      if (!reading && Date.now() - readStartedAt < pollMs) return next();
      // A read under way (or a new one) is shared: whoever arrives meanwhile waits for the same answer.
      void read().then(() => next());
    },
  };
}
