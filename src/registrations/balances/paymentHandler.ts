import type { Knex } from "knex";
import { enqueueEmail } from "../../email/outbox.ts";
import { findEvent } from "../../events/repository.ts";
import { REJECTED_REFUND_KEY_PREFIX, type PaidOutcome } from "../../payments/core.ts";
import { eventPaymentsKey } from "../core/locks.ts";
import { eventIdOf, findByReference, idsOf, transition } from "../core/tables/registrations.ts";
import { canTransition } from "../core/states.ts";
import { BALANCE_KIND, type RegistrationDeps } from "../core/deps.ts";
import { registrationRefundFailed, syncRegistrationRefunds } from "../changes/refundOutcomes.ts";
import { lockAggregate as lockAggregateRows } from "../core/withRegistration.ts";
import { balanceDuplicateRefundEmail, balanceReceiptEmail } from "./email.ts";
import { balanceOf, isJobAttempt } from "./repository.ts";
import { attemptKeyOf } from "../../payments/savedCards.ts";

/**
 * The payment kind of a deposit registration's balance: reference and group are the registration's reference. Its
 * payments are made by the balance job (off session, src/registrations/balances/job.ts) and by the manage page's "Pay
 * the balance now" (on session); whichever settles first (the job, the return or the webhook: the core settles each
 * payment once) moves the registration from deposit_paid or balance_overdue to paid and queues the receipt. A second
 * balance payment that arrives for a registration paid in full is rejected: the core refunds it in full.
 */

export function registerBalancePayments(deps: RegistrationDeps): void {
  deps.paymentCore.register(BALANCE_KIND, {
    async queueKey(db, reference) {
      const eventId = await eventIdOf(db, reference);
      return eventId === undefined ? undefined : eventPaymentsKey(eventId);
    },

    /** The aggregate's locks in their order (event, registration; the balance decides nothing about a code): what is owed now. */
    async expected(trx, reference) {
      const r = await lockAggregate(trx, reference);
      if (!r || !canTransition(r.status, "payBalance")) return null;
      return { amountCents: Math.max(0, r.amountCents - (r.amountPaidCents ?? 0)) };
    },

    async onPaid(trx, payment): Promise<PaidOutcome> {
      const r = await findByReference(trx, payment.reference);
      if (!r) return { reject: "no such registration" };
      if (!canTransition(r.status, "payBalance")) return { reject: r.status === "paid" ? "the balance is paid already" : `the registration is ${r.status}` };
      const now = deps.clock();
      const paidCents = (r.amountPaidCents ?? 0) + payment.amountCents;
      await transition(trx, r.id, "payBalance", now, { amount_paid_cents: paidCents });
      const event = await findEvent(trx, r.eventId);
      if (event) await enqueueEmail(trx, balanceReceiptEmail(deps.site, event, r, payment.amountCents, paidCents, { at: now, savedCardCharged: payment.paidVia === "off_session" || (await isJobAttempt(trx, r.id, attemptKeyOf(payment))) }));
      deps.logger.info({ reference: r.reference, amountCents: payment.amountCents }, "registration balance paid");
      return "accepted";
    },

    async onReview(trx, payment, reason) {
      // The registration keeps its state and places: an operator decides (npm run payments -- review list).
      const b = await balanceOf(trx, payment.reference);
      deps.logger.error({ reference: payment.reference, status: b?.status, reason }, "balance payment does not match what is owed: needs_review");
    },

    async onRefunded(trx, payment, refund) {
      const r = await lockAggregate(trx, payment.reference);
      if (!r) return;
      if (refund.refund?.requestKey.startsWith(REJECTED_REFUND_KEY_PREFIX)) {
        const event = await findEvent(trx, r.eventId);
        if (event) await enqueueEmail(trx, balanceDuplicateRefundEmail(deps.site, event, r, refund.amountRefundedCents));
        return;
      }
      await syncRegistrationRefunds(deps, trx, r);
    },

    async onRefundFailed(trx, payment, refund) {
      if (refund.requestKey.startsWith(REJECTED_REFUND_KEY_PREFIX)) return; // the payment waits in review for the operator
      const r = await lockAggregate(trx, payment.reference);
      if (r) await registrationRefundFailed(deps, trx, r, refund);
    },

    async afterPaid() {
      deps.outbox.wake();
    },
    async afterChange() {
      deps.outbox.wake();
    },
  });
}

/** The event's lock, then the registration's (src/registrations/core/withRegistration.ts: the lock order). */
async function lockAggregate(trx: Knex.Transaction, reference: string) {
  const ids = await idsOf(trx, reference);
  return ids ? (await lockAggregateRows(trx, ids.eventId, reference))?.r : undefined;
}
