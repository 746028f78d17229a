/**
 * What the operator's payment commands work with: the database and a payment core with the shop's and the
 * registrations' kinds registered as the app registers them, so an operator's decision goes through the same code
 * and locks as a payment. A command never calls Stripe, SMTP or Shopify itself: it writes the refund request, the
 * e-mail or the write-back in the database, and a running app instance's job queues send them (in offline test mode
 * the fake Stripe lives inside the app process).
 */
import path from "node:path";
import { fileURLToPath } from "node:url";
import { pino } from "pino";
import type { Config } from "../config.ts";
import { commandConfig } from "./commandConfig.ts";
import { createDb, type Db } from "../db/knex.ts";
import type { JobQueue } from "../db/jobQueue.ts";
import { createLogger, type Logger } from "../logger.ts";
import { createPaymentCore, type PaymentCore } from "../payments/core.ts";
import type { PaymentGateway } from "../payments/gateway.ts";
import { registerOrderPayments } from "../orders/checkout.ts";
import { createShopifyWriteBacks } from "../orders/shopifyWriteBack.ts";
import { registerRegistrationWingPayments } from "../registrations/payments.ts";
import { buildSite, type Site } from "../shared/site.ts";
import { followClockFile, now } from "../clock.ts";
import { announceCommandChanges } from "./announceChanges.ts";

/** A refused operator command: its one line, and nothing was changed. */
export class OperatorError extends Error {}

export interface OperatorContext {
  db: Db;
  paymentCore: PaymentCore;
  site: Site;
  /** The site's public origin, for links in e-mails. */
  publicUrl: string;
  logger: Logger;
  /** The site's business time: a demo's moved clock (`npm run clock`) as the app's instances follow it. */
  now: () => Date;
}

/** A job queue of the running app instances: what a command writes waits for them (their timers, or their next wake). */
const sentByTheApp: JobQueue = { drain: async () => 0, wake() {}, start() {}, stop: async () => {} };

/** The gateway of a process that must not call Stripe: every call fails, so a code path that would is found at once. */
const noStripe = new Proxy({} as PaymentGateway, {
  get(_target, prop) {
    if (prop === "mode") return "offline";
    if (prop === "publishableKey") return "";
    if (prop === "offline" || prop === "then") return undefined;
    return () => Promise.reject(new Error(`operator commands do not call Stripe (${String(prop)}): a running app instance does`));
  },
});

export function createOperatorContext(config: Config, db: Db, logger: Logger): OperatorContext {
  if (config.clockFile) followClockFile(config.clockFile);
  const site = buildSite(config.brandName, { shipsStarting: config.shipsStartingDate });
  const publicUrl = config.publicUrl ?? `http://localhost:${config.port}`;
  const paymentCore = createPaymentCore({ db, gateway: noStripe, logger });
  const shopifyWriteBacks = createShopifyWriteBacks({ db, shopify: config.shopify, logger }) ? sentByTheApp : undefined;
  registerOrderPayments({ db, paymentCore, outbox: sentByTheApp, logger, site, shopifyWriteBacks, shippingFlatRateCents: config.shippingFlatRateCents, publicUrl });
  registerRegistrationWingPayments({ db, paymentCore, outbox: sentByTheApp, logger, site, limits: config.registrationLimits, clock: now, publicUrl });
  return { db, paymentCore, site, publicUrl, logger, now };
}

/**
 * Runs an operator command as the other commands do: `--help`, bad input as one line (exit 1), the app's
 * configuration and database, and one line for a refusal or a failure. `run` answers the exit code.
 */
export async function runOperatorCommand<T extends object>(
  argv: string[],
  parse: (argv: string[]) => T | { help: true } | { error: string },
  usage: string,
  run: (ctx: OperatorContext, cmd: T) => Promise<number>,
): Promise<number> {
  const cmd = parse(argv);
  if ("help" in cmd) return (console.log(usage), 0);
  if ("error" in cmd) return (console.error(cmd.error), 1);
  const config = commandConfig();
  if (!config) return 1;
  // Errors only, on standard error: the command's own lines are its output.
  const logger = createLogger("error", pino.destination(2));
  const db = createDb(config.database, logger);
  const announced = announceCommandChanges(config, db, logger);
  try {
    return await run(createOperatorContext(config, db, logger), cmd);
  } catch (err) {
    console.error(err instanceof OperatorError ? err.message : isUnmigrated(err) ? UNMIGRATED : `Nothing was changed: ${(err as Error).message.split("\n")[0]}`);
    return 1;
  } finally {
    await announced.settled();
    await db.destroy();
  }
}

export const UNMIGRATED = "The database has no tables yet: run `npm run migrate` first (or start the site once with `npm start`). Nothing was changed.";

/** A query on a database that was never migrated: SQLite's "no such table", MySQL's ER_NO_SUCH_TABLE. */
function isUnmigrated(err: unknown): boolean {
  const e = err as { errno?: number; code?: string; message?: string };
  return e?.errno === 1146 || e?.code === "ER_NO_SUCH_TABLE" || /no such table/.test(String(e?.message));
}

/** True when this module is the script node was started with (not imported by a test). */
export function isMain(moduleUrl: string): boolean {
  return Boolean(process.argv[1]) && path.resolve(process.argv[1]!) === fileURLToPath(moduleUrl);
}
