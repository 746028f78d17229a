/**
 * The site's reconciliation job (src/payments/reconcile.ts) run once by `npm run bench:rush` after the rush, on the
 * run's database and against its fake Stripe: what each instance does every minute for the payments still open 5
 * minutes after they were made (a charge whose browser return and webhook both failed). It runs in this process
 * with the instances' configuration (their database and Stripe keys) and the payment kinds registered as the app
 * registers them, at the time the job would first ask about the run's last payment (now + RECONCILE_AFTER_MS), so
 * the bench need not wait those minutes; the settlement itself (the kind's hold, places and refund) goes by the real
 * clock, as the job's does.
 */
import { loadConfig } from "../../src/config.ts";
import { createDb } from "../../src/db/knex.ts";
import type { JobQueue } from "../../src/db/jobQueue.ts";
import { createLogger } from "../../src/logger.ts";
import { createPaymentCore } from "../../src/payments/core.ts";
import { reconcileOpenPayments, RECONCILE_AFTER_MS } from "../../src/payments/reconcile.ts";
import { dueForReconciliation } from "../../src/payments/repository.ts";
import { setUpPayments } from "../../src/payments/setup.ts";
import { registerOrderPayments } from "../../src/orders/checkout.ts";
import { registerRegistrationWingPayments } from "../../src/registrations/payments.ts";
import { buildSite } from "../../src/shared/site.ts";
import { now } from "../../src/clock.ts";

export interface ReconcilePass {
  /** Open payments (pending or failed, with a PaymentIntent) the job asked Stripe about. */
  asked: number;
  /** Of them, the ones it settled: paid, refunded (the hold was gone and no place free) or sent to review. */
  settled: number;
}

/** E-mails and refunds the settlement writes wait in the database for the instances' queues, as an operator command's do. */
const sentByTheInstances: JobQueue = { drain: async () => 0, wake() {}, start() {}, stop: async () => {} };

export async function reconcilePass(env: Record<string, string>): Promise<ReconcilePass> {
  const config = loadConfig({ ...env, NODE_ENV: "production" }, "command");
  const logger = createLogger("error");
  const db = createDb(config.database, logger);
  const payments = await setUpPayments(config, logger);
  try {
    const paymentCore = createPaymentCore({ db, gateway: payments.gateway, logger });
    const site = buildSite(config.brandName, { shipsStarting: config.shipsStartingDate });
    const publicUrl = config.publicUrl ?? `http://localhost:${config.port}`;
    registerOrderPayments({ db, paymentCore, outbox: sentByTheInstances, logger, site, shopifyWriteBacks: undefined, shippingFlatRateCents: config.shippingFlatRateCents, publicUrl });
    registerRegistrationWingPayments({ db, paymentCore, outbox: sentByTheInstances, logger, site, limits: config.registrationLimits, clock: now, publicUrl });
    const at = new Date(Date.now() + RECONCILE_AFTER_MS);
    const pass: ReconcilePass = { asked: 0, settled: 0 };
    // The job takes 50 a minute; here its runs follow each other until nothing is due (each asked payment's next
    // question is minutes after `at`).
    for (;;) {
      const due = (await dueForReconciliation(db, at, RECONCILE_AFTER_MS, 50)).length;
      if (due === 0) return pass;
      pass.asked += due;
      pass.settled += await reconcileOpenPayments({ db, paymentCore, logger }, at);
    }
  } finally {
    await payments.close();
    await db.destroy();
  }
}
