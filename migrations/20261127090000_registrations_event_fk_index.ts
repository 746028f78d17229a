import type { Knex } from "knex";

/**
 * registrations.event_id gets an index of its own, and the (event_id, status, reserved_until) index is made again after
 * it, so that InnoDB checks the foreign key to events through the new index (it takes the first index that starts
 * with the key's column). Through the composite index, every change of a registration's status (a payment settled,
 * a hold expired) re-inserted that index's entry and so checked the key: a shared lock on the event's row, the row
 * every hold of the event locks on opening day. Now a status change never waits for the event's lock.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable("registrations", (t) => {
    t.index(["event_id"], "registrations_event_id");
  });
  await knex.schema.alterTable("registrations", (t) => {
    t.dropIndex(["event_id", "status", "reserved_until"], "registrations_event_status");
  });
  await knex.schema.alterTable("registrations", (t) => {
    t.index(["event_id", "status", "reserved_until"], "registrations_event_status");
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable("registrations", (t) => {
    t.dropIndex(["event_id"], "registrations_event_id");
  });
}
