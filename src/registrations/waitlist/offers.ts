import { randomBytes } from "node:crypto";
import type { Knex } from "knex";
import { placesTakenNow } from "../core/lapse.ts";
import { offerQueues as queues, requestOfferRound } from "../core/placesFreed.ts";
import type { Db } from "../../db/knex.ts";
import { toDate } from "../../db/rows.ts";
import { createJobQueue, type JobQueue } from "../../db/jobQueue.ts";
import { queuedLockingTransaction } from "../../db/rowQueue.ts";
import { enqueueEmail } from "../../email/outbox.ts";
import { findEvent, placesLeft } from "../../events/repository.ts";
import { registrationClosingTime } from "../../shared/events/rules.ts";
import type { EventDetail } from "../../shared/events/types.ts";
import { eventKey, lockEvent } from "../core/locks.ts";
import { insertOfferedHold, livePlacesHeld } from "../core/tables/holds.ts";
import { newReference } from "../core/holding.ts";
import { findPackage } from "../../shared/registrations/rules.ts";
import { TEAM_PACKAGE } from "../../shared/registrations/teamRules.ts";
import type { RegistrationDeps } from "../core/deps.ts";
import { countPassedOver, entriesOf, newToken, setStatus, type Entry } from "./tables/entries.ts";
import { deleteLapsedRequests } from "./tables/requests.ts";
import { deleteSentJobs, eventsNeedingRound, holdsOf, linkHold } from "./tables/rounds.ts";
import { chooseOffers, PASSES_BEFORE_BLOCKING } from "../../shared/registrations/waitingList.ts";
import { placesForSale, toLineEntry } from "./forSale.ts";
import { offerEmail } from "./email.ts";
import { isRegistered } from "../core/states.ts";

/** What the waiting list's use cases are given: the registrations' deps, the offer time and the site's address for links. */
export interface WaitingListDeps extends RegistrationDeps {
  offerHours: number;
  publicUrl: string;
}

/**
 * placesLeft as a registration page shows it, `exceptRegistrationId` being the visitor's own hold: less the places
 * the line keeps back (placesForSale).
 */
export async function placesOpen(db: Db, eventId: number, now: Date, exceptRegistrationId?: number): Promise<number> {
  const left = await placesLeft(db, eventId, now, exceptRegistrationId);
  const own = exceptRegistrationId === undefined ? 0 : await livePlacesHeld(db, exceptRegistrationId, now);
  return Math.max(0, await placesForSale(db, eventId, left, now, own));
}

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
    for (const chosen of offered) await offer(trx, deps, event, line.find((e) => e.id === chosen.id)!, now);
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

/** The entry's places held as pending registrations until the offer ends, its link made and e-mailed. */
async function offer(trx: Knex.Transaction, deps: WaitingListDeps, event: EventDetail, entry: Entry, now: Date): Promise<void> {
  const until = new Date(now.getTime() + deps.offerHours * 3_600_000);
  const { token, hash } = newToken();
  // Read under the event lock, so always true; should it not be, nothing of this round is kept.
  if (!(await setStatus(trx, entry.id, ["waiting"], "offered", now, { offer_token_hash: hash, offered_at: now, offered_until: until }))) {
    throw new Error(`waiting-list entry ${entry.id} changed during its offer round`);
  }
  // A team is one registration of all its places; an athlete and siblings are one registration each.
  const sizes = entry.kind === "team" ? [entry.places] : Array.from({ length: entry.places }, () => 1);
  for (const [i, size] of sizes.entries()) await linkHold(trx, entry.id, await insertOfferHold(trx, event, entry, size, until, now), i + 1);
  await enqueueEmail(trx, offerEmail(deps.site, event, entry, `${deps.publicUrl}/waiting-list/offer/${token}`, until));
  deps.logger.info({ eventId: event.id, entryId: entry.id, places: entry.places }, "waiting list: places offered");
}

/**
 * A pending registration holding `places` for the offer: the entry's contact and package at today's price, no
 * athletes yet (the registration or team form fills them in, on the same row: its form id is the row's).
 */
async function insertOfferHold(trx: Knex.Transaction, event: EventDetail, entry: Entry, places: number, until: Date, now: Date): Promise<number> {
  const team = entry.kind === "team";
  const pkg = team ? undefined : findPackage(event, entry.packageCode);
  const priceCents = team ? event.teamPriceCents * places : (pkg?.priceCents ?? 0);
  const everyDay = team || (pkg !== undefined && pkg.dayCount >= event.days.length);
  return insertOfferedHold(
    trx,
    {
      reference: newReference(),
      eventId: event.id,
      kind: entry.kind,
      teamName: entry.teamName,
      places,
      packageCode: team ? TEAM_PACKAGE.code : entry.packageCode,
      packageLabel: team ? TEAM_PACKAGE.label : (pkg?.label ?? entry.packageCode),
      priceCents,
      contact: entry.contact,
      // Random like a form's id (routes/shared.tsx): only the offer link's visitor is given it.
      formSessionId: randomBytes(16).toString("base64url"),
      reservedUntil: until,
      dayIds: everyDay ? event.days.map((d) => d.id) : [],
    },
    now,
  );
}

/** The job queue that runs offer rounds (one row per round asked for: placesFreed). */
export function createOfferQueue(deps: WaitingListDeps, intervalMs?: number): JobQueue {
  const queue = createJobQueue({
    db: deps.db,
    logger: deps.logger,
    table: "waiting_list_jobs",
    name: "waiting-list",
    intervalMs,
    describe: (row) => ({ jobId: row.id, eventId: row.event_id }),
    async run(row) {
      await offerRound(deps, Number(row.event_id));
    },
  });
  queues.add(queue);
  return {
    ...queue,
    async stop() {
      queues.delete(queue);
      await queue.stop();
    },
  };
}

/**
 * The minute's net (server.ts, with the hold sweep): a round is asked for at every event where someone is in line
 * or holds an offer and no round is pending, so an offer that ended, places an operator freed in the database,
 * or a missed wake are dealt with within a minute. Harmless when several instances do it. Rounds done a day ago are
 * deleted (they record nothing else), and so are requests to join never confirmed whose link lapsed a day ago.
 */
export async function askForDueRounds(deps: Pick<WaitingListDeps, "db" | "clock">): Promise<number> {
  const db = deps.db;
  const dayAgo = new Date(deps.clock().getTime() - 86_400_000);
  await deleteSentJobs(db, dayAgo);
  await deleteLapsedRequests(db, dayAgo);
  const events = await eventsNeedingRound(db);
  for (const eventId of events) await requestOfferRound(db, eventId, deps.clock());
  if (events.length > 0) queues.forEach((q) => q.wake());
  return events.length;
}
