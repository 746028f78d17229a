import type { RequestHandler } from "express";
import session, { MemoryStore, type Store } from "express-session";
import { RedisStore } from "connect-redis";
import type { Config } from "../config.ts";
import type { Redis } from "../redis.ts";
import type { Logger } from "../logger.ts";

const TWO_WEEKS_S = 14 * 24 * 60 * 60;

/** The session store: Redis when configured, an in-process store otherwise (embedded default). */
export function createSessionStore(redis: Redis | undefined, prefix: string, logger: Logger): Store {
  if (!redis) {
    logger.warn("REDIS_URL is not set: sessions live in process memory and are lost on restart");
    return new MemoryStore();
  }
  const store = new RedisStore({ client: redis, prefix: `${prefix}sess:`, ttl: TWO_WEEKS_S });
  // express-session skips sessions (instead of failing the request) while its store says it is disconnected.
  const sync = () => store.emit(redis.isReady ? "connect" : "disconnect");
  redis.on("ready", sync);
  redis.on("end", sync);
  redis.on("error", sync);
  sync();
  return store;
}

export function sessionMiddleware(config: Config, store: Store): RequestHandler {
  return session({
    name: "sid",
    store,
    secret: config.sessionSecret ?? "embedded-default-development-secret",
    resave: false,
    saveUninitialized: false,
    rolling: false,
    proxy: config.trustProxyHops > 0,
    cookie: {
      httpOnly: true,
      sameSite: "lax",
      secure: config.isProduction,
      maxAge: TWO_WEEKS_S * 1000,
    },
  });
}
