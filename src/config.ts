import path from "node:path";
import * as z from "zod";
import { clockFileToFollow } from "./clock.ts";

const optional = z
  .string()
  .trim()
  .transform((v) => (v === "" ? undefined : v))
  .optional();

const EnvSchema = z.object({
  NODE_ENV: z.enum(["development", "production", "test"]).default("development"),
  HOST: z.string().default("0.0.0.0"),
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  PUBLIC_URL: optional.pipe(z.url({ protocol: /^https?$/, error: "must be an http(s) origin such as https://example.com" }).optional()),
  // 0: X-Forwarded-* headers are ignored, so a client cannot choose its own address (rate limits) or protocol.
  TRUST_PROXY_HOPS: z.coerce.number().int().min(0).max(10).default(0),
  LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
  BRAND_NAME: z.string().trim().min(1).default("Ironside"),
  SESSION_SECRET: optional,
  DATABASE_URL: optional,
  SQLITE_PATH: z.string().default("var/app.sqlite3"),
  REDIS_URL: optional,
  REDIS_PREFIX: z.string().default("ironside:"),
  STRIPE_SECRET_KEY: optional,
  STRIPE_PUBLISHABLE_KEY: optional,
  STRIPE_WEBHOOK_SECRET: optional,
  // Tests and stripe-mock point the SDK at a server of their own; unset means Stripe's API.
  STRIPE_API_URL: optional.pipe(z.url({ protocol: /^https?$/, error: "must be an http(s) URL such as http://127.0.0.1:12111" }).optional()),
  /** Apple Pay's domain association file (from Stripe's dashboard), served at /.well-known/; unset: 404 there. */
  APPLE_PAY_DOMAIN_FILE: optional,
  SHOPIFY_STORE_DOMAIN: optional,
  SHOPIFY_STOREFRONT_TOKEN: optional,
  SHOPIFY_ADMIN_TOKEN: optional,
  SHOPIFY_API_VERSION: z.string().default("2026-10"),
  SMTP_URL: optional,
  // Production sends e-mail through SMTP; this says on purpose that files in MAIL_DIR are what is wanted instead.
  MAIL_FILES_IN_PRODUCTION: z.enum(["0", "1"]).default("0"),
  MAIL_DIR: z.string().default("var/mail"),
  MAIL_FROM: z.string().default("Ironside Wrestling <no-reply@ironsidewrestling.com>"),
  MAIL_TO: z.string().default("team@ironsidewrestling.com"),
  SHIPPING_FLAT_RATE_CENTS: z.coerce.number().int().min(0).max(100_000).default(795),
  SHIPS_STARTING_DATE: optional.pipe(z.iso.date({ error: "must be a date such as 2027-06-25" }).optional()),
  EVENTS_HERO_VIDEO_URL: optional,
  PAGE_CACHE_MS: z.coerce.number().int().min(0).max(60_000).default(3000),
  /** Places one visitor (by session and by address) may hold unpaid at once, over every event. */
  MAX_HELD_PLACES_PER_VISITOR: z.coerce.number().int().min(1).max(10_000).default(60),
  /** Athletes of one team registration (the spec sets no maximum). */
  MAX_TEAM_ATHLETES: z.coerce.number().int().min(5).max(1_000).default(60),
  /** How long a waiting-list offer holds its places for the invited family or team. */
  WAITING_LIST_OFFER_HOURS: z.coerce.number().int().min(1).max(168).default(24),
  ENABLE_TEST_ROUTES: z.enum(["0", "1"]).default("0"),
  /** The offset file `npm run clock` writes and the app follows (src/clock.ts); refused in production. */
  CLOCK_FILE: optional,
  /** Tests: how often the balance job runs (every minute otherwise); refused in production. */
  BALANCE_JOB_INTERVAL_MS: z.coerce.number().int().min(100).max(60_000).optional(),
  /** Tests: how often the waiting list's offer queue polls for rounds (every 15 s otherwise); refused in production. */
  WAITING_LIST_JOB_INTERVAL_MS: z.coerce.number().int().min(100).max(15_000).optional(),
  /** How long a payment_intent.succeeded webhook waits for the visitor's own return to settle the payment first (src/payments/webhook.ts). */
  STRIPE_WEBHOOK_WAIT_MS: z.coerce.number().int().min(0).max(5_000).optional(),
  /** Tests: how often the refund job looks for requests (every 5 s otherwise); refused in production. */
  REFUND_JOB_INTERVAL_MS: z.coerce.number().int().min(100).max(5_000).optional(),
  // Production over plain HTTP on this machine (compose.local.yaml): cookies without Secure. Only with a loopback http PUBLIC_URL.
  LOCAL_HTTP_TRIAL: z.enum(["0", "1"]).default("0"),
  MIGRATION_LOCK_WAIT_MS: z.coerce.number().int().min(0).max(3_600_000).default(120_000),
  /** Prometheus' /metrics on a port of its own (src/metrics/server.ts), never the site's; unset: no metrics port. */
  METRICS_PORT: z.preprocess((v) => (typeof v === "string" && v.trim() === "" ? undefined : v), z.coerce.number().int().min(0).max(65535).optional()),
});

export type Env = z.infer<typeof EnvSchema>;

/** Every environment variable the site reads (ironside.env.example lists them all; a unit test holds the two equal). */
export const CONFIG_VARIABLES = Object.keys(EnvSchema.shape);

export interface Config {
  env: Env["NODE_ENV"];
  isProduction: boolean;
  /** Served over HTTPS: Secure cookies (the visitor cookie's __Host- prefix), HSTS, upgrade-insecure-requests. Production, except a plain-HTTP local trial. */
  https: boolean;
  host: string;
  port: number;
  publicUrl: string | undefined;
  trustProxyHops: number;
  logLevel: Env["LOG_LEVEL"];
  brandName: string;
  sessionSecret: string | undefined;
  database: { client: "mysql2"; url: string } | { client: "better-sqlite3"; filename: string };
  redis: { url: string; prefix: string } | undefined;
  stripe: { secretKey: string; publishableKey: string; webhookSecret: string; apiUrl: string | undefined } | undefined;
  /** APPLE_PAY_DOMAIN_FILE, resolved: served at /.well-known/apple-developer-merchantid-domain-association. */
  applePayDomainFile: string | undefined;
  shopify: {
    storeDomain: string;
    storefrontToken: string;
    adminToken: string | undefined;
    apiVersion: string;
  } | undefined;
  mail: { smtpUrl: string | undefined; dir: string; from: string; brandInbox: string };
  /** Standard shipping for shop orders at or under the free-shipping threshold, in cents. */
  shippingFlatRateCents: number;
  /** SHIPS_STARTING_DATE: tees and caps ship from this day (YYYY-MM-DD); shown with its year until it has come. */
  shipsStartingDate: string | null;
  /** How long a rendered page is kept for visitors without state (src/http/pageCache.ts); 0 turns it off. */
  pageCacheMs: number;
  registrationLimits: { maxHeldPlacesPerVisitor: number; maxTeamAthletes: number };
  waitingListOfferHours: number;
  eventsHeroVideoUrl: string | undefined;
  testRoutes: boolean;
  /** The clock offset file this instance follows (src/clock.ts clockFileToFollow); none in production or with live keys. */
  clockFile: string | undefined;
  /** How often the balance job runs, in milliseconds. */
  balanceJobIntervalMs: number;
  /** How often the waiting list's offer queue polls for rounds, in milliseconds. */
  waitingListJobIntervalMs: number;
  /** How often the refund job looks for requests (an operator's command writes them from another process), in milliseconds. */
  refundJobIntervalMs: number;
  /** STRIPE_WEBHOOK_WAIT_MS: 2 s unless set; none under NODE_ENV=test, whose requests post webhooks and read the outcome at once. */
  webhookWaitMs: number;
  /** How long a start waits for another instance's migration (src/db/knex.ts migrateLatest). */
  migrationLockWaitMs: number;
  /** The port /metrics listens on (HOST's address); undefined: not served at all. */
  metricsPort: number | undefined;
}

export class ConfigError extends Error {
  /** Every problem found, each one short line; the message joins them. */
  readonly problems: string[];
  constructor(problems: string[] | string) {
    const list = typeof problems === "string" ? [problems] : problems;
    super(list.join("; "));
    this.problems = list;
  }
}

/**
 * Who the configuration is for. The site needs every production setting; an operator command (migrate, capacity,
 * events...) works on the database alone, so in production it asks for DATABASE_URL and nothing else.
 */
export type ConfigPurpose = "site" | "command";

const LOOPBACK_HOSTS = new Set(["localhost", "127.0.0.1", "[::1]"]);

/** True for an http:// origin on this machine: the only PUBLIC_URL a plain-HTTP local trial accepts. */
export function isLoopbackHttp(url: string | undefined): boolean {
  if (!url) return false;
  const u = new URL(url);
  return u.protocol === "http:" && LOOPBACK_HOSTS.has(u.hostname);
}

type ParsedEnv = Partial<Env>;

/** Each variable on its own, so one start names every bad value, not the first. */
function parseEach(env: NodeJS.ProcessEnv, problems: string[]): ParsedEnv {
  const parsed: Record<string, unknown> = {};
  for (const [name, schema] of Object.entries(EnvSchema.shape)) {
    const result = schema.safeParse(env[name]);
    if (result.success) parsed[name] = result.data;
    else problems.push(`${name}: ${result.error.issues.map((i) => i.message).join(", ")}`);
  }
  return parsed;
}

function productionNeeds(e: ParsedEnv, purpose: ConfigPurpose): string[] {
  const missing: string[] = [];
  if (purpose === "site" && !e.SESSION_SECRET) missing.push("SESSION_SECRET");
  if (!e.DATABASE_URL) missing.push("DATABASE_URL (mysql://...)");
  if (purpose === "command") return missing;
  if (!e.REDIS_URL) missing.push("REDIS_URL");
  if (!e.PUBLIC_URL) missing.push("PUBLIC_URL (https://...)");
  if (!e.STRIPE_SECRET_KEY) missing.push("STRIPE_SECRET_KEY, STRIPE_PUBLISHABLE_KEY, STRIPE_WEBHOOK_SECRET");
  if (e.SESSION_SECRET && e.SESSION_SECRET.length < 32) missing.push("SESSION_SECRET of at least 32 characters");
  if (!e.SMTP_URL && e.MAIL_FILES_IN_PRODUCTION !== "1") {
    missing.push("SMTP_URL (smtp://user:pass@host:587), or MAIL_FILES_IN_PRODUCTION=1 to write e-mails as files to MAIL_DIR");
  }
  return missing;
}

function invalidCombinations(e: ParsedEnv, isProduction: boolean, purpose: ConfigPurpose): string[] {
  const invalid: string[] = [];
  if (e.DATABASE_URL && !/^mysql2?:\/\//.test(e.DATABASE_URL)) invalid.push("DATABASE_URL must be a mysql:// URL (leave it unset for SQLite)");
  const stripeParts = [e.STRIPE_SECRET_KEY, e.STRIPE_PUBLISHABLE_KEY, e.STRIPE_WEBHOOK_SECRET];
  if (stripeParts.some(Boolean) && !stripeParts.every(Boolean)) {
    invalid.push("set all of STRIPE_SECRET_KEY, STRIPE_PUBLISHABLE_KEY and STRIPE_WEBHOOK_SECRET, or none (offline test mode)");
  }
  if (Boolean(e.SHOPIFY_STORE_DOMAIN) !== Boolean(e.SHOPIFY_STOREFRONT_TOKEN)) {
    invalid.push("set both SHOPIFY_STORE_DOMAIN and SHOPIFY_STOREFRONT_TOKEN, or neither");
  }
  if (e.LOCAL_HTTP_TRIAL === "1" && !isLoopbackHttp(e.PUBLIC_URL)) {
    invalid.push("LOCAL_HTTP_TRIAL=1 is only for a trial on this machine: PUBLIC_URL must be http://localhost[:port]");
  }
  if (e.METRICS_PORT !== undefined && e.METRICS_PORT !== 0 && e.METRICS_PORT === (e.PORT ?? 3000)) {
    invalid.push("METRICS_PORT must differ from PORT: the metrics are never served on the site's port");
  }
  if (isProduction && purpose === "site") {
    if (e.STRIPE_WEBHOOK_SECRET && !e.STRIPE_WEBHOOK_SECRET.startsWith("whsec_")) {
      invalid.push("STRIPE_WEBHOOK_SECRET must be the endpoint's signing secret (whsec_...)");
    }
    if (e.LOCAL_HTTP_TRIAL === "1" && e.STRIPE_SECRET_KEY?.startsWith("sk_live_")) {
      invalid.push("LOCAL_HTTP_TRIAL=1 takes Stripe test keys (sk_test_...), never live ones");
    }
    if (e.ENABLE_TEST_ROUTES === "1") invalid.push("ENABLE_TEST_ROUTES is refused in production");
    if (e.CLOCK_FILE) invalid.push("CLOCK_FILE is refused in production");
    if (e.BALANCE_JOB_INTERVAL_MS !== undefined) invalid.push("BALANCE_JOB_INTERVAL_MS is refused in production");
    if (e.WAITING_LIST_JOB_INTERVAL_MS !== undefined) invalid.push("WAITING_LIST_JOB_INTERVAL_MS is refused in production");
    if (e.REFUND_JOB_INTERVAL_MS !== undefined) invalid.push("REFUND_JOB_INTERVAL_MS is refused in production");
  }
  return invalid;
}

/**
 * Parses the environment into a Config. When it cannot, throws one ConfigError naming every missing and every
 * invalid setting at once ("Production needs: ...; Invalid configuration: ..."), so a start is fixed in one round.
 */
export function loadConfig(env: NodeJS.ProcessEnv = process.env, purpose: ConfigPurpose = "site"): Config {
  const badValues: string[] = [];
  const e = parseEach(env, badValues);
  const isProduction = e.NODE_ENV === "production";
  const invalid = [...badValues, ...invalidCombinations(e, isProduction, purpose)];
  const missing = isProduction ? productionNeeds(e, purpose) : [];
  const problems = [
    ...(missing.length ? [`Production needs: ${missing.join(", ")}`] : []),
    ...(invalid.length ? [`Invalid configuration: ${invalid.join("; ")}`] : []),
  ];
  if (problems.length) throw new ConfigError(problems);
  return toConfig(e as Env, isProduction);
}

function toConfig(e: Env, isProduction: boolean): Config {
  return {
    env: e.NODE_ENV,
    isProduction,
    https: isProduction && e.LOCAL_HTTP_TRIAL !== "1",
    host: e.HOST,
    port: e.PORT,
    publicUrl: e.PUBLIC_URL ? new URL(e.PUBLIC_URL).origin : undefined,
    trustProxyHops: e.TRUST_PROXY_HOPS,
    logLevel: e.LOG_LEVEL,
    brandName: e.BRAND_NAME,
    sessionSecret: e.SESSION_SECRET,
    database: e.DATABASE_URL
      ? { client: "mysql2", url: e.DATABASE_URL.replace(/^mysql2:/, "mysql:") }
      : { client: "better-sqlite3", filename: e.SQLITE_PATH === ":memory:" ? ":memory:" : path.resolve(e.SQLITE_PATH) },
    redis: e.REDIS_URL ? { url: e.REDIS_URL, prefix: e.REDIS_PREFIX } : undefined,
    stripe: e.STRIPE_SECRET_KEY
      ? { secretKey: e.STRIPE_SECRET_KEY, publishableKey: e.STRIPE_PUBLISHABLE_KEY!, webhookSecret: e.STRIPE_WEBHOOK_SECRET!, apiUrl: e.STRIPE_API_URL }
      : undefined,
    applePayDomainFile: e.APPLE_PAY_DOMAIN_FILE ? path.resolve(e.APPLE_PAY_DOMAIN_FILE) : undefined,
    shopify: e.SHOPIFY_STORE_DOMAIN
      ? {
          storeDomain: e.SHOPIFY_STORE_DOMAIN,
          storefrontToken: e.SHOPIFY_STOREFRONT_TOKEN!,
          adminToken: e.SHOPIFY_ADMIN_TOKEN,
          apiVersion: e.SHOPIFY_API_VERSION,
        }
      : undefined,
    mail: { smtpUrl: e.SMTP_URL, dir: path.resolve(e.MAIL_DIR), from: e.MAIL_FROM, brandInbox: e.MAIL_TO },
    shippingFlatRateCents: e.SHIPPING_FLAT_RATE_CENTS,
    shipsStartingDate: e.SHIPS_STARTING_DATE ?? null,
    pageCacheMs: e.PAGE_CACHE_MS,
    registrationLimits: { maxHeldPlacesPerVisitor: e.MAX_HELD_PLACES_PER_VISITOR, maxTeamAthletes: e.MAX_TEAM_ATHLETES },
    waitingListOfferHours: e.WAITING_LIST_OFFER_HOURS,
    eventsHeroVideoUrl: e.EVENTS_HERO_VIDEO_URL,
    testRoutes: e.ENABLE_TEST_ROUTES === "1",
    clockFile: isProduction || e.STRIPE_SECRET_KEY?.startsWith("sk_live_") ? undefined : clockFileToFollow(e.CLOCK_FILE, e.NODE_ENV),
    balanceJobIntervalMs: e.BALANCE_JOB_INTERVAL_MS ?? 60_000,
    waitingListJobIntervalMs: e.WAITING_LIST_JOB_INTERVAL_MS ?? 15_000,
    refundJobIntervalMs: e.REFUND_JOB_INTERVAL_MS ?? 5_000,
    webhookWaitMs: e.STRIPE_WEBHOOK_WAIT_MS ?? (e.NODE_ENV === "test" ? 0 : 2_000),
    migrationLockWaitMs: e.MIGRATION_LOCK_WAIT_MS,
    metricsPort: e.METRICS_PORT,
  };
}
