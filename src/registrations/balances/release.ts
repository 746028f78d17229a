import { DomainError } from "../../errors.ts";
import { enqueueEmail } from "../../email/outbox.ts";
import { findEvent } from "../../events/repository.ts";
import { refundAcross } from "../../payments/core.ts";
import { cancellationRefundCents, refundPercent } from "../../shared/registrations/changePolicy.ts";
import { transition } from "../core/tables/registrations.ts";
import type { RegistrationDeps } from "../core/deps.ts";
import { withRegistration, type Permit } from "../core/withRegistration.ts";
import { placesFreed } from "../core/placesFreed.ts";
import { balanceReleasedEmail } from "./email.ts";
import * as repo from "./repository.ts";
import type { Balance } from "./repository.ts";
import { graceEndsAt } from "./schedule.ts";

/**
 * The grace release (with the balance job, each minute on every instance): a balance still unpaid at the policy's
 * grace date (balance_due_at + balance_grace_days) gives its places up. That is a `balance_overdue` registration, or a
 * `deposit_paid` one whose last attempt asked for the cardholder's authentication and was never paid. Under the
 * registration's locks (its payments, the event, the registration: withRegistration) it is withdrawn, the deposit is
 * refunded as the cancellation policy says for that day, the waiting list is told of the places, and the payer is
 * e-mailed; the transition happens once, so several instances release it once. Returns how many were released.
 */
export async function releaseUnpaidBalances(deps: RegistrationDeps): Promise<number> {
  const now = deps.clock();
  let released = 0;
  for (const b of await repo.unpaidPastDue(deps.db, now)) {
    if (graceEndsAt(b.dueAt!, b.graceDays).getTime() > now.getTime()) continue;
    if (b.status === "deposit_paid" && (await repo.latestCharge(deps.db, b.registrationId))?.status !== "authentication_required") continue;
    if (await release(deps, b)) released += 1;
  }
  if (released > 0) {
    deps.outbox.wake();
    deps.paymentCore.refundJobs.wake();
  }
  return released;
}

/** Only a balance still unpaid is released (another instance, or the payer on the manage page, may have come first). */
const stillUnpaid: Permit = (_allowed, r) => (r.status === "balance_overdue" || r.status === "deposit_paid" ? undefined : `the registration is ${r.status}`);

async function release(deps: RegistrationDeps, b: Balance): Promise<boolean> {
  const event = await findEvent(deps.db, b.eventId);
  if (!event) return false;
  try {
    return await withRegistration(deps, b.reference, { event, permit: stillUnpaid, money: true }, async ({ trx, now, r, allowed, money }) => {
      if (r.status === "deposit_paid") await transition(trx, r.id, "balanceOverdue", now);
      const paidCents = Math.min(r.amountPaidCents ?? 0, r.amountCents);
      const percent = refundPercent(allowed.startsAt, now);
      const refundCents = Math.min(cancellationRefundCents(paidCents, r.amountRefundedCents, allowed.startsAt, now), money.refundableCents);
      const fields = { withdrawn_at: now, withdrawal_refund_cents: refundCents, version: r.version + 1 };
      if (!(await transition(trx, r.id, "releaseOverdue", now, fields))) return false;
      const parts = refundCents > 0 ? await refundAcross(trx, deps.paymentCore, r.reference, refundCents, `balance-release:registration:${r.id}`, `balance unpaid at the grace date (${percent}% under the policy)`) : [];
      await placesFreed(trx, b.eventId);
      await enqueueEmail(trx, balanceReleasedEmail(deps.site, event, r, { cents: refundCents, percent, paidCents, parts }));
      deps.logger.warn({ reference: r.reference, refundCents }, "balance unpaid at the grace date: places released to the waiting list");
      return true;
    });
  } catch (err) {
    // Refused under the locks: paid or released meanwhile, or its money moved (the next pass looks again).
    if (err instanceof DomainError) return false;
    throw err;
  }
}
