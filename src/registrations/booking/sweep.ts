import { queuedLockingTransaction } from "../../db/rowQueue.ts";
import { eventKey, lockEvent } from "../core/locks.ts";
import { lockByReference, transition } from "../core/tables/registrations.ts";
import * as bookingRepo from "./repository.ts";
import { releaseUse } from "../core/money/codes.ts";
import { REGISTRATION_KIND, type RegistrationDeps } from "../core/deps.ts";
import { placesFreed } from "../core/placesFreed.ts";
import { sweepLapsedChanges } from "../changes/pendingChanges.ts";

/**
 * A payment Stripe is still confirming (`processing`: the webhook decides) or whose payer is in (or left) a 3-D
 * Secure challenge (`requires_action`) is never canceled under them: the hold's places were already free once it
 * lapsed, so waiting costs no place, and a late success then takes a place if one is free, or is refunded. A payer
 * who comes back pays the same intent with another card. (A payment in review, or paid, is never open: `cancel`
 * answers already_succeeded and the registration is left as it is.)
 */
async function confirmationUnderWay(deps: RegistrationDeps, intentId: string): Promise<boolean> {
  const intent = await deps.paymentCore.gateway.retrieveIntent(intentId);
  return intent.status === "processing" || intent.status === "requires_action";
}

/**
 * The periodic sweep: the PaymentIntents of lapsed holds are canceled and the holds marked expired (their places
 * were already free). Safe with several instances: canceling twice is harmless, a payment that succeeded meanwhile
 * is settled by the core instead of canceled, and the status change is decided under the aggregate's locks.
 */
export async function sweepLapsedHolds(deps: RegistrationDeps, limit = 50): Promise<number> {
  let swept = 0;
  for (const lapsed of await bookingRepo.expiredHolds(deps.db, deps.clock(), limit)) {
    const live = await deps.paymentCore.liveFor(REGISTRATION_KIND, lapsed.reference);
    try {
      if (live?.providerPaymentId && (await confirmationUnderWay(deps, live.providerPaymentId))) continue;
      // Cancel first: should Stripe have taken the money meanwhile, the core settles it instead (paid or refunded).
      if (live && (await deps.paymentCore.cancel(live)) === "already_succeeded") continue;
    } catch (err) {
      deps.logger.warn({ err: (err as Error).message, reference: lapsed.reference }, "could not cancel an expired hold's PaymentIntent; the next sweep tries again");
      continue;
    }
    const expired = await queuedLockingTransaction(deps.db, eventKey(lapsed.eventId), async (trx) => {
      const now = deps.clock();
      await lockEvent(trx, lapsed.eventId);
      const r = await lockByReference(trx, lapsed.reference);
      if (!r || r.status !== "pending_payment" || (r.reservedUntil?.getTime() ?? 0) > now.getTime()) return false;
      if (!(await transition(trx, r.id, "expire", now))) return false;
      await releaseUse(trx, r.id, now);
      await placesFreed(trx, r.eventId);
      return true;
    });
    if (expired) swept += 1;
  }
  // Paid registrations' changes not paid in time (an upgrade, athletes being added): the same steps, their own rows.
  return swept + (await sweepLapsedChanges(deps, limit));
}
