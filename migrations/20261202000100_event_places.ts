import type { Knex } from "knex";

/**
 * `event_places`: each event's count of places taken, moved in the same transaction as the rows that take them
 * (src/events/places.ts), so a hold is admitted by one conditional UPDATE of this row. A table of its own, not a
 * column of `events`: every registration insert checks its foreign key to `events`, which share-locks the event row
 * until COMMIT in InnoDB, so two holds updating a counter on `events` would each wait for the other's share lock.
 * Filled here from the rows (what src/events/places.ts counts: registrations pending, paid, in review, deposit paid or
 * overdue, and pending or in-review changes, each by its places).
 *
 * `hold_visitors`: one row per visitor hash (session key or address), locked by a hold so that one visitor's holds
 * are decided one after another (their cap) without any lock other visitors share.
 */
const COUNTED_REGISTRATIONS = ["pending_payment", "paid", "needs_review", "deposit_paid", "balance_overdue"];
const COUNTED_CHANGES = ["pending", "needs_review"];

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable("event_places", (t) => {
    t.integer("event_id").unsigned().primary().references("events.id").onDelete("CASCADE");
    t.integer("taken").notNullable().defaultTo(0).comment("places held, paid or offered: what the rows count (npm run capacity -- check)");
  });
  await knex.schema.createTable("hold_visitors", (t) => {
    t.string("holder", 64).primary().comment("hash of a visitor's session key or address: its holds lock this row");
  });
  const events: { id: unknown }[] = await knex("events").select("id");
  for (const e of events) {
    const eventId = Number(e.id);
    const [reg] = await knex("registrations").where({ event_id: eventId }).whereIn("status", COUNTED_REGISTRATIONS).sum({ n: "places" });
    const [chg] = await knex("registration_changes").where({ event_id: eventId }).whereIn("status", COUNTED_CHANGES).sum({ n: "places" });
    await knex("event_places").insert({ event_id: eventId, taken: (Number(reg?.n) || 0) + (Number(chg?.n) || 0) });
  }
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable("hold_visitors");
  await knex.schema.dropTable("event_places");
}
