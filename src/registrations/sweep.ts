import { queuedLockingTransaction } from "../db/rowQueue.ts";
import * as repo from "./repository.ts";
import { releaseUse } from "./codes.ts";
import { REGISTRATION_KIND, type RegistrationDeps } from "./deps.ts";
import { placesFreed } from "./waitlist/offers.ts";

/** How long after its hold lapsed a payment inside a 3-D Secure challenge is left to finish before it is canceled. */
export const CHALLENGE_GRACE_MS = 15 * 60_000;

/**
 * A payment Stripe is still confirming (`processing`: the webhook decides) or whose payer is inside a 3-D Secure
 * challenge (`requires_action`, for a while) is not canceled under them; a late success then takes a place if one
 * is free, or is refunded.
 */
async function confirmationUnderWay(deps: RegistrationDeps, intentId: string, reservedUntil: Date): Promise<boolean> {
  const intent = await deps.paymentCore.gateway.retrieveIntent(intentId);
  if (intent.status === "processing") return true;
  return intent.status === "requires_action" && deps.clock().getTime() - reservedUntil.getTime() < CHALLENGE_GRACE_MS;
}

/**
 * The periodic sweep: the PaymentIntents of lapsed holds are canceled and the holds marked expired (their places
 * were already free). Safe with several instances: canceling twice is harmless, a payment that succeeded meanwhile
 * is settled by the core instead of canceled, and the status change is decided under the aggregate's locks.
 */
export async function sweepLapsedHolds(deps: RegistrationDeps, limit = 50): Promise<number> {
  let swept = 0;
  for (const lapsed of await repo.expiredHolds(deps.db, deps.clock(), limit)) {
    const live = await deps.paymentCore.liveFor(REGISTRATION_KIND, lapsed.reference);
    try {
      if (live?.providerPaymentId && (await confirmationUnderWay(deps, live.providerPaymentId, lapsed.reservedUntil))) continue;
      // Cancel first: should Stripe have taken the money meanwhile, the core settles it instead (paid or refunded).
      if (live && (await deps.paymentCore.cancel(live)) === "already_succeeded") continue;
    } catch (err) {
      deps.logger.warn({ err: (err as Error).message, reference: lapsed.reference }, "could not cancel an expired hold's PaymentIntent; the next sweep tries again");
      continue;
    }
    const expired = await queuedLockingTransaction(deps.db, repo.eventKey(lapsed.eventId), async (trx) => {
      const now = deps.clock();
      await repo.lockEvent(trx, lapsed.eventId);
      const r = await repo.lockByReference(trx, lapsed.reference);
      if (!r || r.status !== "pending_payment" || (r.reservedUntil?.getTime() ?? 0) > now.getTime()) return false;
      if (!(await repo.transition(trx, r.id, "expire", now))) return false;
      await releaseUse(trx, r.id, now);
      await placesFreed(trx, r.eventId);
      return true;
    });
    if (expired) swept += 1;
  }
  return swept;
}
