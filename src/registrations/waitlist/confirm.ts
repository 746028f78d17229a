import type { Knex } from "knex";
import { placesTakenNow } from "../core/lapse.ts";
import { toDate } from "../../db/rows.ts";
import { queuedLockingTransaction } from "../../db/rowQueue.ts";
import { enqueueEmail } from "../../email/outbox.ts";

import { registrationClosingTime } from "../../shared/events/rules.ts";
import type { EventDetail } from "../../shared/events/types.ts";
import { eventKey, lockEvent } from "../core/locks.ts";
import { activeEntryFor, entryById, insertEntry, newToken, placeInLine, type Entry } from "./tables/entries.ts";
import { lineLoad } from "./tables/lineLoad.ts";
import { lockRequest, setRequestEntry, type Request } from "./tables/requests.ts";
import { joinedEmail } from "./email.ts";
import type { WaitingListDeps } from "./deps.ts";
import { placesFreed } from "../core/placesFreed.ts";

/** What a confirmation link finds: the entry it made (now or before), or why it makes none. */
export type Confirmation =
  | { status: "inLine"; entry: Entry; justNow: boolean }
  | { status: "unknown" | "lapsed" | "closed" | "alreadyOn" | "overCap" };

/**
 * The confirmation link opened: the request becomes an entry at the end of the line, under the event's lock (its
 * e-mail proved, it now counts: it gets offers and may keep free places back), unless its time to confirm is over,
 * the event closed, the address is in line already, or the address's entries and offers would exceed the cap. The
 * e-mail with the place in line and the leave link is written in the same transaction; places free now ask for a
 * round (it may fit them). Opened again, the link finds the entry it made.
 */
export async function confirmRequest(deps: WaitingListDeps, event: EventDetail, request: Request): Promise<Confirmation> {
  if (request.entryId !== null) return inLine(deps, request.entryId);
  const answer = await queuedLockingTransaction(deps.db, eventKey(event.id), async (trx): Promise<Confirmation> => {
    const locked = await lockEvent(trx, event.id);
    const now = deps.clock();
    const current = await lockRequest(trx, request.id);
    if (!locked || !current) return { status: "unknown" };
    if (current.entryId !== null) return { status: "inLine", entry: (await entryById(trx, current.entryId))!, justNow: false };
    if (current.confirmBy.getTime() <= now.getTime()) return { status: "lapsed" };
    if (registrationClosingTime(toDate(locked.registration_closes_at), toDate(locked.start_date)!).getTime() <= now.getTime()) return { status: "closed" };
    if (await activeEntryFor(trx, event.id, current.join.email)) return { status: "alreadyOn" };
    const inLine = await lineLoad(trx, { ...current.joiner, email: current.join.email }, now);
    if (inLine.email + current.join.places > deps.limits.maxHeldPlacesPerVisitor) return { status: "overCap" };
    return { status: "inLine", entry: await enter(trx, deps, event, current, locked, now), justNow: true };
  });
  if (answer.status === "inLine" && answer.justNow) {
    deps.outbox.wake();
    deps.logger.info({ eventId: event.id, entryId: answer.entry.id, places: answer.entry.places }, "waiting list: joined");
  }
  return answer;
}

async function enter(trx: Knex.Transaction, deps: WaitingListDeps, event: EventDetail, request: Request, locked: Record<string, unknown>, now: Date): Promise<Entry> {
  const { token, hash } = newToken();
  const entry = await insertEntry(trx, event.id, request.join, hash, now, request.joiner);
  await setRequestEntry(trx, request.id, entry.id);
  await enqueueEmail(trx, joinedEmail(deps.site, event, entry, await placeInLine(trx, entry), `${deps.publicUrl}/waiting-list/leave/${token}`));
  if (Number(locked.capacity) - (await placesTakenNow(trx, event.id, locked, now)) > 0) await placesFreed(trx, event.id);
  return entry;
}

async function inLine(deps: WaitingListDeps, entryId: number): Promise<Confirmation> {
  const entry = await entryById(deps.db, entryId);
  return entry ? { status: "inLine", entry, justNow: false } : { status: "unknown" };
}
