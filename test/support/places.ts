import type { Db } from "../../src/db/knex.ts";
import { placesInRows } from "../../src/events/places.ts";

/**
 * A test that writes registrations rows itself (a filler that takes an event's places) sets the events' counts of
 * places from the rows, as the kernel's writers would have moved them (src/events/places.ts).
 */
export async function countPlacesFromRows(db: Db, eventIds: number[]): Promise<void> {
  for (const eventId of eventIds) {
    const taken = await placesInRows(db, eventId);
    const changed = await db("event_places").where({ event_id: eventId }).update({ taken });
    if (changed === 0) await db("event_places").insert({ event_id: eventId, taken });
  }
}
