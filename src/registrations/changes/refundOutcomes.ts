import type { Knex } from "knex";
import { enqueueEmail } from "../../email/outbox.ts";
import { findEvent } from "../../events/repository.ts";
import { moneyOf, type RefundRow } from "../../payments/core.ts";
import type { Registration } from "../core/registration.ts";
import { setAmountRefunded, transition } from "../core/tables/registrations.ts";
import type { RegistrationDeps } from "../core/deps.ts";
import { registrationRefundedEmail } from "../core/email.ts";
import { releaseUse } from "../core/money/codes.ts";
import { placesFreed } from "../core/placesFreed.ts";
import { refundFailedEmail } from "./email.ts";

/**
 * What Stripe has refunded of each payment that paid the registration (its own and its paid changes': the payment
 * group, src/payments/groups.ts), oldest first: one part per payment, as the card shows the refunds. A payment its
 * kind rejected was never the registration's money and is left out.
 */
async function refundedParts(trx: Knex.Transaction, r: Registration): Promise<number[]> {
  const money = await moneyOf(trx, r.reference);
  return money.payments.filter((p) => !p.rejected && p.payment.amountRefundedCents > 0).map((p) => p.payment.amountRefundedCents);
}

/**
 * A refund of one of a registration's payments succeeded: the registration's amount refunded becomes the total over
 * every payment that paid it, and once that is everything paid, the registration is refunded (its places freed, the
 * contact e-mailed). Under the aggregate's locks, in the refund's transaction.
 */
export async function syncRegistrationRefunds(deps: RegistrationDeps, trx: Knex.Transaction, r: Registration, ownPaymentFullyRefunded = false): Promise<void> {
  const now = deps.clock();
  const parts = await refundedParts(trx, r);
  const total = parts.reduce((sum, c) => sum + c, 0);
  if (total > r.amountRefundedCents) await setAmountRefunded(trx, r.id, total, now);
  // A registration in review was never counted as paid (amount_paid_cents 0): its own payment refunded in full is all of it.
  const paid = r.amountPaidCents ?? 0;
  const everything = paid > 0 ? total >= paid : ownPaymentFullyRefunded;
  if (!everything || !(await transition(trx, r.id, "refund", now, { reserved_until: null }))) return;
  await releaseUse(trx, r.id, now);
  await placesFreed(trx, r.eventId);
  // A refund sent again after one failed: its correction already told the payer it is on its way, and a card that
  // sent one back may send this one back too; a "Refunded" e-mail now would make a pair with the next correction.
  if (r.status === "refund_failed") return;
  const event = await findEvent(trx, r.eventId);
  if (event) await enqueueEmail(trx, registrationRefundedEmail(deps.site, event, r, parts));
}

/**
 * A refund of the registration's money failed for good (Stripe refused it, or took it and then failed it: card 5126),
 * under the aggregate's locks in the refund's transaction, once per refund: the amount refunded goes back to what
 * Stripe still holds as refunded, a canceled or refunded registration reads `refund_failed` (its places stay free; the
 * roster shows it) and its payer gets the correction. The operator sees it in `npm run payments -- refunds failed`.
 */
export async function registrationRefundFailed(deps: RegistrationDeps, trx: Knex.Transaction, r: Registration, refund: RefundRow): Promise<void> {
  const now = deps.clock();
  await setAmountRefunded(trx, r.id, (await refundedParts(trx, r)).reduce((sum, c) => sum + c, 0), now);
  // Only a payer who was told of a refund (a cancellation's receipt, the refunded e-mail) is told it failed.
  if (await transition(trx, r.id, "refundFailed", now)) {
    const event = await findEvent(trx, r.eventId);
    if (event) await enqueueEmail(trx, refundFailedEmail(deps.site, event, r, refund.amountCents));
  }
  deps.logger.error({ reference: r.reference, refundId: refund.id, amountCents: refund.amountCents }, "registration refund failed: the payer is told, an operator must refund it again");
}
