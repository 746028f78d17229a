import type { Redis } from "./redis.ts";

/**
 * `heard` for each message on `channel`, through a subscriber connection of its own (closed when `redis` ends):
 * `up` once each (re)subscription is in place, `down` when it is lost. What is published meanwhile is not heard.
 */
export function subscribe(redis: Redis, channel: string, heard: (message: string) => void, on: { up?: () => Promise<void>; down?: () => void } = {}): void {
  const up = () => on.up?.();
  const down = () => on.down?.();
  // Queued while disconnected: node-redis then subscribes again before it reports "ready".
  const sub = redis.duplicate({ disableOfflineQueue: false });
  let subscribed = false;
  let closed = false;
  sub.on("error", () => undefined); // the main client logs Redis's failures
  for (const event of ["end", "reconnecting"]) sub.on(event, down);
  sub.on("ready", () => {
    if (subscribed) void up();
  });
  // The main client ends when the instance stops (and for a moment when redis.ts reopens a silent connection).
  redis.on("end", () => {
    setImmediate(() => {
      if (redis.isOpen || closed) return;
      closed = true;
      down();
      if (sub.isOpen) sub.destroy();
    });
  });
  const start = async () => {
    if (closed) return;
    try {
      if (!sub.isOpen) await sub.connect();
      await sub.subscribe(channel, heard);
      subscribed = true;
      await up();
    } catch {
      if (!closed) setTimeout(() => void start(), 1000).unref();
    }
  };
  void start();
}
