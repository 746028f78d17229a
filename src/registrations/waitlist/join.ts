import { toDate } from "../../db/rows.ts";
import { queuedLockingTransaction } from "../../db/rowQueue.ts";
import { DomainError } from "../../errors.ts";
import { enqueueEmail } from "../../email/outbox.ts";
import { placesTaken } from "../../events/repository.ts";
import { registrationClosingTime } from "../../shared/events/rules.ts";
import type { EventDetail } from "../../shared/events/types.ts";
import * as regRepo from "../repository.ts";
import { REGISTRATION_ERRORS } from "../../shared/registrations/rules.ts";
import * as repo from "./repository.ts";
import type { Entry } from "./repository.ts";
import { WAITLIST_TEXT, type JoinRequest } from "../../shared/registrations/waitingList.ts";
import { joinedEmail } from "./email.ts";
import { placesFreed, type WaitingListDeps } from "./offers.ts";

/**
 * Joins the event's line, at its end, under the event's lock (positions and "sold out" are decided there): only when
 * the places open to this family or team are fewer than they need, and once per e-mail address while in line.
 * The confirmation e-mail with the leave link is written in the same transaction. Should places be free (a team
 * too large for them joined), an offer round is asked for: someone behind may fit.
 */
export async function joinLine(deps: WaitingListDeps, event: EventDetail, req: JoinRequest): Promise<Entry> {
  const entry = await queuedLockingTransaction(deps.db, regRepo.eventKey(event.id), async (trx) => {
    const locked = await regRepo.lockEvent(trx, event.id);
    if (!locked) throw new DomainError("not_found", REGISTRATION_ERRORS.closed);
    const now = deps.clock();
    const closesAt = registrationClosingTime(toDate(locked.registration_closes_at), toDate(locked.start_date)!);
    if (closesAt.getTime() <= now.getTime()) throw new DomainError("conflict", REGISTRATION_ERRORS.closed);
    const capacity = Number(locked.capacity);
    if (req.places > capacity) throw new DomainError("invalid", WAITLIST_TEXT.tooLarge(capacity));
    const free = capacity - (await placesTaken(trx, event.id, now));
    const open = (await repo.lineComesFirst(trx, event.id)) ? 0 : free;
    if (open >= req.places) throw new DomainError("conflict", WAITLIST_TEXT.notSoldOut);
    if (await repo.activeEntryFor(trx, event.id, req.email)) throw new DomainError("conflict", WAITLIST_TEXT.alreadyOn);
    const { token, hash } = repo.newToken();
    const joined = await repo.insertEntry(trx, event.id, req, hash, now);
    await enqueueEmail(trx, joinedEmail(deps.site, event, joined, `${deps.publicUrl}/waiting-list/leave/${token}`));
    if (free > 0) await placesFreed(trx, event.id);
    return joined;
  });
  deps.outbox.wake();
  deps.logger.info({ eventId: event.id, entryId: entry.id, position: entry.position, places: entry.places }, "waiting list: joined");
  return entry;
}
