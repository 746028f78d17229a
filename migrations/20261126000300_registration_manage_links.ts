import type { Knex } from "knex";

/**
 * Families and coaches manage their own registrations (README: Managing a registration after payment):
 * - `registration_manage_links`: the private links, one row per link sent (the confirmation e-mail, the
 *   confirmation page, each "Lost your confirmation?" e-mail); only the SHA-256 of the token is stored;
 * - `events.changes_freeze_at`: until when a paid registration's details and days can change (null: 7 days
 *   before the event's start);
 * - a registration canceled by its registrant (`withdrawn`) keeps when, and the refund the policy gave.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable("registration_manage_links", (t) => {
    t.increments("id");
    t.integer("registration_id").unsigned().notNullable().references("id").inTable("registrations").onDelete("CASCADE");
    t.string("token_hash", 64).notNullable().unique().comment("SHA-256 (hex) of the link's token; the token itself is never stored");
    t.string("sent_by", 20).notNullable().comment("confirmation (e-mail), page (confirmation page) or resend (Lost your confirmation?)");
    t.dateTime("created_at").notNullable();
    t.dateTime("revoked_at").nullable().comment("set: the link answers 404");
    t.index(["registration_id"], "registration_manage_links_registration");
  });
  await knex.schema.alterTable("events", (t) => {
    t.dateTime("changes_freeze_at").nullable().comment("paid registrations can change until then; null: 7 days before the start");
  });
  await knex.schema.alterTable("registrations", (t) => {
    t.dateTime("withdrawn_at").nullable().comment("canceled by the registrant through the manage link");
    t.integer("withdrawal_refund_cents").nullable().comment("what the cancellation policy gave back when it was canceled");
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable("registrations", (t) => t.dropColumns("withdrawn_at", "withdrawal_refund_cents"));
  await knex.schema.alterTable("events", (t) => t.dropColumn("changes_freeze_at"));
  await knex.schema.dropTable("registration_manage_links");
}
