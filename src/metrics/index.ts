import type { Db } from "../db/knex.ts";
import type { Redis } from "../redis.ts";
import { watchDatabase } from "./database.ts";
import { watchRedis } from "./redis.ts";
import { attachMetrics, createMetrics, type Metrics } from "./registry.ts";
import { watchState } from "./state.ts";

export { createMetricsServer } from "./server.ts";
export { httpMetrics } from "./http.ts";
export type { Metrics } from "./registry.ts";

/** An app's metrics, wired to its database, its Redis and the state they hold (createApp calls this once). */
export function instrument(deps: { db: Db; redis: Redis | undefined; now: () => Date }): Metrics {
  const metrics = createMetrics();
  attachMetrics(deps.db, metrics);
  watchDatabase(deps.db, metrics);
  watchState(deps.db, metrics, deps.now);
  if (deps.redis) watchRedis(deps.redis, metrics);
  return metrics;
}
