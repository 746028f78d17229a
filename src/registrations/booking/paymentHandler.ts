import { enqueueEmail } from "../../email/outbox.ts";
import { findEvent } from "../../events/repository.ts";
import { placesLeftForLate } from "../core/lapse.ts";
import { REJECTED_REFUND_KEY_PREFIX } from "../../payments/core.ts";
import { eventPaymentsKey, registrationPaymentsKey } from "../core/locks.ts";
import { keepHoldUntil } from "../core/tables/holds.ts";
import { findByReference, settlementStateOf, transition, type SettlementState } from "../core/tables/registrations.ts";
import { canTransition } from "../core/states.ts";
import { lateRegistrationRefundEmail } from "../core/email.ts";
import { holdIsLive, REGISTRATION_KIND, type RegistrationDeps } from "../core/deps.ts";
import { registrationRefundFailed, syncRegistrationRefunds } from "../changes/refundOutcomes.ts";
import { amountDueNow, paysDeposit, rememberDepositCard } from "../core/money/deposit.ts";
import { asPageLinkAsk, confirmPaid, depositsPaid, DISCOUNT_REJECTION } from "./confirmPaid.ts";
import { LIVE_MARGIN_MS, liveHoldLocked, lockAggregate, lockedIn, lockLiveHold, restartWithEveryLock } from "./settlementLocks.ts";

/**
 * The registrations' handler in the payment core. The core locks the payment row, then `expected` takes the
 * aggregate's locks in their order (event, code, registration; the registration's alone for a live hold, see
 * lockLiveHold) and says what the registration now asks for: its
 * amount and version. The core compares them with the PaymentIntent and the version it was made for; only a match
 * reaches `onPaid`, any difference goes to `onReview` (needs_review: the places stay held for the operator).
 */
/** How long a live hold is kept (renewed each time Stripe still says so) while its payment is `processing`. */
export const PROCESSING_HOLD_MS = 24 * 60 * 60_000;

/**
 * The queue a registration's settlement joins, from its state read before the transaction. The event is kept
 * before the transaction too (usually kept already: no statement), so that its confirmation e-mail reads none.
 */
export async function settlementQueueKey(deps: RegistrationDeps, reference: string, seen: SettlementState): Promise<string> {
  await findEvent(deps.db, seen.eventId);
  // A live hold's settlement locks only its registration (lockLiveHold): it queues behind that registration's own
  // settlements (the return and the webhook), not behind every payment of the event; the others take the event's lock.
  return holdIsLive(seen, new Date(deps.clock().getTime() + LIVE_MARGIN_MS)) ? registrationPaymentsKey(reference) : eventPaymentsKey(seen.eventId);
}

export function registerRegistrationPayments(deps: RegistrationDeps): void {
  deps.paymentCore.register(REGISTRATION_KIND, {
    async queueKey(db, reference) {
      const seen = await settlementStateOf(db, reference);
      return seen ? settlementQueueKey(deps, reference, seen) : undefined;
    },

    async expected(trx, reference) {
      const r = (await lockLiveHold(trx, reference, deps.clock())) ?? (await lockAggregate(trx, reference));
      return r ? { amountCents: amountDueNow(r), version: r.version } : null;
    },

    async onPaid(trx, payment, context) {
      // The return's ask for the page's link (confirmReturn.ts): told afresh by each run of the transaction.
      const page = asPageLinkAsk(context);
      if (page) page.token = undefined;
      const locked = lockedIn.get(trx);
      const underLock = locked?.reference === payment.reference;
      const r = underLock ? locked : await findByReference(trx, payment.reference);
      if (!r) return { reject: "no such registration" };
      if (r.status === "paid" || r.status === "deposit_paid") return "duplicate";
      const now = deps.clock();
      if (r.status === "needs_review") {
        // An operator accepted the payment in review (PaymentCore.acceptReview): its places were kept, it is paid as it is.
        if (payment.paidVia === "operator") return confirmPaid(deps, trx, r, payment, "acceptReview", true, now, underLock, page);
        // Another payment of it is in review: this one is refunded, the registration waits for the operator as it is.
        return { reject: "the registration's earlier payment is in review" };
      }
      if (!canTransition(r.status, "pay")) return { reject: `the registration is ${r.status}` };
      const held = holdIsLive(r, now);
      // Locked as a live hold (without the event's lock) but lapsed since: run again with every lock.
      if (!held && liveHoldLocked.has(trx)) restartWithEveryLock(payment.reference);
      // A payment for a lapsed hold takes its places only when they are still free (the event row is locked).
      if (!held && (await placesLeftForLate(trx, r, now)) < r.places) return { reject: "the hold expired and the event is full" };
      return confirmPaid(deps, trx, r, payment, paysDeposit(r) ? "payDeposit" : "pay", held, now, underLock, page);
    },

    async onProcessing(trx, payment) {
      const now = deps.clock();
      const r = await findByReference(trx, payment.reference);
      // The bank is still deciding: the live hold is kept (its places stay taken) until the webhook says.
      if (r && (await keepHoldUntil(trx, r.id, new Date(now.getTime() + PROCESSING_HOLD_MS), now))) {
        deps.logger.info({ reference: r.reference }, "registration payment processing: hold kept");
      }
    },

    async onReview(trx, payment, reason) {
      const r = await findByReference(trx, payment.reference);
      if (r && (await transition(trx, r.id, "flagForReview", deps.clock(), { reserved_until: null }))) {
        deps.logger.error({ reference: r.reference, reason }, "registration payment does not match what it registers: needs_review");
      }
    },

    async onRefunded(trx, payment, refund) {
      const r = await lockAggregate(trx, payment.reference);
      if (!r) return;
      const now = deps.clock();
      // A payment the registration could not take, now refunded: the payer is told why, and a registration that this
      // payment did not pay ends refunded (one paid, or in review, by another payment stays as it is).
      if (refund.refund?.requestKey.startsWith(REJECTED_REFUND_KEY_PREFIX)) {
        if (r.status === "paid" || r.status === "deposit_paid" || r.status === "needs_review" || !(await transition(trx, r.id, "refund", now, { reserved_until: null }))) return;
        const why = payment.refundReason?.startsWith(DISCOUNT_REJECTION) ? "discount" : "full";
        const event = await findEvent(trx, r.eventId);
        if (event) await enqueueEmail(trx, lateRegistrationRefundEmail(deps.site, event, r, payment.amountCents, why));
        return;
      }
      // The registration's amount refunded is the total over its own payment and its paid changes' (changes/refundOutcomes.ts).
      await syncRegistrationRefunds(deps, trx, r, refund.full);
    },

    async onRefundFailed(trx, payment, refund) {
      // A rejected payment's refund that failed waits in review for the operator (the core moved it there).
      if (refund.requestKey.startsWith(REJECTED_REFUND_KEY_PREFIX)) return;
      const r = await lockAggregate(trx, payment.reference);
      if (r) await registrationRefundFailed(deps, trx, r, refund);
    },

    async afterPaid(payment) {
      deps.outbox.wake();
      // A deposit's card, kept for the balance (a network call: after the commit). Only a deposit's payment has one to keep.
      if (depositsPaid.delete(payment.reference)) await rememberDepositCard(deps, payment);
    },
    async afterChange() {
      deps.outbox.wake();
    },
  });
}
