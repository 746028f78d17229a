import type { Knex } from "knex";
import type { Registration } from "../core/registration.ts";
import { eventIdOf, lockWithRedemption } from "../core/tables/registrations.ts";
import type { Redemption } from "../core/money/redemptions.ts";
import { codeIdOf } from "../core/money/codes.ts";
import { holdIsLive } from "../core/deps.ts";
import { RestartTransaction } from "../../db/transaction.ts";
import { lockAggregate as lockAggregateRows } from "../core/withRegistration.ts";

/** The locks a registration's settlement takes (paymentHandler.ts), and the registration it read under them. */

/**
 * A hold paid well within its time needs no event lock: its places are counted already and stay counted once paid,
 * and so does its code's use, so neither the places left nor the code's limit is decided. The registration's own lock
 * orders it with everything else that changes the registration (the sweep, a re-post of its form). The settlement
 * then holds no lock that the event's holds wait for (a status change does not check the foreign key to the event
 * either: migrations/20261127090000_registrations_event_fk_index.ts). Anything else (a lapsed or lapsing hold,
 * another status) takes the aggregate's locks in their order; so does a run that found the hold no longer live under
 * the registration's lock, restarted (taking the event's lock after the registration's would break the lock order).
 */
export const LIVE_MARGIN_MS = 60_000;
export const liveHoldLocked = new WeakSet<Knex.Transaction>();
const needsEveryLock = new Set<string>();

export function restartWithEveryLock(reference: string): never {
  needsEveryLock.add(reference);
  throw new RestartTransaction(`registration ${reference}: its hold is no longer live, settled with every lock`);
}

export async function lockLiveHold(trx: Knex.Transaction, reference: string, now: Date): Promise<Registration | undefined> {
  if (needsEveryLock.delete(reference)) return undefined;
  // Locked at once (the paid family's hold is nearly always live): a hold found no longer live is released by the
  // restart before any other lock is taken, so the lock order holds without a look at the row first.
  const read = await lockWithRedemption(trx, reference);
  if (!read) return undefined;
  const { r, redemption } = read;
  if (!holdIsLive(r, new Date(now.getTime() + LIVE_MARGIN_MS))) restartWithEveryLock(reference);
  liveHoldLocked.add(trx);
  lockedIn.set(trx, r);
  if (redemption !== undefined) redemptionIn.set(trx, redemption);
  return r;
}

/** The aggregate's locks in their order (event, the code it uses, the registration); the registration as it now stands. */
export async function lockAggregate(trx: Knex.Transaction, reference: string): Promise<Registration | undefined> {
  const eventId = await eventIdOf(trx, reference);
  const r = eventId === undefined ? undefined : (await lockAggregateRows(trx, eventId, reference, codeIdOf))?.r;
  if (r) lockedIn.set(trx, r);
  return r;
}

/**
 * The registration as `expected` locked and read it, for `onPaid` in the same settling transaction (the core changes
 * only the payment row between the two): read once under the event's lock instead of twice.
 */
export const lockedIn = new WeakMap<Knex.Transaction, Registration>();

/** The registration's code use (null: none) read with it under its lock by lockLiveHold, for redeemUse in the same transaction. */
export const redemptionIn = new WeakMap<Knex.Transaction, Redemption | null>();
