import { createClient } from "redis";
import type { Logger } from "./logger.ts";

export type Redis = ReturnType<typeof createClient>;

/** How long any Redis command may take before Redis counts as unavailable (a paused or hung server answers nothing). */
export const REDIS_COMMAND_TIMEOUT_MS = 750;
/** A deadline timer firing this much later than due means the process was busy, not that Redis was silent. */
const BUSY_LOOP_LAG_MS = 200;
/** While stalled, a PING this often tells when Redis answers again. */
const PROBE_EVERY_MS = 250;
/** A connection that stays silent this long is dropped and opened again (a half-open TCP connection never recovers). */
const RECONNECT_AFTER_MS = 5000;

/** Redis did not answer in time, or is known not to be answering: callers treat it like a stopped Redis. */
export class RedisUnavailableError extends Error {
  override name = "RedisUnavailableError";
}

const stalled = new WeakSet<object>();

/** Commands are being answered: connected, and not stalled. Emits "ready"/"end" and "stalled"/"recovered" as this changes. */
export function redisAvailable(client: Redis): boolean {
  return client.isReady && !stalled.has(client);
}

/** A command sent and not yet answered: its deadline counts from `sentAt`. */
interface InFlight {
  sentAt: number;
  settled: boolean;
  /** Late watchdog firings (a busy process) this command may still be given a fresh deadline for. */
  lateRetries: number;
  reject: (err: Error) => void;
}

/**
 * Every command gets a deadline (node-redis's own timeout stops once a command is written, so a paused server
 * would hold it forever). The first miss marks the client stalled: commands then fail at once, as with a
 * stopped Redis, while a PING probes until Redis answers again (and reopens the connection if it stays silent).
 *
 * One watchdog timer per client watches its commands in flight instead of a timer per command: Redis answers a
 * connection's commands in the order they were sent, so only the oldest unanswered one can be the first to miss
 * its deadline. The timer is re-armed when it fires, never per command.
 */
function guardCommands(client: Redis, logger: Logger): void {
  // createClient returns a thin object over the real client (`_self`); typed commands (get, set, expire...)
  // run on `_self` and end in its sendCommand, so the deadline goes there and covers every command.
  const base = (client as unknown as { _self?: Redis })._self ?? client;
  const send = base.sendCommand.bind(base);
  let stalledSince = 0;
  let probe: NodeJS.Timeout | undefined;
  let probing = false;

  /** Commands in the order they were sent; answered ones leave from the front when the watchdog looks. */
  let inFlight: InFlight[] = [];
  let oldest = 0;
  let watchdog: NodeJS.Timeout | undefined;
  /** When the watchdog is due: a firing much later than this means the process was busy. */
  let watchdogDue = 0;
  /** After a busy spell every command in flight counts its deadline from here, not from when it was sent. */
  let busyUntil = 0;

  const dueOf = (command: InFlight) => Math.max(command.sentAt, busyUntil) + REDIS_COMMAND_TIMEOUT_MS;

  function oldestPending(): InFlight | undefined {
    while (oldest < inFlight.length && inFlight[oldest]!.settled) oldest++;
    if (oldest === inFlight.length) {
      inFlight = [];
      oldest = 0;
      return undefined;
    }
    if (oldest > 1024) {
      inFlight = inFlight.slice(oldest);
      oldest = 0;
    }
    return inFlight[oldest];
  }

  function arm(due: number): void {
    watchdogDue = Math.max(due, Date.now());
    watchdog = setTimeout(watch, Math.max(0, due - Date.now()));
    watchdog.unref();
  }

  function watch(): void {
    watchdog = undefined;
    const now = Date.now();
    const late = now - watchdogDue > BUSY_LOOP_LAG_MS;
    const command = oldestPending();
    if (!command) return;
    if (dueOf(command) > now) return arm(dueOf(command));
    // The deadline counts time in which this process could have read an answer. A timer that fires late means the
    // process itself was busy (a command queued before the busy spell may not even have been written yet): Redis
    // gets a fresh deadline instead of being called stalled, a few times at most.
    if (late && command.lateRetries > 0) {
      command.lateRetries--;
      busyUntil = now;
      return arm(dueOf(command));
    }
    // Timers run before the event loop reads its sockets: an answer may be waiting unread. setImmediate runs after
    // that read, so only a Redis that really stayed silent is stalled.
    setImmediate(() => {
      if (command.settled) {
        const next = oldestPending();
        if (next && !watchdog) arm(dueOf(next));
        return;
      }
      // Answers come in order: the commands sent after this one get none either.
      const error = new RedisUnavailableError(`Redis did not answer within ${REDIS_COMMAND_TIMEOUT_MS} ms`);
      for (let i = oldest; i < inFlight.length; i++) settle(inFlight[i]!, error);
      inFlight = [];
      oldest = 0;
      markStalled();
    });
  }

  function settle(command: InFlight, error: Error): void {
    if (command.settled) return;
    command.settled = true;
    command.reject(error);
  }

  const withDeadline = <T>(pending: Promise<T>): Promise<T> =>
    new Promise<T>((resolve, reject) => {
      const command: InFlight = { sentAt: Date.now(), settled: false, lateRetries: 3, reject };
      inFlight.push(command);
      if (!watchdog) arm(dueOf(command));
      pending.then(
        (value) => {
          if (command.settled) return;
          command.settled = true;
          resolve(value);
        },
        (err: unknown) => settle(command, err instanceof Error ? err : new Error(String(err))),
      );
    });

  function markStalled(): void {
    if (stalled.has(client)) return;
    stalled.add(client);
    stalledSince = Date.now();
    logger.error({ timeoutMs: REDIS_COMMAND_TIMEOUT_MS }, "redis is not answering; working without it until it does");
    client.emit("stalled");
    probe = setInterval(() => void probeOnce(), PROBE_EVERY_MS);
    probe.unref();
  }

  async function probeOnce(): Promise<void> {
    if (probing || !client.isOpen) return;
    probing = true;
    try {
      if (client.isReady) {
        await withDeadline(send(["PING"]));
        clearInterval(probe);
        stalled.delete(client);
        logger.info("redis answers again");
        client.emit("recovered");
        return;
      }
    } catch {
      if (Date.now() - stalledSince >= RECONNECT_AFTER_MS && client.isReady) {
        stalledSince = Date.now();
        logger.warn("redis connection silent; reconnecting");
        client.destroy();
        client.connect().catch(() => undefined);
      }
    } finally {
      probing = false;
    }
  }

  base.sendCommand = ((args: Parameters<Redis["sendCommand"]>[0], options?: Parameters<Redis["sendCommand"]>[1]) => {
    if (stalled.has(client)) return Promise.reject(new RedisUnavailableError("Redis is not answering"));
    return withDeadline(send(args, options));
  });
  client.on("end", () => {
    clearInterval(probe);
    stalled.delete(client);
  });
}

/**
 * A client that never queues commands while disconnected (they fail at once instead of hanging), gives up on a
 * command after REDIS_COMMAND_TIMEOUT_MS, and keeps reconnecting in the background, so a restarted or resumed
 * Redis is picked up without a restart.
 */
export async function connectRedis(url: string, logger: Logger): Promise<Redis> {
  const client: Redis = createClient({
    url,
    disableOfflineQueue: true,
    // No node-redis per-command timeout (0; unset it is 5 s): it covers a command only until it is written and costs
    // every command an AbortSignal timer of its own; the watchdog of guardCommands covers a command from sent to answered.
    commandOptions: { timeout: 0 },
    socket: {
      connectTimeout: 2000,
      reconnectStrategy: (retries) => Math.min(100 * 2 ** retries, 2000),
    },
  });
  guardCommands(client, logger);
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
  return client;
}

export async function closeRedis(client: Redis): Promise<void> {
  try {
    // A graceful close waits for the answers of commands in flight, which a stalled Redis never sends.
    if (client.isOpen && redisAvailable(client)) await client.close();
    else client.destroy();
  } catch {
    client.destroy();
  }
}
