import { createClient } from "redis";
import type { Logger } from "./logger.ts";

export type Redis = ReturnType<typeof createClient>;

/**
 * A client that never queues commands while disconnected (they fail at once instead of hanging)
 * and keeps reconnecting in the background, so a restarted Redis is picked up without a restart.
 */
export async function connectRedis(url: string, logger: Logger): Promise<Redis> {
  const client = createClient({
    url,
    disableOfflineQueue: true,
    socket: {
      connectTimeout: 2000,
      reconnectStrategy: (retries) => Math.min(100 * 2 ** retries, 2000),
    },
  });
  let lastError = "";
  client.on("error", (err: Error) => {
    // Reconnect attempts repeat the same error; log it once per outage.
    if (err.message !== lastError) logger.error({ err: err.message }, "redis error");
    lastError = err.message;
  });
  client.on("ready", () => {
    if (lastError) logger.info("redis connection restored");
    lastError = "";
  });
  const connecting = client.connect().catch(() => undefined);
  // Starting while Redis is down is allowed: the site serves pages and answers writes with 503 until it is back.
  await Promise.race([connecting, new Promise((r) => setTimeout(r, 3000).unref())]);
  if (!client.isReady) logger.error("redis is not reachable at start; retrying in the background");
  return client as Redis;
}

export async function closeRedis(client: Redis): Promise<void> {
  try {
    if (client.isOpen) await client.close();
  } catch {
    client.destroy();
  }
}
