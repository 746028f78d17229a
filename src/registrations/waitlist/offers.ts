import type { Knex } from "knex";
import { placesTakenNow } from "../core/lapse.ts";
import { toDate } from "../../db/rows.ts";
import { queuedLockingTransaction } from "../../db/rowQueue.ts";
import { findEvent } from "../../events/repository.ts";
import { registrationClosingTime } from "../../shared/events/rules.ts";
import { eventKey, lockEvent } from "../core/locks.ts";
import { countPassedOver, entriesOf, setStatus } from "./tables/entries.ts";
import { holdsOf } from "./tables/rounds.ts";
import { chooseOffers, PASSES_BEFORE_BLOCKING } from "../../shared/registrations/waitingList.ts";
import { toLineEntry } from "./forSale.ts";
import { isRegistered } from "../core/states.ts";
import type { WaitingListDeps } from "./deps.ts";
import { makeOffer } from "./offer.ts";

/**
 * One offer round at an event, under the event's lock (its first statement): offers whose holds are all over are
 * closed (registered when a place was paid for, expired otherwise); then the places free now go to the line by
 * its rule (rules.ts: chooseOffers), each offer holding its places as pending registrations until its time is over.
 * Everything is decided on what is read under the lock, so rounds in several instances never offer a place twice.
 */
export async function offerRound(deps: WaitingListDeps, eventId: number): Promise<number> {
  const made = await queuedLockingTransaction(deps.db, eventKey(eventId), async (trx) => {
    const locked = await lockEvent(trx, eventId);
    if (!locked) return 0;
    const now = deps.clock();
    await closeFinishedOffers(trx, eventId, now);
    const closesAt = registrationClosingTime(toDate(locked.registration_closes_at), toDate(locked.start_date)!);
    if (closesAt.getTime() <= now.getTime()) return 0;
    const free = Number(locked.capacity) - (await placesTakenNow(trx, eventId, locked, now));
    const line = await entriesOf(trx, eventId, ["waiting"]);
    if (free <= 0 || line.length === 0) return 0;
    const event = (await findEvent(trx, eventId))!;
    const { offered, passed } = chooseOffers(line.map(toLineEntry), free, now.getTime());
    const holdsUntil = new Date(now.getTime() + deps.offerHours * 3_600_000);
    await countPassedOver(trx, passed.map((p) => line.find((e) => e.id === p.id)!), PASSES_BEFORE_BLOCKING, holdsUntil, now);
    for (const chosen of offered) await makeOffer(trx, deps, event, line.find((e) => e.id === chosen.id)!, now);
    return offered.length;
  });
  if (made > 0) deps.outbox.wake();
  return made;
}

async function closeFinishedOffers(trx: Knex.Transaction, eventId: number, now: Date): Promise<void> {
  for (const entry of await entriesOf(trx, eventId, ["offered"])) {
    const holds = await holdsOf(trx, entry.id);
    const live = holds.some((h) => h.status === "pending_payment" && (h.reservedUntil?.getTime() ?? 0) > now.getTime());
    if (live) continue;
    const paid = holds.some((h) => isRegistered(h.status) || h.status === "needs_review");
    await setStatus(trx, entry.id, ["offered"], paid ? "registered" : "expired", now);
  }
}
