import type { AddressInfo } from "node:net";
import { ConfigError, loadConfig } from "./config.ts";
import { asyncStdout, createLogger, endLogs } from "./logger.ts";
import { createDb, migrateLatest } from "./db/knex.ts";
import { closeRedis, connectRedis } from "./redis.ts";
import { createMailTransport } from "./email/transport.ts";
import { createOutbox } from "./email/outbox.ts";
import { createShopifyWriteBacks } from "./orders/shopifyWriteBack.ts";
import { createApp } from "./app.ts";
import { createHttpServer } from "./http/httpServer.ts";
import { createCatalogueSource } from "./catalogue/createSource.ts";
import { setUpPayments } from "./payments/setup.ts";
import { reactBuild } from "./reactBuild.ts";

let config;
try {
  config = loadConfig();
} catch (err) {
  if (err instanceof ConfigError) {
    console.error(err.message);
    process.exit(1);
  }
  throw err;
}

// Production writes its logs asynchronously (endLogs on shutdown); elsewhere each line is written at once.
const logDestination = config.isProduction ? asyncStdout() : undefined;
const logger = createLogger(config.logLevel, logDestination);
const react = reactBuild();
if (config.isProduction && react !== "production") {
  logger.fatal("NODE_ENV=production, but React's development build is loaded: NODE_ENV must be set before the process starts");
  await endLogs(logDestination!);
  process.exit(1);
}
if (config.database.client === "better-sqlite3") logger.warn({ file: config.database.filename }, "DATABASE_URL is not set: using embedded SQLite");

const db = createDb(config.database, logger);
await migrateLatest(db);
const redis = config.redis ? await connectRedis(config.redis.url, logger) : undefined;
const transport = createMailTransport({ smtpUrl: config.mail.smtpUrl, dir: config.mail.dir });
const outbox = createOutbox({ db, transport, from: config.mail.from, logger });
outbox.start();
const shopifyWriteBacks = createShopifyWriteBacks({ db, shopify: config.shopify, logger });
shopifyWriteBacks?.start();

const catalogue = createCatalogueSource(config, logger);
const paymentSetup = await setUpPayments(config, logger);
const app = createApp({ config, db, redis, logger, outbox, catalogue, gateway: paymentSetup.gateway, shopifyWriteBacks });
const server = createHttpServer(app).listen(config.port, config.host, () => {
  const { port } = server.address() as AddressInfo;
  // Offline test mode: the fake Stripe delivers its signed webhooks to this process, like Stripe would.
  paymentSetup.gateway.offline?.setWebhookUrl(`http://127.0.0.1:${port}/api/stripe/webhook`);
  logger.info({ port, react }, `listening on http://localhost:${port}`);
});
// Every minute (safe when several instances do it): lapsed registration holds give their PaymentIntents up, and
// payments still open minutes after their card form are settled by asking Stripe.
const holdSweep = setInterval(() => {
  (app.locals.sweepExpiredHolds as () => Promise<number>)().catch((err: Error) => logger.warn({ err: err.message }, "hold sweep failed; retried next minute"));
  (app.locals.reconcilePayments as () => Promise<number>)().catch((err: Error) => logger.warn({ err: err.message }, "payment reconciliation failed; retried next minute"));
}, 60_000);
holdSweep.unref();

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
  await outbox.stop();
  await shopifyWriteBacks?.stop();
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
