import type { RequestHandler } from "express";
import { rateLimit } from "express-rate-limit";
import { RedisStore } from "rate-limit-redis";
import type { Redis } from "../redis.ts";
import { wantsJson } from "./errors.ts";

export interface RateLimitOptions {
  name: string;
  windowMs: number;
  limit: number;
  message?: string;
}

export type RateLimiterFactory = (options: RateLimitOptions) => RequestHandler;

/** Rate limits counted in Redis when present (one store per limiter), in memory otherwise. */
export function rateLimiterFactory(redis: Redis | undefined, prefix: string): RateLimiterFactory {
  return ({ name, windowMs, limit, message = "Too many requests. Please wait a minute and try again." }) =>
    rateLimit({
      windowMs,
      limit,
      standardHeaders: "draft-8",
      legacyHeaders: false,
      // A Redis outage must not lock visitors out: the request goes on uncounted.
      passOnStoreError: true,
      store: redis
        ? new RedisStore({ sendCommand: (...args: string[]) => redis.sendCommand(args), prefix: `${prefix}rl:${name}:` })
        : undefined,
      handler: (req, res) => {
        if (wantsJson(req)) res.status(429).json({ success: false, error: message });
        else res.status(429).type("text").send(message);
      },
    });
}
