import { AsyncLocalStorage } from "node:async_hooks";
import { randomBytes } from "node:crypto";
import type { Request, RequestHandler } from "express";
import { ipKeyGenerator, rateLimit, type ClientRateLimitInfo } from "express-rate-limit";
import { RedisStore } from "rate-limit-redis";
import { ErrorReply } from "redis";
import type { Redis } from "../redis.ts";
import "./sessionData.ts";
import { wantsJson } from "./errors.ts";

export interface RateLimitOptions {
  name: string;
  windowMs: number;
  limit: number;
  message?: string;
  /** What is counted: the client's address (default; X-Forwarded-For only counts behind TRUST_PROXY_HOPS proxies) or the session. */
  per?: "address" | "session";
  /** Count only answers below 400 (e.g. payments actually created), not refused input. */
  countSuccessfulOnly?: boolean;
  /** Count only the requests this says (default: every request); the others pass uncounted. */
  applies?: (req: Request) => boolean;
}

/** A rate limit's middleware, and what `limitsInOneTrip` needs to count it with others. */
export interface RateLimiter extends RequestHandler {
  readonly counters: readonly Counter[];
}

interface Counter {
  /** express-rate-limit's middleware for this one limit: it decides, answers 429, sets the headers, takes a refused answer back. */
  middleware: RequestHandler;
  applies(req: Request): boolean;
  /** The key in Redis, prefix included (undefined without Redis). */
  redisKey(req: Request): string | undefined;
  store: CountedTogetherStore | undefined;
  windowMs: number;
  limit: number;
}

export type RateLimiterFactory = (options: RateLimitOptions) => RateLimiter;

/**
 * Creating an order, a registration or a PaymentIntent: at most this many per session (and visitor) in the window.
 * One limiter instance is shared by every route that creates a payment (app.ts passes it to each feature).
 */
export const PAYMENT_CREATION_LIMIT: RateLimitOptions = {
  name: "payment-creation",
  per: "session",
  windowMs: 15 * 60_000,
  limit: 20,
  countSuccessfulOnly: true,
  message: "Too many payment attempts from this browser. Please wait 15 minutes and try again, or contact us.",
};

/**
 * A key for the visitor's session that survives a new session id (checkout renews it): kept in the session data.
 * Requests without a session never reach a limited route (writes need one), so they share one key.
 */
function sessionRateKey(req: Request): string {
  if (!req.session) return "none";
  req.session.rateKey ??= randomBytes(12).toString("base64url");
  return req.session.rateKey;
}

/** Rate limits counted in Redis when present (one store per limiter), in memory otherwise. */
export function rateLimiterFactory(redis: Redis | undefined, prefix: string): RateLimiterFactory {
  return ({ name, windowMs, limit, per = "address", countSuccessfulOnly = false, applies = () => true, message = "Too many requests. Please wait a minute and try again." }) => {
    const keyOf = (req: Request) => (per === "session" ? `s:${sessionRateKey(req)}` : ipKeyGenerator(req.ip ?? ""));
    const store = redis ? new CountedTogetherStore({ sendCommand: (...args: string[]) => redis.sendCommand(args), prefix: `${prefix}rl:${name}:` }) : undefined;
    const middleware = rateLimit({
      windowMs,
      limit,
      standardHeaders: "draft-8",
      legacyHeaders: false,
      skipFailedRequests: countSuccessfulOnly,
      skip: (req) => !applies(req),
      keyGenerator: keyOf,
      // A Redis outage must not lock visitors out: the request goes on uncounted.
      passOnStoreError: true,
      store,
      handler: (req, res) => {
        if (wantsJson(req)) res.status(429).json({ success: false, error: message });
        else res.status(429).type("text").send(message);
      },
    });
    const counter: Counter = { middleware, applies, redisKey: (req) => store?.prefixKey(keyOf(req)), store, windowMs, limit };
    return Object.assign(middleware, { counters: [counter] });
  };
}

/**
 * Several rate limits as one middleware, counted in ONE Redis round trip (a hold is limited per address, per
 * session and, with a code, per code guess: a script each cost a round trip of its own). The same as running them one
 * after another: a script counts them in order and stops at the first over its limit, so the limits after a refusal
 * are not counted, as they were never reached; each limit's own middleware then decides, answers and sets its
 * headers from that count. Without Redis they simply run in order.
 */
export function limitsInOneTrip(...limiters: RateLimiter[]): RateLimiter {
  const counters = limiters.flatMap((l) => l.counters);
  const handler: RequestHandler = (req, res, next) => {
    const applying = counters.filter((c) => c.applies(req));
    const step = (i: number) => (err?: unknown) => {
      if (err) return next(err);
      if (i === applying.length) return countedInRedis.exit(() => next());
      applying[i]!.middleware(req, res, step(i + 1));
    };
    const store = applying[0]?.store;
    if (!store || applying.length < 2) return step(0)();
    countedInRedis.run(store.countInOrder(applying.map((c) => ({ key: c.redisKey(req)!, windowMs: c.windowMs, limit: c.limit }))), step(0));
  };
  return Object.assign(handler, { counters });
}

/** The counts one script made for the request being limited, by Redis key; each limit's store takes its own. */
const countedInRedis = new AsyncLocalStorage<Map<string, Promise<ClientRateLimitInfo | undefined>>>();

/** Counts like rate-limit-redis's increment script, for each key in order, until one is over its limit. */
const COUNT_IN_ORDER = `
local out = {}
for i, key in ipairs(KEYS) do
  local windowMs = tonumber(ARGV[2 * i - 1])
  local ttl = redis.call("PTTL", key)
  local hits = 1
  if ttl <= 0 then
    redis.call("SET", key, 1, "PX", windowMs)
    ttl = windowMs
  else
    hits = redis.call("INCR", key)
  end
  out[#out + 1] = hits
  out[#out + 1] = ttl
  if hits > tonumber(ARGV[2 * i]) then return out end
end
return out`.trim();

/** rate-limit-redis's store, which takes its count from `limitsInOneTrip`'s script when it made one for this request. */
class CountedTogetherStore extends RedisStore {
  private countScript: Promise<string> | undefined;

  override async increment(key: string): Promise<ClientRateLimitInfo> {
    const counted = countedInRedis.getStore();
    const redisKey = this.prefixKey(key);
    const mine = counted?.get(redisKey);
    if (!mine) return super.increment(key);
    counted!.delete(redisKey);
    return (await mine) ?? super.increment(key);
  }

  /** One script for these keys (each limiter's store has the same Redis): a count for each key it reached. */
  countInOrder(keys: { key: string; windowMs: number; limit: number }[]): Map<string, Promise<ClientRateLimitInfo | undefined>> {
    const args = keys.flatMap((k) => [String(k.windowMs), String(k.limit)]);
    const run = async (): Promise<unknown> => {
      const keysAndArgs = [String(keys.length), ...keys.map((k) => k.key), ...args];
      try {
        return await this.sendCommand({ key: keys[0]!.key, isReadOnly: false, command: ["EVALSHA", await this.loadedScript(), ...keysAndArgs] });
      } catch (err) {
        // Redis answered with an error (its scripts flushed: NOSCRIPT): the script's text this time, loaded again next time.
        if (!(err instanceof ErrorReply)) throw err;
        this.countScript = undefined;
        return this.sendCommand({ key: keys[0]!.key, isReadOnly: false, command: ["EVAL", COUNT_IN_ORDER, ...keysAndArgs] });
      }
    };
    const replies = run().then((r) => (Array.isArray(r) ? r.map(Number) : []));
    const counts = new Map<string, Promise<ClientRateLimitInfo | undefined>>();
    keys.forEach(({ key }, i) => {
      const count = replies.then((r) => (r.length > 2 * i ? { totalHits: r[2 * i]!, resetTime: new Date(Date.now() + r[2 * i + 1]!) } : undefined));
      // A limit never reached (an earlier one refused) never reads its count: its failure is nobody's.
      count.catch(() => undefined);
      counts.set(key, count);
    });
    return counts;
  }

  private loadedScript(): Promise<string> {
    this.countScript ??= this.sendCommand({ key: "", isReadOnly: false, command: ["SCRIPT", "LOAD", COUNT_IN_ORDER] }).then(String);
    // A Redis that did not answer is asked again next time.
    this.countScript.catch(() => (this.countScript = undefined));
    return this.countScript;
  }
}
