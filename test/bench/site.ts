/**
 * The site as the benchmarks run it: production settings on MySQL + Redis (a fresh database and Redis key prefix,
 * both removed by `stop()`), or with `embedded` the development defaults (SQLite, in-process sessions), which
 * production refuses. Behind a pretend TLS proxy: requests carry `proxyHeaders`, as the reverse proxy adds them.
 */
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import mysql from "mysql2/promise";
import { createClient } from "redis";
import { startServer } from "../support/server.ts";
import { startStatementCounter } from "./statementCounter.ts";
import { startFakeStripe, type FakeStripe } from "../../src/payments/offline/fakeStripeServer.ts";

export const PUBLIC_URL = "https://bench.example";

export interface BenchPage {
  path: string;
  /** Asked for with a session holding three cart lines. */
  cart?: boolean;
  /** Left out when the site answers it with another status than 200 (registration pages before they existed). */
  optional?: boolean;
  /** Only for the load benchmark: not a page a browser shows (JSON), or one only a session's checkout leads to. */
  httpOnly?: boolean;
}

/** Every page type both benchmarks measure. */
export const BENCH_PAGES: BenchPage[] = [
  { path: "/" },
  { path: "/shop" },
  { path: "/shop/heavyweight-tee" },
  { path: "/cart", cart: true },
  { path: "/events" },
  { path: "/events/2" },
  { path: "/custom-apparel" },
  { path: "/contact" },
  { path: "/about", httpOnly: true },
  { path: "/api/events/2", httpOnly: true },
  { path: "/register/2", optional: true },
  { path: "/team-register/2", optional: true },
  { path: "/stripe-checkout", optional: true, httpOnly: true },
];
export const proxyHeaders = { "x-forwarded-proto": "https", "x-forwarded-for": "198.51.100.7" };

export interface BenchSite {
  url: string;
  /** The site's process (its CPU time is read from /proc). */
  pid: number | undefined;
  mode: string;
  /** Keys under this run's own Redis prefix, all or those of one kind (`sess:`); undefined when embedded. The server is shared: DBSIZE counts other people's keys too. */
  redisKeys(kind?: string): Promise<number | undefined>;
  /** Statements the site has sent MySQL so far (its timers' included); undefined when embedded. */
  statements(): number | undefined;
  /** The statements' texts since the list was last emptied (`length = 0`); undefined when embedded. */
  statementTexts: string[] | undefined;
  /** The site's MySQL database, on BENCH_DATABASE_URL's server (for a bench's own rows); undefined when embedded. */
  database: string | undefined;
  /** The offline Stripe's URL (Stripe.js's confirm goes there); undefined when embedded. */
  stripeUrl: string | undefined;
  stop(): Promise<void>;
}

/** `nodeArgs` go before the server's script (e.g. `--cpu-prof`). */
export async function startBenchSite({ embedded, nodeArgs }: { embedded: boolean; nodeArgs?: string[] }): Promise<BenchSite> {
  const runId = randomBytes(4).toString("hex");
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "bench-"));
  let admin: mysql.Connection | undefined;
  let redis: ReturnType<typeof createClient> | undefined;
  const database = `bench_${runId}`;
  const prefix = `bench-${runId}:`;
  let env: Record<string, string>;
  let stripe: FakeStripe | undefined;
  let counter: Awaited<ReturnType<typeof startStatementCounter>> | undefined;
  if (embedded) {
    env = { NODE_ENV: "development", SQLITE_PATH: path.join(tmp, "app.sqlite3"), MAIL_DIR: path.join(tmp, "mail"), PUBLIC_URL, TRUST_PROXY_HOPS: "1" };
  } else {
    const mysqlBase = (process.env.BENCH_DATABASE_URL ?? "mysql://root@127.0.0.1:3306").replace(/\/$/, "");
    const redisUrl = process.env.BENCH_REDIS_URL ?? "redis://127.0.0.1:6379";
    admin = await mysql.createConnection(mysqlBase);
    await admin.query(`CREATE DATABASE \`${database}\` CHARACTER SET utf8mb4`);
    redis = createClient({ url: redisUrl });
    await redis.connect();
    stripe = await startFakeStripe();
    const mysqlUrl = new URL(mysqlBase);
    counter = await startStatementCounter({ host: mysqlUrl.hostname, port: Number(mysqlUrl.port || 3306) });
    const counted = new URL(mysqlBase);
    counted.hostname = "127.0.0.1";
    counted.port = String(counter.port);
    env = {
      NODE_ENV: "production",
      SESSION_SECRET: randomBytes(32).toString("hex"),
      DATABASE_URL: `${counted.toString().replace(/\/$/, "")}/${database}`,
      REDIS_URL: redisUrl,
      REDIS_PREFIX: prefix,
      PUBLIC_URL,
      TRUST_PROXY_HOPS: "1",
      // Stripe's API on loopback (the offline fake): production checks the keys at start and in /readyz.
      STRIPE_SECRET_KEY: stripe.secretKey,
      STRIPE_PUBLISHABLE_KEY: stripe.publishableKey,
      STRIPE_WEBHOOK_SECRET: stripe.webhookSecret,
      STRIPE_API_URL: `http://${stripe.host}:${stripe.port}`,
      MAIL_FILES_IN_PRODUCTION: "1",
      MAIL_DIR: path.join(tmp, "mail"),
    };
  }
  const scan = async (each: (keys: string[]) => Promise<void>, kind = "") => {
    for await (const keys of redis!.scanIterator({ MATCH: `${prefix}${kind}*`, COUNT: 1000 })) await each(keys);
  };
  const cleanUp = async () => {
    if (admin) {
      await admin.query(`DROP DATABASE IF EXISTS \`${database}\``);
      await admin.end();
    }
    if (redis) {
      await scan(async (keys) => void (keys.length && (await redis.del(keys))));
      await redis.close();
    }
    await stripe?.close();
    await counter?.close();
    fs.rmSync(tmp, { recursive: true, force: true });
  };
  let server: Awaited<ReturnType<typeof startServer>>;
  try {
    server = await startServer(env, { nodeArgs });
  } catch (err) {
    await cleanUp();
    throw err;
  }
  return {
    url: server.url,
    pid: server.child.pid,
    mode: embedded ? "embedded (development, SQLite, in-process sessions)" : "production, MySQL + Redis",
    statements: () => counter?.statements(),
    statementTexts: counter?.texts,
    database: embedded ? undefined : database,
    stripeUrl: stripe ? `http://${stripe.host}:${stripe.port}` : undefined,
    redisKeys: async (kind) => {
      if (!redis) return undefined;
      let n = 0;
      await scan(async (keys) => void (n += keys.length), kind);
      return n;
    },
    stop: async () => {
      await server.stop();
      await cleanUp();
    },
  };
}

/** Merges one part (`http`, `browser`) into bench/results.json, keeping the other. */
export function writeResults(root: string, part: string, value: unknown): void {
  const file = path.join(root, "bench/results.json");
  const previous = fs.existsSync(file) ? (JSON.parse(fs.readFileSync(file, "utf8")) as Record<string, unknown>) : {};
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, `${JSON.stringify({ ...previous, [part]: value }, null, 2)}\n`);
}
