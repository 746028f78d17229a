import type { Redis } from "../redis.ts";
import type { Metrics } from "./registry.ts";

const watched = new WeakSet<object>();

/**
 * Counts the Redis commands that fail (an error answer, or none within src/redis.ts's deadline). The deadline is
 * src/redis.ts's, on the real client's sendCommand; this wraps that same function once more, so every typed command
 * is seen.
 */
export function watchRedis(client: Redis, metrics: Metrics): void {
  const base = ((client as unknown as { _self?: Redis })._self ?? client) as unknown as { sendCommand: (...args: unknown[]) => Promise<unknown> };
  if (watched.has(base)) return;
  watched.add(base);
  const send = base.sendCommand.bind(base);
  base.sendCommand = (...args: unknown[]) =>
    send(...args).catch((err: unknown) => {
      metrics.redis.commandErrors.inc();
      throw err;
    });
}
