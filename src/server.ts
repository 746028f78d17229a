import type { AddressInfo } from "node:net";
import { ConfigError, loadConfig } from "./config.ts";
import { asyncStdout, createLogger, endLogs } from "./logger.ts";
import { createDb, migrateLatest } from "./db/knex.ts";
import { checkPackageCodes } from "./events/repository.ts";
import { closeRedis, connectRedis } from "./redis.ts";
import { createMailTransport } from "./email/transport.ts";
import { createOutbox } from "./email/outbox.ts";
import { createShopifyWriteBacks } from "./orders/shopifyWriteBack.ts";
import { createApp } from "./app.ts";
import { createHttpServer } from "./http/httpServer.ts";
import { createCatalogueSource } from "./catalogue/createSource.ts";
import { setUpPayments } from "./payments/setup.ts";
import { reactBuild } from "./reactBuild.ts";
import type { JobQueue } from "./db/jobQueue.ts";
import { applyRetention } from "./privacy/retention.ts";
import { followClockFile } from "./clock.ts";
import { createMetricsServer, type Metrics } from "./metrics/index.ts";
import { recordedJob } from "./metrics/hooks.ts";

// Every start failure is one JSON line (the step, the reason, no stack) and exit code 1.
let config;
try {
  config = loadConfig();
} catch (err) {
  if (!(err instanceof ConfigError)) throw err;
  createLogger("info").fatal({ step: "configuration", reason: err.message }, `start failed: ${err.message}`);
  process.exit(1);
}

// Production writes its logs asynchronously (endLogs on shutdown); elsewhere each line is written at once.
const logDestination = config.isProduction ? asyncStdout() : undefined;
const logger = createLogger(config.logLevel, logDestination);
// Demos: every instance on this machine follows the offset `npm run clock` writes (never in production or with live
// keys: config.clockFile is unset then); a test's server follows only the CLOCK_FILE it is given.
if (config.clockFile) followClockFile(config.clockFile);

async function failStart(step: string, reason: string, code?: string): Promise<never> {
  logger.fatal({ step, reason, ...(code ? { code } : {}) }, `start failed: ${step}: ${reason}`);
  if (logDestination) await endLogs(logDestination);
  process.exit(1);
}

/** Runs one step of the start; a failure ends the process with its one line. */
async function step<T>(name: string, run: () => T | Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (err) {
    const e = err as Error & { code?: unknown };
    const reason = (err instanceof Error ? err.message : String(err)).split("\n")[0]!.trim() || "unknown error";
    return failStart(name, reason, typeof e.code === "string" ? e.code : undefined);
  }
}

const react = reactBuild();
if (config.isProduction && react !== "production") {
  await failStart("runtime", "NODE_ENV=production, but React's development build is loaded: NODE_ENV must be set before the process starts");
}
if (config.database.client === "better-sqlite3") logger.warn({ file: config.database.filename }, "DATABASE_URL is not set: using embedded SQLite");

const db = createDb(config.database, logger);
await step("database", () => migrateLatest(db, { logger, lockWaitMs: config.migrationLockWaitMs }));
await step("events", () => checkPackageCodes(db));
const redis = config.redis ? await step("redis", () => connectRedis(config.redis!.url, logger)) : undefined;
const transport = createMailTransport({ smtpUrl: config.mail.smtpUrl, dir: config.mail.dir });
const outbox = createOutbox({ db, transport, from: config.mail.from, logger });
const shopifyWriteBacks = createShopifyWriteBacks({ db, shopify: config.shopify, logger });

const catalogue = createCatalogueSource(config, logger);
const paymentSetup = await step("payments", () => setUpPayments(config, logger));
const app = createApp({ config, db, redis, logger, outbox, catalogue, gateway: paymentSetup.gateway, shopifyWriteBacks });
const server = createHttpServer(app);
await step(
  "listen",
  () =>
    new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(config.port, config.host, () => {
        server.off("error", reject);
        resolve();
      });
    }),
);
// Prometheus' /metrics, only when METRICS_PORT is set, on that port alone (never the site's, never behind nginx).
const metricsServer = config.metricsPort === undefined ? undefined : createMetricsServer((app.locals.metrics as Metrics).registry);
if (metricsServer) {
  await step(
    "metrics",
    () =>
      new Promise<void>((resolve, reject) => {
        metricsServer.once("error", reject);
        metricsServer.listen(config.metricsPort, config.host, () => {
          metricsServer.off("error", reject);
          logger.info({ port: (metricsServer.address() as AddressInfo).port }, "metrics on /metrics");
          resolve();
        });
      }),
  );
}
outbox.start();
shopifyWriteBacks?.start();
const offerQueue = app.locals.offerQueue as JobQueue;
offerQueue.start();
const refundJobs = app.locals.refundJobs as JobQueue;
refundJobs.start();
{
  const { port } = server.address() as AddressInfo;
  // Offline test mode: the fake Stripe delivers its signed webhooks to this process, like Stripe would.
  paymentSetup.gateway.offline?.setWebhookUrl(`http://127.0.0.1:${port}/api/stripe/webhook`);
  logger.info({ port, react }, `listening on http://localhost:${port}`);
}
if (config.isProduction) {
  if (!config.mail.smtpUrl) logger.warn({ dir: config.mail.dir }, "MAIL_FILES_IN_PRODUCTION=1: e-mails are written as files, none is sent");
  // The same check /readyz makes: a key Stripe refuses is told here, not by the first payment's 502.
  void paymentSetup.gateway.checkKeys().then((keys) => {
    if (keys.ok) logger.info("stripe: the keys answer");
    else logger.error({ reason: keys.reason }, `stripe: ${keys.reason}; /readyz answers 503 until it passes`);
  });
}
// Every minute (safe when several instances do it): lapsed registration holds give their PaymentIntents up, and
// payments still open minutes after their card form are settled by asking Stripe, and team families still missing
// the waiver get their one reminder before the event's freeze date. Deposit balances are reminded, charged and,
// unpaid past their grace date, released by the balance job below.
const holdSweep = setInterval(() => {
  (app.locals.sweepExpiredHolds as () => Promise<number>)().catch((err: Error) => logger.warn({ err: err.message }, "hold sweep failed; retried next minute"));
  (app.locals.reconcilePayments as () => Promise<number>)().catch((err: Error) => logger.warn({ err: err.message }, "payment reconciliation failed; retried next minute"));
  (app.locals.askForOfferRounds as () => Promise<number>)().catch((err: Error) => logger.warn({ err: err.message }, "waiting-list rounds not asked for; retried next minute"));
  (app.locals.sendFreezeReminders as () => Promise<number>)().catch((err: Error) => logger.warn({ err: err.message }, "freeze-date reminders failed; retried next minute"));
}, 60_000);
holdSweep.unref();
// Every minute too; a test's server may run it more often (BALANCE_JOB_INTERVAL_MS, refused in production), so a
// journey that moves the clock sees the reminder or the charge without waiting a minute.
const balanceJob = setInterval(() => {
  (app.locals.runBalanceJob as () => Promise<unknown>)().catch((err: Error) => logger.warn({ err: err.message }, "balance job failed; retried at its next run"));
}, config.balanceJobIntervalMs);
balanceJob.unref();
// The privacy page's periods: what has run out is deleted a minute after the start, then daily (harmless when
// several instances, or `npm run retention`, do it too).
const runRetention = () =>
  recordedJob(db, "retention", () => applyRetention(db, new Date()))().then(
    (deleted) => logger.info({ deleted }, "retention: data past its period deleted"),
    (err: Error) => logger.warn({ err: err.message }, "retention failed; retried tomorrow"),
  );
const firstRetention = setTimeout(() => void runRetention(), 60_000);
firstRetention.unref();
const dailyRetention = setInterval(() => void runRetention(), 86_400_000);
dailyRetention.unref();

let stopping = false;
async function shutdown(signal: string): Promise<void> {
  if (stopping) return;
  stopping = true;
  logger.info({ signal }, "shutting down: finishing in-flight requests");
  const force = setTimeout(() => {
    logger.error("in-flight requests did not finish in 20 s; exiting");
    process.exit(1);
  }, 20_000);
  force.unref();
  // Stop accepting; idle keep-alive sockets are closed, busy ones close after their response.
  await new Promise<void>((resolve) => {
    server.close(() => resolve());
    // Keep-alive sockets go idle as their last response ends; close them as they do.
    const sweep = setInterval(() => server.closeIdleConnections(), 100);
    server.once("close", () => clearInterval(sweep));
    server.closeIdleConnections();
  });
  clearInterval(holdSweep);
  clearInterval(balanceJob);
  clearTimeout(firstRetention);
  clearInterval(dailyRetention);
  metricsServer?.close();
  await offerQueue.stop();
  await outbox.stop();
  await shopifyWriteBacks?.stop();
  await refundJobs.stop();
  await paymentSetup.close();
  transport.close();
  await db.destroy();
  if (redis) await closeRedis(redis);
  logger.info("stopped");
  if (logDestination) await endLogs(logDestination);
  process.exit(0);
}
process.on("SIGTERM", () => void shutdown("SIGTERM"));
process.on("SIGINT", () => void shutdown("SIGINT"));
