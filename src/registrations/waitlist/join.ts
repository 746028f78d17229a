import { queuedLockingTransaction } from "../../db/rowQueue.ts";
import { DomainError } from "../../errors.ts";
import { enqueueEmail } from "../../email/outbox.ts";
import type { EventDetail } from "../../shared/events/types.ts";
import { eventKey, lockEvent } from "../core/locks.ts";
import { lockVisitor } from "../core/tables/holds.ts";
import { REGISTRATION_ERRORS } from "../../shared/registrations/rules.ts";
import { newToken, type Joiner } from "./tables/entries.ts";
import { insertRequest } from "./tables/requests.ts";
import { CONFIRM_HOURS, type JoinRequest } from "../../shared/registrations/waitingList.ts";
import { confirmEmail } from "./email.ts";
import type { WaitingListDeps } from "./deps.ts";
import { refuseJoin } from "./joinChecks.ts";

/**
 * Asks to join the event's line, under the event's lock (a team's size, at most MAX_TEAM_ATHLETES and the event's
 * capacity, is the join form's schema): only when the places for sale are fewer than those asked for, no larger
 * than the event (its capacity read under the lock), an address not already in line, and within the
 * per-visitor cap (the visitor's requests, entries, offers and held places, and the address's entries and offers,
 * with these places: at most maxHeldPlacesPerVisitor). The request counts for nothing until its e-mail is confirmed
 * (confirm.ts): the e-mail with the confirmation link is written in the same transaction.
 */
export async function joinLine(deps: WaitingListDeps, event: EventDetail, req: JoinRequest, joiner: Joiner): Promise<{ confirmBy: Date }> {
  const joined = await queuedLockingTransaction(deps.db, eventKey(event.id), async (trx) => {
    // The visitor's rows first, as a hold takes them: their cap counts their holds too.
    await lockVisitor(trx, joiner);
    const locked = await lockEvent(trx, event.id);
    if (!locked) throw new DomainError("not_found", REGISTRATION_ERRORS.closed, "registration_closed");
    const now = deps.clock();
    await refuseJoin(trx, deps, { event, locked, req, joiner }, now);
    const { token, hash } = newToken();
    const confirmBy = new Date(now.getTime() + CONFIRM_HOURS * 3_600_000);
    const id = await insertRequest(trx, event.id, req, joiner, hash, confirmBy, now);
    await enqueueEmail(trx, confirmEmail(deps.site, event, req, id, `${deps.publicUrl}/waiting-list/confirm/${token}`, confirmBy));
    return { id, confirmBy };
  });
  deps.outbox.wake();
  deps.logger.info({ eventId: event.id, requestId: joined.id, places: req.places }, "waiting list: asked to join");
  return { confirmBy: joined.confirmBy };
}
