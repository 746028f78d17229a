import { enqueueEmail } from "../../email/outbox.ts";
import { findEvent } from "../../events/repository.ts";
import { REJECTED_REFUND_KEY_PREFIX, type PaidOutcome } from "../../payments/core.ts";
import { eventKey } from "../core/locks.ts";
import { findChange, moveChange, type RegistrationChange } from "../core/tables/changes.ts";
import * as changesRepo from "./repository.ts";
import { CHANGE_KIND, type RegistrationDeps } from "../core/deps.ts";
import { lockChange } from "../core/withRegistration.ts";
import { changeRefundedEmail } from "./email.ts";
import { registrationRefundFailed, syncRegistrationRefunds } from "./refundOutcomes.ts";
import { applyPaidChange, cannotApply } from "./applyChange.ts";

/**
 * A paid registration's changes that cost money (README: Managing a registration after payment): an individual's
 * upgrade (changes/upgrade.ts) and athletes added to a team (changes/addAthletes.ts). Each change is a row of
 * `registration_changes` paid through its own PaymentIntent: payment kind `registration_change`, reference the row's
 * id, group the registration's reference (src/payments/groups.ts: the registration's money is its group's). This
 * module is that kind's handler in the payment core; the change's payment page, its cancellation and the sweep of
 * changes not paid in time are pendingChanges.ts.
 */
/** How long a change's places are kept (renewed each time Stripe still says so) while its payment is `processing`. */
const PROCESSING_HOLD_MS = 24 * 60 * 60_000;
/** Statuses from which a payment that arrives is still applied when the registration allows it. */
const PAYABLE: readonly RegistrationChange["status"][] = ["pending", "expired", "cancelled"];

const changeId = (reference: string) => (/^\d{1,12}$/.test(reference) ? Number(reference) : -1);

export function registerChangePayments(deps: RegistrationDeps): void {
  deps.paymentCore.register(CHANGE_KIND, {
    async queueKey(db, reference) {
      const c = await findChange(db, changeId(reference));
      return c ? eventKey(c.eventId) : undefined;
    },

    async expected(trx, reference) {
      const locked = await lockChange(trx, changeId(reference));
      return locked ? { amountCents: locked.change.amountCents } : null;
    },

    async onPaid(trx, payment): Promise<PaidOutcome> {
      // The aggregate as `expected` locked it (taking a lock this transaction holds changes nothing).
      const locked = await lockChange(trx, changeId(payment.reference));
      if (!locked) return { reject: "no such change" };
      const { change: c, r, eventRow } = locked;
      if (c.status === "paid") return "duplicate";
      const byOperator = c.status === "needs_review" && payment.paidVia === "operator";
      if (!PAYABLE.includes(c.status) && !byOperator) return { reject: `the change is ${c.status}` };
      const event = (await findEvent(trx, c.eventId))!;
      const now = deps.clock();
      const why = await cannotApply(deps, trx, c, r, eventRow, event, now, byOperator);
      if (why) {
        await moveChange(trx, c.id, "reject", now);
        deps.logger.warn({ reference: r.reference, changeId: c.id, why }, "a paid registration change could no longer apply; refunded");
        return { reject: why };
      }
      await applyPaidChange(deps, trx, c, r, event, now);
      deps.logger.info({ reference: r.reference, changeId: c.id, kind: c.kind }, "registration change paid and applied");
      return "accepted";
    },

    async onProcessing(trx, payment) {
      const now = deps.clock();
      await changesRepo.keepChangeUntil(trx, changeId(payment.reference), new Date(now.getTime() + PROCESSING_HOLD_MS), now);
    },

    async onReview(trx, payment, reason) {
      if (await moveChange(trx, changeId(payment.reference), "flagForReview", deps.clock())) {
        deps.logger.error({ changeId: payment.reference, reason }, "registration change payment does not match the change: needs_review");
      }
    },

    async onRefunded(trx, payment, refund) {
      const locked = await lockChange(trx, changeId(payment.reference));
      if (!locked) return;
      const event = await findEvent(trx, locked.r.eventId);
      if (refund.refund?.requestKey.startsWith(REJECTED_REFUND_KEY_PREFIX)) {
        if (event) await enqueueEmail(trx, changeRefundedEmail(deps.site, event, locked.r, refund.amountRefundedCents));
        return;
      }
      // A cancellation or a cheaper package refunded part of what this change paid: the registration's total follows.
      await syncRegistrationRefunds(deps, trx, locked.r);
    },

    async onRefundFailed(trx, payment, refund) {
      if (refund.requestKey.startsWith(REJECTED_REFUND_KEY_PREFIX)) return; // the change's payment waits in review
      const locked = await lockChange(trx, changeId(payment.reference));
      if (locked) await registrationRefundFailed(deps, trx, locked.r, refund);
    },

    async afterPaid() {
      deps.outbox.wake();
    },
    async afterChange() {
      deps.outbox.wake();
    },
  });
}

