import type { Db } from "../db/knex.ts";
import type { Logger } from "../logger.ts";
import type { PaymentCore } from "./core.ts";
import * as repo from "./repository.ts";

/** An open payment is first asked about this long after it was made (the browser's return and the webhook come first). */
export const RECONCILE_AFTER_MS = 5 * 60_000;
/** Then again after these pauses, longest last; Stripe itself retries a webhook for three days. */
const BACKOFF_MS = [5 * 60_000, 15 * 60_000, 60 * 60_000, 6 * 60 * 60_000];
/** After this many questions the payment is left to its PaymentIntent's expiry (a card never confirmed). */
const MAX_CHECKS = 16;

/**
 * Nothing charged is left unsettled: for every kind of payment (shop orders and registrations alike), the payments
 * still open some minutes after their PaymentIntent was made are settled by asking Stripe, through the same path as
 * the webhook (`settle`: paid exactly once, its e-mail once). For a payment whose browser return and webhook both
 * failed (an outage, a crash after the card was confirmed). Safe with several instances: each payment is claimed by
 * one conditional UPDATE before Stripe is asked, and settling is exactly-once anyway.
 */
export async function reconcileOpenPayments(deps: { db: Db; paymentCore: PaymentCore; logger: Logger }, now = new Date(), limit = 50): Promise<number> {
  let settled = 0;
  for (const payment of await repo.dueForReconciliation(deps.db, now, RECONCILE_AFTER_MS, limit)) {
    const next = new Date(now.getTime() + BACKOFF_MS[Math.min(payment.checks, BACKOFF_MS.length - 1)]!);
    if (!(await repo.claimReconciliation(deps.db, payment.id, now, next, payment.checks >= MAX_CHECKS - 1))) continue;
    try {
      const result = await deps.paymentCore.settle(payment.intentId, "webhook");
      if (result.status === "paid" || result.status === "refunded" || result.status === "mismatch") {
        settled += 1;
        deps.logger.warn({ kind: payment.kind, reference: payment.reference, status: result.status }, "open payment settled by reconciliation");
      }
    } catch (err) {
      deps.logger.warn({ err: (err as Error).message, kind: payment.kind, reference: payment.reference }, "could not reconcile an open payment; asked again later");
    }
  }
  return settled;
}
