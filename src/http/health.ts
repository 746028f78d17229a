import { Router } from "express";
import type { Db } from "../db/knex.ts";
import type { Redis } from "../redis.ts";

function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  return Promise.race([p, new Promise<T>((_, reject) => setTimeout(() => reject(new Error("timeout")), ms).unref())]);
}

/** /healthz: the process answers. /readyz: the database and Redis answer; 503 names what does not. */
export function healthRoutes(db: Db, redis: Redis | undefined): Router {
  const router = Router();
  router.get("/healthz", (_req, res) => {
    res.set("cache-control", "no-store").json({ status: "ok" });
  });
  router.get("/readyz", async (_req, res) => {
    const checks: Record<string, "ok" | "unavailable"> = {};
    const [database, cache] = await Promise.allSettled([
      withTimeout(db.raw("select 1"), 1500),
      redis ? withTimeout(redis.ping(), 1000) : Promise.resolve("skipped"),
    ]);
    checks.database = database.status === "fulfilled" ? "ok" : "unavailable";
    if (redis) checks.redis = cache.status === "fulfilled" ? "ok" : "unavailable";
    const down = Object.entries(checks).filter(([, v]) => v !== "ok").map(([k]) => k);
    res
      .status(down.length ? 503 : 200)
      .set("cache-control", "no-store")
      .json(down.length ? { status: "unavailable", unavailable: down, checks } : { status: "ok", checks });
  });
  return router;
}
