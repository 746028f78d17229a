import type { Knex } from "knex";
import { enqueueEmail } from "../../email/outbox.ts";
import { findEvent, keptEvent } from "../../events/repository.ts";
import { placesLeftForLate } from "../core/lapse.ts";
import { REJECTED_REFUND_KEY_PREFIX, type PaidOutcome } from "../../payments/core.ts";
import type { PaymentRow } from "../../payments/repository.ts";
import { eventPaymentsKey, registrationPaymentsKey } from "../core/locks.ts";
import type { Registration } from "../core/registration.ts";
import { keepHoldUntil } from "../core/tables/holds.ts";
import { eventIdOf, findByReference, lockByReference, settlementStateOf, transition } from "../core/tables/registrations.ts";
import { canTransition, REGISTRATION_TRANSITIONS } from "../core/states.ts";
import { codeIdOf, redeemUse } from "../core/money/codes.ts";
import { lateRegistrationRefundEmail, registrationConfirmationEmail } from "../core/email.ts";
import { confirmationManageUrl } from "../changes/links.ts";
import { queueFamilyLinks } from "../changes/family.ts";
import { holdIsLive, REGISTRATION_KIND, type RegistrationDeps } from "../core/deps.ts";
import { RestartTransaction } from "../../db/transaction.ts";
import { registrationRefundFailed, syncRegistrationRefunds } from "../changes/refundOutcomes.ts";
import { lockAggregate as lockAggregateRows } from "../core/withRegistration.ts";
import { amountDueNow, paysDeposit, rememberDepositCard } from "../core/money/deposit.ts";

/**
 * The registrations' handler in the payment core. The core locks the payment row, then `expected` takes the
 * aggregate's locks in their order (event, code, registration; the registration's alone for a live hold, see
 * lockLiveHold) and says what the registration now asks for: its
 * amount and version. The core compares them with the PaymentIntent and the version it was made for; only a match
 * reaches `onPaid`, any difference goes to `onReview` (needs_review: the places stay held for the operator).
 */
/** How long a live hold is kept (renewed each time Stripe still says so) while its payment is `processing`. */
export const PROCESSING_HOLD_MS = 24 * 60 * 60_000;

/** Starts the refund reason of a payment refused because the discount code's last use went to someone else. */
const DISCOUNT_REJECTION = "discount: ";

export function registerRegistrationPayments(deps: RegistrationDeps): void {
  deps.paymentCore.register(REGISTRATION_KIND, {
    async queueKey(db, reference) {
      const seen = await settlementStateOf(db, reference);
      if (!seen) return undefined;
      // Kept before the transaction (usually kept already: no statement), so that its confirmation e-mail reads none.
      await findEvent(db, seen.eventId);
      // A live hold's settlement locks only its registration (lockLiveHold): it queues behind that registration's own
      // settlements (the return and the webhook), not behind every payment of the event; the others take the event's lock.
      return holdIsLive(seen, new Date(deps.clock().getTime() + LIVE_MARGIN_MS)) ? registrationPaymentsKey(reference) : eventPaymentsKey(seen.eventId);
    },

    async expected(trx, reference) {
      const r = (await lockLiveHold(trx, reference, deps.clock())) ?? (await lockAggregate(trx, reference));
      return r ? { amountCents: amountDueNow(r), version: r.version } : null;
    },

    async onPaid(trx, payment) {
      const locked = lockedIn.get(trx);
      const underLock = locked?.reference === payment.reference;
      const r = underLock ? locked : await findByReference(trx, payment.reference);
      if (!r) return { reject: "no such registration" };
      if (r.status === "paid" || r.status === "deposit_paid") return "duplicate";
      const now = deps.clock();
      if (r.status === "needs_review") {
        // An operator accepted the payment in review (PaymentCore.acceptReview): its places were kept, it is paid as it is.
        if (payment.paidVia === "operator") return confirm(trx, r, payment, "acceptReview", true, now, underLock);
        // Another payment of it is in review: this one is refunded, the registration waits for the operator as it is.
        return { reject: "the registration's earlier payment is in review" };
      }
      if (!canTransition(r.status, "pay")) return { reject: `the registration is ${r.status}` };
      const held = holdIsLive(r, now);
      // Locked as a live hold (without the event's lock) but lapsed since: run again with every lock.
      if (!held && liveHoldLocked.has(trx)) restartWithEveryLock(payment.reference);
      // A payment for a lapsed hold takes its places only when they are still free (the event row is locked).
      if (!held && (await placesLeftForLate(trx, r, now)) < r.places) return { reject: "the hold expired and the event is full" };
      return confirm(trx, r, payment, paysDeposit(r) ? "payDeposit" : "pay", held, now, underLock);
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

  /** The registration takes the payment: its code's use is redeemed, it is paid and the payer gets the confirmation. */
  async function confirm(trx: Knex.Transaction, r: Registration, payment: PaymentRow, step: "pay" | "payDeposit" | "acceptReview", held: boolean, now: Date, underLock: boolean): Promise<PaidOutcome> {
    const discount = await redeemUse(trx, r.id, held, now);
    if ("reject" in discount) return { reject: `${DISCOUNT_REJECTION}${discount.reject}` };
    const fields = { amount_paid_cents: payment.amountCents, paid_at: now, reserved_until: null };
    // `r` read under this transaction's lock (expected): the transition needs no read of its own.
    await transition(trx, r.id, step, now, fields, underLock ? r : undefined);
    // The row as just written (the transition's target is paid), without reading it back under the lock.
    const paid: Registration = { ...r, status: REGISTRATION_TRANSITIONS[step].to, amountPaidCents: payment.amountCents, paidAt: now, reservedUntil: null };
    if (r.deposit) depositsPaid.add(r.reference);
    // The e-mail's event as every instance keeps it (queueKey made sure of it before the transaction); read here only when it was emptied meanwhile.
    const event = keptEvent(deps.db, paid.eventId) ?? (await findEvent(trx, paid.eventId));
    if (event) {
      await enqueueEmail(trx, registrationConfirmationEmail(deps.site, event, paid, discount.redemption, await confirmationManageUrl(trx, deps, paid.id, now)));
      await queueFamilyLinks(trx, deps, event, paid, now);
    }
    return "accepted";
  }
}

/**
 * A hold paid well within its time needs no event lock: its places are counted already and stay counted once paid,
 * and so does its code's use, so neither the places left nor the code's limit is decided. The registration's own lock
 * orders it with everything else that changes the registration (the sweep, a re-post of its form). The settlement
 * then holds no lock that the event's holds wait for (a status change does not check the foreign key to the event
 * either: migrations/20261127090000_registrations_event_fk_index.ts). Anything else (a lapsed or lapsing hold,
 * another status) takes the aggregate's locks in their order; so does a run that found the hold no longer live under
 * the registration's lock, restarted (taking the event's lock after the registration's would break the lock order).
 */
const LIVE_MARGIN_MS = 60_000;
const liveHoldLocked = new WeakSet<Knex.Transaction>();
const needsEveryLock = new Set<string>();

function restartWithEveryLock(reference: string): never {
  needsEveryLock.add(reference);
  throw new RestartTransaction(`registration ${reference}: its hold is no longer live, settled with every lock`);
}

async function lockLiveHold(trx: Knex.Transaction, reference: string, now: Date): Promise<Registration | undefined> {
  if (needsEveryLock.delete(reference)) return undefined;
  // Locked at once (the paid family's hold is nearly always live): a hold found no longer live is released by the
  // restart before any other lock is taken, so the lock order holds without a look at the row first.
  const r = await lockByReference(trx, reference);
  if (!r) return undefined;
  if (!holdIsLive(r, new Date(now.getTime() + LIVE_MARGIN_MS))) restartWithEveryLock(reference);
  liveHoldLocked.add(trx);
  lockedIn.set(trx, r);
  return r;
}

/** The aggregate's locks in their order (event, the code it uses, the registration); the registration as it now stands. */
async function lockAggregate(trx: Knex.Transaction, reference: string): Promise<Registration | undefined> {
  const eventId = await eventIdOf(trx, reference);
  const r = eventId === undefined ? undefined : (await lockAggregateRows(trx, eventId, reference, codeIdOf))?.r;
  if (r) lockedIn.set(trx, r);
  return r;
}

/**
 * Registrations on a deposit plan whose payment onPaid accepted in this process, for afterPaid (after the commit) to
 * keep their card; the others' afterPaid reads nothing. An entry left by a transaction that then failed is taken by
 * the next settlement of the same registration.
 */
const depositsPaid = new Set<string>();

/**
 * The registration as `expected` locked and read it, for `onPaid` in the same settling transaction (the core changes
 * only the payment row between the two): read once under the event's lock instead of twice.
 */
const lockedIn = new WeakMap<Knex.Transaction, Registration>();
