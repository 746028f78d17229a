import { createClient } from "redis";
import type { Config } from "../config.ts";
import type { Db } from "../db/knex.ts";
import type { Logger } from "../logger.ts";
import { announceEventsChanges, eventsChangedChannel } from "../events/version.ts";

/** An announcement that Redis does not take within this is given up: the instances then read the version themselves. */
const ANNOUNCE_DEADLINE_MS = 2000;

/**
 * An operator command's change of events, once committed, is announced to the running instances over the app's
 * Redis (REDIS_URL and REDIS_PREFIX as the instances have them), so it shows at their next request. Connected only
 * when there is something to announce; without REDIS_URL there is nothing to do (instances without Redis read the
 * version). The command awaits `settled()` before it exits.
 */
export function announceCommandChanges(config: Config, db: Db, logger: Logger): { settled(): Promise<void> } {
  const redis = config.redis;
  if (!redis) return { settled: async () => undefined };
  return announceEventsChanges(db, () => publishOnce(redis.url, eventsChangedChannel(redis.prefix)), logger);
}

async function publishOnce(url: string, channel: string): Promise<void> {
  const client = createClient({ url, disableOfflineQueue: true, socket: { connectTimeout: ANNOUNCE_DEADLINE_MS, reconnectStrategy: false } });
  client.on("error", () => undefined);
  let deadline: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      (async () => {
        await client.connect();
        await client.publish(channel, "1");
      })(),
      new Promise((_, reject) => {
        deadline = setTimeout(() => reject(new Error(`Redis did not answer within ${ANNOUNCE_DEADLINE_MS} ms`)), ANNOUNCE_DEADLINE_MS);
      }),
    ]);
  } finally {
    clearTimeout(deadline);
    client.destroy();
  }
}
