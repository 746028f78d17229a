import { queuedLockingTransaction } from "../../db/rowQueue.ts";
import { DomainError } from "../../errors.ts";
import type { EventDetail } from "../../shared/events/types.ts";
import { OPEN_STATUSES } from "../../payments/transitions.ts";
import { CHANGE_TEXT } from "../../shared/registrations/changeTexts.ts";
import { eventKey } from "../core/locks.ts";
import type { Registration } from "../core/registration.ts";
import { findChange, moveChange, type RegistrationChange } from "../core/tables/changes.ts";
import * as changesRepo from "./repository.ts";
import { CHANGE_KIND, type RegistrationDeps } from "../core/deps.ts";
import { lockChange } from "../core/withRegistration.ts";
import { PAYMENT_SETUP_ERROR } from "../core/money/payment.ts";
import { placesFreed } from "../core/placesFreed.ts";

/**
 * A paid change while it waits for its payment (its payment is settled by the handler in paidChanges.ts): the
 * payment page's PaymentIntent, the registrant's cancellation, and the sweep of changes not paid in time.
 */

/**
 * The change's PaymentIntent for its payment page: created, or the same one again (a reload, a second tab, a re-post).
 * Null when the change no longer waits for a payment.
 */
export async function prepareChangePayment(deps: RegistrationDeps, event: Pick<EventDetail, "title">, r: Registration, c: RegistrationChange): Promise<string | null> {
  if (c.status !== "pending" || c.reservedUntil.getTime() <= deps.clock().getTime()) return null;
  const what = c.data.kind === "upgrade" ? `upgrade to ${c.data.packageLabel}` : `${c.places} ${c.places === 1 ? "athlete" : "athletes"} added`;
  const { clientSecret } = await deps.paymentCore.ensureIntent({
    kind: CHANGE_KIND,
    reference: String(c.id),
    amountCents: c.amountCents,
    description: `${event.title}: ${what} (${r.reference})`,
    email: r.contact.email,
    group: r.reference,
    // On a deposit registration, its card's Customer: the saved card can then pay the change on session.
    customerId: r.deposit?.customerId ?? undefined,
  });
  return clientSecret;
}

/**
 * Whether the change's payment is confirmed or being confirmed at Stripe (then nothing may undo it); a confirmed
 * payment is settled here at once.
 */
async function changePaymentUnderWay(deps: RegistrationDeps, c: RegistrationChange): Promise<boolean> {
  const live = await deps.paymentCore.liveFor(CHANGE_KIND, String(c.id));
  if (!live) return false;
  if (!OPEN_STATUSES.includes(live.status)) return true;
  if (!live.providerPaymentId) return false;
  const intent = await deps.paymentCore.gateway.retrieveIntent(live.providerPaymentId);
  if (intent.status === "processing" || intent.status === "requires_action") return true;
  if (intent.status !== "succeeded") return false;
  await deps.paymentCore.settle(live.providerPaymentId, "return");
  return true;
}

/**
 * The registrant lets a pending change go: its PaymentIntent is canceled first (outside any transaction; a payment
 * that went through meanwhile is settled instead and the change is not cancelled), then, under the aggregate's
 * locks, the change is marked cancelled and any places it held are freed for the waiting list.
 */
export async function cancelChange(deps: RegistrationDeps, registrationId: number, id: number): Promise<"cancelled" | "paid"> {
  const c = await findChange(deps.db, id);
  if (!c || c.registrationId !== registrationId) throw new DomainError("not_found", "No such change");
  if (c.status !== "pending") return c.status === "paid" ? "paid" : "cancelled";
  const live = await deps.paymentCore.liveFor(CHANGE_KIND, String(c.id));
  try {
    if (await changePaymentUnderWay(deps, c)) throw new DomainError("conflict", CHANGE_TEXT.cancelTooLate);
    if (live && (await deps.paymentCore.cancel(live)) === "already_succeeded") throw new DomainError("conflict", CHANGE_TEXT.cancelTooLate);
  } catch (err) {
    if (err instanceof DomainError) throw err;
    deps.logger.warn({ err: (err as Error).message, changeId: c.id }, "could not cancel a registration change's PaymentIntent");
    throw new DomainError("upstream_failed", PAYMENT_SETUP_ERROR.message);
  }
  return queuedLockingTransaction(deps.db, eventKey(c.eventId), async (trx) => {
    const locked = await lockChange(trx, c.id);
    if (!locked) throw new DomainError("not_found", "No such change");
    if (locked.change.status === "paid") return "paid" as const;
    if (await moveChange(trx, c.id, "cancel", deps.clock())) {
      if (locked.change.places > 0) await placesFreed(trx, c.eventId);
    }
    return "cancelled" as const;
  });
}

/**
 * The periodic sweep of changes not paid in time (with sweepLapsedHolds, every minute on each instance): the
 * PaymentIntent is canceled (a payment Stripe is still confirming is left to the webhook; one that succeeded
 * meanwhile is settled by the core instead), then the change is marked expired under the aggregate's locks and
 * the waiting list is told of the places it held. Safe with several instances: each step happens once.
 */
export async function sweepLapsedChanges(deps: RegistrationDeps, limit = 50): Promise<number> {
  let swept = 0;
  for (const lapsed of await changesRepo.lapsedChanges(deps.db, deps.clock(), limit)) {
    const live = await deps.paymentCore.liveFor(CHANGE_KIND, String(lapsed.id));
    try {
      if (live?.providerPaymentId) {
        const intent = await deps.paymentCore.gateway.retrieveIntent(live.providerPaymentId);
        if (intent.status === "processing" || intent.status === "requires_action") continue;
      }
      if (live && (await deps.paymentCore.cancel(live)) === "already_succeeded") continue;
    } catch (err) {
      deps.logger.warn({ err: (err as Error).message, changeId: lapsed.id }, "could not cancel a lapsed change's PaymentIntent; the next sweep tries again");
      continue;
    }
    const expired = await queuedLockingTransaction(deps.db, eventKey(lapsed.eventId), async (trx) => {
      const locked = await lockChange(trx, lapsed.id);
      const now = deps.clock();
      if (!locked || locked.change.status !== "pending" || locked.change.reservedUntil.getTime() > now.getTime()) return false;
      if (!(await moveChange(trx, lapsed.id, "expire", now))) return false;
      if (locked.change.places > 0) await placesFreed(trx, lapsed.eventId);
      return true;
    });
    if (expired) swept += 1;
  }
  return swept;
}
