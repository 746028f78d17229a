import { randomBytes } from "node:crypto";
import type { Request, RequestHandler } from "express";
import { ipKeyGenerator, rateLimit } from "express-rate-limit";
import { RedisStore } from "rate-limit-redis";
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
}

export type RateLimiterFactory = (options: RateLimitOptions) => RequestHandler;

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
  return ({ name, windowMs, limit, per = "address", countSuccessfulOnly = false, message = "Too many requests. Please wait a minute and try again." }) =>
    rateLimit({
      windowMs,
      limit,
      standardHeaders: "draft-8",
      legacyHeaders: false,
      skipFailedRequests: countSuccessfulOnly,
      keyGenerator: (req) => (per === "session" ? `s:${sessionRateKey(req)}` : ipKeyGenerator(req.ip ?? "")),
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
