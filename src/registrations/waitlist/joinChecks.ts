import type { Knex } from "knex";
import { toDate } from "../../db/rows.ts";
import { placesTakenNow } from "../core/lapse.ts";
import { DomainError } from "../../errors.ts";
import { registrationClosingTime } from "../../shared/events/rules.ts";
import type { EventDetail } from "../../shared/events/types.ts";
import { placesHeldBy } from "../core/tables/holds.ts";
import { REGISTRATION_ERRORS } from "../../shared/registrations/rules.ts";
import { activeEntryFor, type Joiner } from "./tables/entries.ts";
import { lineLoad } from "./tables/lineLoad.ts";
import { WAITLIST_TEXT, type JoinRequest } from "../../shared/registrations/waitingList.ts";
import { placesForSale } from "./forSale.ts";
import type { WaitingListDeps } from "./deps.ts";

/**
 * Why a visitor may not join the event's line now (join.ts, under the event's lock, `locked` its row): registration
 * closed, more places than the event has, places still for sale, the address already in line, or the per-visitor cap
 * (the visitor's requests, entries, offers and held places, and the address's entries and offers, with these places:
 * at most maxHeldPlacesPerVisitor). Answers nothing when it may.
 */
export async function refuseJoin(
  trx: Knex.Transaction,
  deps: WaitingListDeps,
  at: { event: EventDetail; locked: Record<string, unknown>; req: JoinRequest; joiner: Joiner },
  now: Date,
): Promise<void> {
  const { event, locked, req, joiner } = at;
  const closesAt = registrationClosingTime(toDate(locked.registration_closes_at), toDate(locked.start_date)!);
  if (closesAt.getTime() <= now.getTime()) throw new DomainError("conflict", REGISTRATION_ERRORS.closed, "registration_closed");
  const capacity = Number(locked.capacity);
  if (req.places > capacity) throw new DomainError("invalid", WAITLIST_TEXT.tooLarge(capacity));
  const free = capacity - (await placesTakenNow(trx, event.id, locked, now));
  if ((await placesForSale(trx, event.id, free, now)) >= req.places) throw new DomainError("conflict", WAITLIST_TEXT.notSoldOut);
  if (await activeEntryFor(trx, event.id, req.email)) throw new DomainError("conflict", WAITLIST_TEXT.alreadyOn);
  const cap = deps.limits.maxHeldPlacesPerVisitor;
  const inLine = await lineLoad(trx, { ...joiner, email: req.email }, now);
  const held = await placesHeldBy(trx, joiner, now);
  if (Math.max(inLine.session + held.session, inLine.address + held.address, inLine.email) + req.places > cap) throw new DomainError("conflict", WAITLIST_TEXT.visitorCap(cap));
}
