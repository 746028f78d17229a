import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { AddressInfo } from "node:net";
import { randomBytes } from "node:crypto";
import type { Express } from "express";
import { loadConfig, type Config } from "../../src/config.ts";
import { createLogger, type Logger } from "../../src/logger.ts";
import { createDb, migrateLatest, type Db } from "../../src/db/knex.ts";
import { closeRedis, connectRedis } from "../../src/redis.ts";
import { createMailTransport, type MailTransport } from "../../src/email/transport.ts";
import { createOutbox } from "../../src/email/outbox.ts";
import type { JobQueue } from "../../src/db/jobQueue.ts";
import { createShopifyWriteBacks } from "../../src/orders/shopifyWriteBack.ts";
import { createApp, type AppDeps } from "../../src/app.ts";
import { createCatalogueSource } from "../../src/catalogue/createSource.ts";
import { setUpPayments } from "../../src/payments/setup.ts";
import type { FakeStripe } from "../../src/payments/offline/fakeStripeServer.ts";
import { clearPrefix, createMigratedMysqlDatabase, createMysqlDatabase } from "./databases.ts";

export { clearPrefix, createMysqlDatabase };

export type Backend = "sqlite" | "mysql";

/** The backend of this test run: the integration-mysql project sets TEST_BACKEND=mysql. */
export const backend: Backend = process.env.TEST_BACKEND === "mysql" ? "mysql" : "sqlite";

export interface TestApp extends AppDeps {
  app: Express;
  backend: Backend;
  mailDir: string;
  transport: MailTransport;
  close(): Promise<void>;
}

/** Test configuration on the chosen backend: its own database (or in-memory SQLite), Redis key prefix and mail folder. */
export interface TestOptions {
  /** Reach MySQL / Redis through these loopback ports (a test proxy) instead of directly. */
  viaPorts?: { database?: number; redis?: number };
}

function viaPort(u: string, port: number | undefined): string {
  if (!port) return u;
  const url = new URL(u);
  url.hostname = "127.0.0.1";
  url.port = String(port);
  return url.toString();
}

export async function testConfig(env: Record<string, string> = {}, options: TestOptions = {}): Promise<{ config: Config; mailDir: string; cleanup: () => Promise<void> }> {
  const mailDir = fs.mkdtempSync(path.join(os.tmpdir(), "mail-"));
  const base: Record<string, string> = {
    NODE_ENV: "test",
    LOG_LEVEL: "silent",
    ENABLE_TEST_ROUTES: "1",
    SQLITE_PATH: ":memory:",
    MAIL_DIR: mailDir,
    // Tests change rows behind the app's back; the page cache has its own tests.
    PAGE_CACHE_MS: "0",
  };
  let dropDb = async () => {};
  if (backend === "mysql") {
    // Migrated already (a copy of a template): createTestApp's migrateLatest then finds nothing to run.
    const created = await createMigratedMysqlDatabase();
    base.DATABASE_URL = viaPort(created.url, options.viaPorts?.database);
    base.REDIS_URL = viaPort(process.env.TEST_REDIS_URL!, options.viaPorts?.redis);
    base.REDIS_PREFIX = `test:${randomBytes(6).toString("hex")}:`;
    dropDb = created.drop;
  }
  const config = loadConfig({ ...base, ...env });
  return {
    config,
    mailDir,
    cleanup: async () => {
      await dropDb();
      fs.rmSync(mailDir, { recursive: true, force: true });
    },
  };
}

/**
 * The app as server.ts builds it, on a fresh database of the current backend, migrated.
 * The outbox and the Shopify write-backs are not started: tests call `drain()` (a payment wakes them too).
 */
export async function createTestApp(
  env: Record<string, string> = {},
  options: TestOptions & { logger?: Logger } = {},
): Promise<TestApp> {
  const logger = options.logger ?? createLogger("silent");
  const { config, mailDir, cleanup } = await testConfig(env, options);
  const db: Db = createDb(config.database, logger);
  await migrateLatest(db);
  const redis = config.redis ? await connectRedis(config.redis.url, logger) : undefined;
  const transport = createMailTransport({ smtpUrl: config.mail.smtpUrl, dir: config.mail.dir });
  const outbox = createOutbox({ db, transport, from: config.mail.from, logger });
  const catalogue = createCatalogueSource(config, logger);
  // Offline Stripe test mode unless the env gives keys; the fake delivers webhooks once a test gives it a listening app's URL.
  const paymentSetup = await setUpPayments(config, logger);
  const shopifyWriteBacks = createShopifyWriteBacks({ db, shopify: config.shopify, logger });
  const deps: AppDeps = { config, db, redis, logger, outbox, catalogue, gateway: paymentSetup.gateway, shopifyWriteBacks };
  const app = createApp(deps);
  return {
    ...deps,
    app,
    backend,
    mailDir,
    transport,
    async close() {
      await outbox.stop();
      await shopifyWriteBacks?.stop();
      await (app.locals.refundJobs as JobQueue).stop();
      await paymentSetup.close();
      transport.close();
      await db.destroy();
      if (redis) {
        await clearPrefix(redis, config.redis!.prefix);
        await closeRedis(redis);
      }
      await cleanup();
    },
  };
}

export interface PayingTestApp extends TestApp {
  /** The offline Stripe fake behind `gateway`, delivering its signed webhooks to this app. */
  fake: FakeStripe;
  /** Where the fake delivers them: the app listening on a port of its own. */
  webhookUrl: string;
}

/** The app listening on a port, with the offline Stripe fake delivering its signed webhooks to it, as Stripe would. */
export async function createPayingTestApp(env: Record<string, string> = {}, options: TestOptions & { logger?: Logger } = {}): Promise<PayingTestApp> {
  const t = await createTestApp(env, options);
  const fake = t.gateway.offline!;
  const server = t.app.listen(0, "127.0.0.1");
  await new Promise((r) => server.once("listening", r));
  const webhookUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/stripe/webhook`;
  fake.setWebhookUrl(webhookUrl);
  return {
    ...t,
    fake,
    webhookUrl,
    async close() {
      await fake.idle();
      await new Promise((r) => server.close(r));
      await t.close();
    },
  };
}
