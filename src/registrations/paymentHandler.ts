import type { Knex } from "knex";
import { enqueueEmail } from "../email/outbox.ts";
import { findEvent, placesLeft } from "../events/repository.ts";
import type { PaymentRow } from "../payments/repository.ts";
import * as repo from "./repository.ts";
import type { Registration } from "./repository.ts";
import { canTransition } from "./states.ts";
import { codeIdOf, redeemUse, releaseUse } from "./codes.ts";
import { lateRegistrationRefundEmail, registrationConfirmationEmail, registrationRefundedEmail } from "./email.ts";
import { confirmationManageUrl } from "./manage/links.ts";
import { holdIsLive, REGISTRATION_KIND, type RegistrationDeps } from "./deps.ts";

/**
 * The registrations' handler in the payment core. The core locks the payment row, then `expected` takes the
 * aggregate's locks in their order (event, code, registration) and says what the registration now asks for: its
 * amount and version. The core compares them with the PaymentIntent and the version it was made for; only a match
 * reaches `onPaid`, any difference goes to `onReview` (needs_review: the places stay held for the operator).
 */
export function registerRegistrationPayments(deps: RegistrationDeps): void {
  deps.paymentCore.register(REGISTRATION_KIND, {
    async queueKey(db, reference) {
      const eventId = await repo.eventIdOf(db, reference);
      return eventId === undefined ? undefined : repo.eventKey(eventId);
    },

    async expected(trx, reference) {
      const r = await lockAggregate(trx, reference);
      return r ? { amountCents: r.amountCents, version: r.version } : null;
    },

    async onPaid(trx, payment) {
      const r = await repo.findByReference(trx, payment.reference);
      if (!r) return { reject: "no such registration" };
      if (r.status === "paid") return "duplicate";
      // Another payment of it is in review: this one is refunded, the registration waits for the operator as it is.
      if (r.status === "needs_review") return { reject: "the registration's earlier payment is in review" };
      if (!canTransition(r.status, "pay")) return refuse(trx, r, payment, "full", `the registration is ${r.status}`);
      const now = deps.clock();
      const held = holdIsLive(r, now);
      // A payment for a lapsed hold takes its places only when they are still free (the event row is locked).
      if (!held && (await placesLeft(trx, r.eventId, now, r.id)) < r.places) return refuse(trx, r, payment, "full", "the hold expired and the event is full");
      const discount = await redeemUse(trx, r.id, held, now);
      if ("reject" in discount) return refuse(trx, r, payment, "discount", discount.reject);
      await repo.transition(trx, r.id, "pay", now, { amount_paid_cents: payment.amountCents, paid_at: now, reserved_until: null });
      const paid = (await repo.findByReference(trx, r.reference))!;
      const event = await findEvent(trx, paid.eventId);
      if (event) await enqueueEmail(trx, registrationConfirmationEmail(deps.site, event, paid, discount.redemption, await confirmationManageUrl(trx, deps, paid.id, now)));
      return "accepted";
    },

    async onReview(trx, payment, reason) {
      const r = await repo.findByReference(trx, payment.reference);
      if (r && (await repo.transition(trx, r.id, "flagForReview", deps.clock(), { reserved_until: null }))) {
        deps.logger.error({ reference: r.reference, reason }, "registration payment does not match what it registers: needs_review");
      }
    },

    async onRefunded(trx, payment, refund) {
      const r = await lockAggregate(trx, payment.reference);
      if (!r) return;
      const now = deps.clock();
      if (refund.amountRefundedCents > r.amountRefundedCents) await repo.setAmountRefunded(trx, r.id, refund.amountRefundedCents, now);
      if (!refund.full || !(await repo.transition(trx, r.id, "refund", now, { reserved_until: null }))) return;
      await releaseUse(trx, r.id, now);
      const event = await findEvent(trx, r.eventId);
      if (event) await enqueueEmail(trx, registrationRefundedEmail(deps.site, event, r, refund.amountRefundedCents));
    },

    async afterPaid() {
      deps.outbox.wake();
    },
    async afterChange() {
      deps.outbox.wake();
    },
  });

  /** The payment cannot be taken (the places or the code's uses are gone): the registration is refunded and the payer told. */
  async function refuse(trx: Knex.Transaction, r: Registration, payment: PaymentRow, why: "full" | "discount", reason: string) {
    if (await repo.transition(trx, r.id, "refund", deps.clock(), { reserved_until: null })) {
      const event = await findEvent(trx, r.eventId);
      if (event) await enqueueEmail(trx, lateRegistrationRefundEmail(deps.site, event, r, payment.amountCents, why));
    }
    return { reject: reason };
  }
}

/** The aggregate's locks in their order (event, the code it uses, the registration); the registration as it now stands. */
async function lockAggregate(trx: Knex.Transaction, reference: string): Promise<Registration | undefined> {
  const eventId = await repo.eventIdOf(trx, reference);
  if (eventId === undefined) return undefined;
  await repo.lockEvent(trx, eventId);
  const id = await repo.idOf(trx, reference);
  const codeId = id === undefined ? undefined : await codeIdOf(trx, id);
  if (codeId !== undefined) await repo.lockCode(trx, codeId);
  return repo.lockByReference(trx, reference);
}
