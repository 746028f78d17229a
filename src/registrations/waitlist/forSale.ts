import type { Knex } from "knex";
import { placesLeft } from "../../events/repository.ts";
import { livePlacesHeld } from "../core/tables/holds.ts";
import type { Db } from "../../db/knex.ts";
import { chooseOffers, type LineEntry } from "../../shared/registrations/waitingList.ts";
import { entriesOf, type Entry } from "./tables/entries.ts";

export const toLineEntry = (e: Entry): LineEntry => ({ id: e.id, places: e.places, passedOver: e.passedOver, holdsLineUntil: e.holdsLineUntil?.getTime() ?? null });

/**
 * How many of an event's `free` places may go to someone who is not in line (a new registration, a coach's added
 * athletes, a paid change whose hold lapsed): all but those the line keeps back now (chooseOffers' heldBack: the
 * places the next round offers to confirmed entries that fit, and while an entry holds the line, the rest).
 * `ownHeld` are the places the registration being written holds already (a live hold, maybe an offer's): they are
 * its own, not the line's. Read inside the caller's transaction, after the event's lock.
 */
export async function placesForSale(conn: Db | Knex.Transaction, eventId: number, free: number, now: Date, ownHeld = 0): Promise<number> {
  if (free <= 0) return free;
  const line = await entriesOf(conn, eventId, ["waiting"]);
  if (line.length === 0) return free;
  return free - chooseOffers(line.map(toLineEntry), free - ownHeld, now.getTime()).heldBack;
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
