import { Router } from "express";
import type { Db } from "../db/knex.ts";
import type { Redis } from "../redis.ts";

function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  return Promise.race([p, new Promise<T>((_, reject) => setTimeout(() => reject(new Error("timeout")), ms).unref())]);
}

/**
 * /healthz: the process answers. /readyz: the database and Redis answer, and (production, `stripe` given) Stripe
 * accepts the keys (checked at most every 30 s); 503 names what does not, with Stripe's reason.
 */
/** What /readyz asks the payment gateway (src/payments/gateway.ts gives it): whether its keys work. */
export interface PaymentKeysCheck {
  checkKeys(): Promise<{ ok: true } | { ok: false; reason: string }>;
}

export function healthRoutes(db: Db, redis: Redis | undefined, stripe?: PaymentKeysCheck): Router {
  const router = Router();
  router.get("/healthz", (_req, res) => {
    res.set("cache-control", "no-store").json({ status: "ok" });
  });
  router.get("/readyz", async (_req, res) => {
    const checks: Record<string, "ok" | "unavailable"> = {};
    const [database, cache, keys] = await Promise.allSettled([
      withTimeout(db.raw("select 1"), 1500),
      redis ? withTimeout(redis.ping(), 1000) : Promise.resolve("skipped"),
      stripe ? stripe.checkKeys() : Promise.resolve(undefined),
    ]);
    checks.database = database.status === "fulfilled" ? "ok" : "unavailable";
    if (redis) checks.redis = cache.status === "fulfilled" ? "ok" : "unavailable";
    const stripeReason = keys.status === "fulfilled" && keys.value && !keys.value.ok ? keys.value.reason : undefined;
    if (stripe) checks.stripe = keys.status === "fulfilled" && keys.value?.ok ? "ok" : "unavailable";
    const down = Object.entries(checks).filter(([, v]) => v !== "ok").map(([k]) => k);
    res
      .status(down.length ? 503 : 200)
      .set("cache-control", "no-store")
      .json(down.length ? { status: "unavailable", unavailable: down, checks, ...(stripeReason ? { stripe: stripeReason } : {}) } : { status: "ok", checks });
  });
  return router;
}
