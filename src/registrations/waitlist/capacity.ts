import type { Knex } from "knex";
import { placesTakenNow } from "../core/lapse.ts";
import type { Db } from "../../db/knex.ts";
import { bumpEventsVersion } from "../../events/version.ts";
import { queuedLockingTransaction } from "../../db/rowQueue.ts";

import { eventKey, lockEventForChange } from "../core/locks.ts";
import { placesFreed } from "../core/placesFreed.ts";
import { roundPending, setEventCapacity } from "./tables/rounds.ts";

export type CapacityChange = { ok: true; from: number; to: number; roundAsked: boolean } | { ok: false; reason: string };

/**
 * An operator changes an event's capacity, under the event's lock: never below the places paid for or held now;
 * raised, the new places are the waiting list's first (an offer round is asked for in the same transaction).
 */
export async function setCapacity(db: Db, eventId: number, capacity: number, now: Date): Promise<CapacityChange> {
  return queuedLockingTransaction(db, eventKey(eventId), async (trx) => {
    const locked = await lockEventForChange(trx, eventId);
    if (!locked) return { ok: false, reason: `There is no event ${eventId}.` };
    return changeLockedCapacity(trx, eventId, locked, capacity, now);
  });
}

/** setCapacity's decision inside a caller's transaction whose first statement locked the event (`locked`, its row). */
export async function changeLockedCapacity(trx: Knex.Transaction, eventId: number, locked: Record<string, unknown>, capacity: number, now: Date): Promise<CapacityChange> {
  const taken = await placesTakenNow(trx, eventId, locked, now);
  if (capacity < taken) return { ok: false, reason: `${taken} places of event ${eventId} are paid for or held: its capacity cannot go below that.` };
  const from = Number(locked.capacity);
  await setEventCapacity(trx, eventId, capacity);
  // Every app instance shows the new places at its next request.
  await bumpEventsVersion(trx);
  const raised = capacity > from;
  if (raised) await placesFreed(trx, eventId);
  return { ok: true, from, to: capacity, roundAsked: raised && (await roundPending(trx, eventId)) };
}
