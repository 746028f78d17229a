import { createHmac, timingSafeEqual } from "node:crypto";
import type { Request, RequestHandler } from "express";
import session, { MemoryStore, type SessionData, type Store } from "express-session";
import { RedisStore } from "connect-redis";
import type { Config } from "../config.ts";
import { redisAvailable, type Redis } from "../redis.ts";
import { isUnavailable } from "./errors.ts";
import { randomId } from "./randomIds.ts";
import type { Logger } from "../logger.ts";
import { toText } from "../shared/toText.ts";
import { cookieValue } from "./cookies.ts";

/** Sessions and CSRF tokens on a development machine (production requires SESSION_SECRET). */
export const DEVELOPMENT_SECRET = "embedded-default-development-secret";

const TWO_WEEKS_S = 14 * 24 * 60 * 60;

/** The session's cookie: a request without it has no state (express-session gives it a new, empty session). */
export const SESSION_COOKIE = "sid";

/** The session store: Redis when configured, an in-process store otherwise (embedded default). */
export function createSessionStore(redis: Redis | undefined, prefix: string, logger: Logger): Store {
  if (!redis) {
    logger.warn("REDIS_URL is not set: sessions live in process memory and are lost on restart");
    return new MemoryStore();
  }
  // No touch: with `rolling: false` the cookie is sent again only when the session is saved, and each save sets the
  // key's two weeks again, so the key lives exactly as long as the cookie. Touching would cost every request of a
  // visitor with a session a Redis EXPIRE and keep nothing longer that a browser could still ask for.
  const store = new RedisStore({ client: redis, prefix: `${prefix}sess:`, ttl: TWO_WEEKS_S, disableTouch: true });
  // With disableTouch its touch does nothing, but a store that has one costs every request of a visitor with a
  // session express-session's check whether to touch it (another hash of the whole session): it has none.
  Object.defineProperty(store, "touch", { value: undefined });
  // express-session skips sessions (instead of failing the request) while its store says it is disconnected:
  // Redis stopped, or stalled (connected but not answering within the command timeout).
  const sync = () => store.emit(redisAvailable(redis) ? "connect" : "disconnect");
  for (const event of ["ready", "end", "error", "stalled", "recovered"]) redis.on(event, sync);
  sync();
  return store;
}

/**
 * Whether express-session gives requests a session: it follows the store's "connect" and "disconnect" events, as
 * express-session does (a store that is down leaves requests without one, and pages show the session notice).
 */
export function sessionStoreReady(store: Store): () => boolean {
  let ready = true;
  store.on("disconnect", () => (ready = false));
  store.on("connect", () => (ready = true));
  return () => ready;
}

export function sessionMiddleware(config: Config, store: Store): RequestHandler {
  const middleware = session({
    name: SESSION_COOKIE,
    genid: () => randomId(24),
    store,
    secret: config.sessionSecret ?? DEVELOPMENT_SECRET,
    resave: false,
    saveUninitialized: false,
    rolling: false,
    proxy: config.trustProxyHops > 0,
    cookie: {
      httpOnly: true,
      sameSite: "lax",
      secure: config.https,
      maxAge: TWO_WEEKS_S * 1000,
    },
  });
  // The request that finds Redis stalled goes on without a session, like every request after it.
  return (req, res, next) => middleware(req, res, (err?: unknown) => (err && isUnavailable(err) ? next() : next(err)));
}

/** A visitor's stored session as `readStoredSession` found it: the data as express-session would load it. */
export type StoredSession = SessionData & { id: string };

/** Checked session cookies remembered (the cookie as sent -> its session id): a returning visitor's costs no HMAC. */
const CHECKED_COOKIES = 10_000;

/**
 * Reads a GET's session without express-session, for a handler that only reads it and answers without changing it
 * (the cart page answered from its kept copy). express-session does the same reads (the cookie's signature, the
 * store's GET), then, for a request that changes nothing, hashes the whole session four times, wraps the response's
 * writeHead and end, and writes nothing. Undefined when there is no validly signed cookie, no such session, or the
 * store is down or failing: the request then goes on to express-session, which does what it does for those.
 */
export function storedSessionReader(config: Config, store: Store, storeReady: () => boolean): (req: Request) => Promise<StoredSession | undefined> {
  const secret = config.sessionSecret ?? DEVELOPMENT_SECRET;
  const checked = new Map<string, string>();
  /** The session id of a cookie signed as express-session signs it (`s:` id `.` base64 HMAC-SHA256 without padding). */
  const sessionIdOf = (sent: string): string | undefined => {
    const known = checked.get(sent);
    if (known !== undefined) return known;
    let value: string;
    try {
      value = decodeURIComponent(sent);
    } catch {
      return undefined;
    }
    const dot = value.lastIndexOf(".");
    if (!value.startsWith("s:") || dot < 0) return undefined;
    const id = value.slice(2, dot);
    const expected = Buffer.from(createHmac("sha256", secret).update(id).digest("base64").replace(/=+$/, ""));
    const given = Buffer.from(value.slice(dot + 1));
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined;
    checked.set(sent, id);
    if (checked.size > CHECKED_COOKIES) checked.delete(checked.keys().next().value!);
    return id;
  };
  return (req) => {
    const sent = cookieValue(req, SESSION_COOKIE);
    const id = sent === undefined || !storeReady() ? undefined : sessionIdOf(sent);
    if (id === undefined) return Promise.resolve(undefined);
    return new Promise((resolve) => store.get(id, (err: unknown, data?: SessionData | null) => resolve(err || !data ? undefined : { ...data, id })));
  };
}

/**
 * Gives the visitor a new session id with the same data (cart, checkout): called when a
 * checkout starts and after a payment, so a session cookie planted before then no longer follows the buyer.
 * The old id is destroyed in the store.
 */
export async function renewSessionId(req: Request): Promise<void> {
  const kept = Object.entries(req.session).filter(([key]) => key !== "cookie");
  await new Promise<void>((resolve, reject) => req.session.regenerate((err: unknown) => (err ? reject(err instanceof Error ? err : new Error(toText(err))) : resolve())));
  Object.assign(req.session, Object.fromEntries(kept));
}
