import { queuedLockingTransaction } from "../../db/rowQueue.ts";
import { eventKey, lockEvent } from "../core/locks.ts";
import { claimHold, placesHeldBy } from "../core/tables/holds.ts";
import { lockByReference, transition } from "../core/tables/registrations.ts";
import { REGISTRATION_KIND } from "../core/deps.ts";
import { entryByOfferToken, lockEntry, setStatus, type Entry, type Joiner } from "./tables/entries.ts";
import { lineLoad } from "./tables/lineLoad.ts";
import { holdsOf } from "./tables/rounds.ts";
import type { WaitingListDeps } from "./deps.ts";
import { placesFreed } from "../core/placesFreed.ts";
import type { OfferPlace } from "../../shared/registrations/waitingList.ts";
import { isRegistered } from "../core/states.ts";

export interface Offer {
  entry: Entry;
  places: OfferPlace[];
  /** The offer still holds places that can be registered. */
  open: boolean;
}

/** The offer an offer link names (the link's token is compared by its hash); undefined for an unknown link. */
export async function findOffer(deps: WaitingListDeps, token: string): Promise<Offer | undefined> {
  const entry = await entryByOfferToken(deps.db, token);
  if (!entry) return undefined;
  const now = deps.clock().getTime();
  const places = (await holdsOf(deps.db, entry.id)).map((h): OfferPlace => ({
    placeNumber: h.placeNumber,
    reference: h.reference,
    places: h.places,
    state:
      isRegistered(h.status) || h.status === "needs_review"
        ? "registered"
        : h.status === "pending_payment" && (h.reservedUntil?.getTime() ?? 0) > now
          ? "held"
          : "released",
  }));
  return { entry, places, open: entry.status === "offered" && places.some((p) => p.state === "held") };
}

/**
 * Leaves the line (a waiting entry) or declines an offer (its holds not yet being paid are released), under the
 * event's lock; the released places go to the next in line at once. True when something changed.
 */
export async function leaveLine(deps: WaitingListDeps, entry: Entry): Promise<boolean> {
  // A hold whose payment has begun is left to that payment (read before the transaction: no network call inside).
  const holds = await holdsOf(deps.db, entry.id);
  const paying = new Set<string>();
  for (const h of holds) if (await deps.paymentCore.liveFor(REGISTRATION_KIND, h.reference)) paying.add(h.reference);
  const changed = await queuedLockingTransaction(deps.db, eventKey(entry.eventId), async (trx) => {
    await lockEvent(trx, entry.eventId);
    const now = deps.clock();
    const current = await lockEntry(trx, entry.id);
    if (current?.status === "waiting") return setStatus(trx, entry.id, ["waiting"], "left", now);
    if (current?.status !== "offered") return false;
    let released = 0;
    for (const h of holds) {
      if (paying.has(h.reference)) continue;
      const r = await lockByReference(trx, h.reference);
      if (r && (await transition(trx, r.id, "cancelHold", now, { reserved_until: null }))) released += r.places;
    }
    await setStatus(trx, entry.id, ["offered"], "declined", now);
    if (released > 0) await placesFreed(trx, entry.eventId);
    return true;
  });
  if (changed) deps.logger.info({ eventId: entry.eventId, entryId: entry.id }, "waiting list: left or declined");
  return changed;
}

/**
 * A visitor takes one held place of an offer (its form opens next): under the event's lock, the place's registration
 * is the visitor's from now on, so its places count against the visitor's cap (with the visitor's requests, entries,
 * offers and other held places). "overCap" changes nothing; "gone" when the place is no longer held.
 */
export async function takePlace(deps: WaitingListDeps, entry: Entry, place: OfferPlace, holder: Joiner): Promise<"taken" | "gone" | "overCap"> {
  return queuedLockingTransaction(deps.db, eventKey(entry.eventId), async (trx) => {
    await lockEvent(trx, entry.eventId);
    const now = deps.clock();
    const r = await lockByReference(trx, place.reference);
    if (!r || r.status !== "pending_payment" || (r.reservedUntil?.getTime() ?? 0) <= now.getTime()) return "gone";
    const inLine = await lineLoad(trx, { ...holder, email: null }, now, r.id);
    const held = await placesHeldBy(trx, holder, now, r.id);
    if (Math.max(inLine.session + held.session, inLine.address + held.address) + r.places > deps.limits.maxHeldPlacesPerVisitor) return "overCap";
    await claimHold(trx, r.id, holder, now);
    return "taken";
  });
}
