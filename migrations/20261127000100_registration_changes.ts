import type { Knex } from "knex";

/**
 * A paid registration's changes that cost money (README: Managing a registration after payment): moving an
 * individual to a dearer package (`upgrade`) and adding athletes to a paid team (`add_athletes`). Each change is
 * paid through its own PaymentIntent (payment kind `registration_change`, reference: this row's id), because the
 * registration's own payment is already paid and the payment core keeps one live payment per kind and reference.
 *
 *   pending -> paid (its payment settled and the change was applied), expired (not paid in time: the sweep),
 *              cancelled (the registrant let it go), needs_review (money that does not match), rejected (it was paid
 *              when it could no longer apply: the payment core refunds it)
 *   expired, cancelled -> paid | rejected (a late payment: applied when it still can be, else refunded)
 *
 * An `add_athletes` change holds `places` at the event while it is pending and its `reserved_until` has not passed
 * (the event's places count them like a pending registration's hold); `holder_*` count them against the visitor's cap.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable("registration_changes", (t) => {
    t.increments("id");
    t.integer("registration_id").unsigned().notNullable().references("id").inTable("registrations").onDelete("CASCADE");
    t.integer("event_id").unsigned().notNullable().references("id").inTable("events").comment("the registration's event (never changes): held places are counted per event");
    t.string("kind", 20).notNullable().comment("upgrade or add_athletes");
    t.text("data_json").notNullable().comment("the change: the new package and days, or the new athletes (the team form's rows)");
    t.integer("places").unsigned().notNullable().defaultTo(0).comment("places it holds while pending (add_athletes); 0 for an upgrade");
    t.integer("amount_cents").unsigned().notNullable().comment("what the change costs, computed by the server");
    t.integer("priced_version").unsigned().notNullable().comment("the registration's version the amount was computed against");
    t.string("status", 20).notNullable().defaultTo("pending");
    t.dateTime("reserved_until").notNullable().comment("the change waits for its payment until then; the sweep expires it after");
    t.string("holder_session", 64).nullable().comment("hash of the visitor's session key (the held-places cap)");
    t.string("holder_address", 64).nullable().comment("hash of the visitor's address (the held-places cap)");
    t.dateTime("created_at").notNullable();
    t.dateTime("updated_at").notNullable();
    t.dateTime("paid_at").nullable();
    t.index(["registration_id", "status"], "registration_changes_registration");
    t.index(["event_id", "status", "reserved_until"], "registration_changes_holds");
    t.index(["status", "reserved_until"], "registration_changes_sweep");
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable("registration_changes");
}
