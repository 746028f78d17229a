import type { Knex } from "knex";

/**
 * "Registered before?" (issue 43): a returning family or coach asks for a link that fills in the form of an event from
 * their latest registration.
 * - `returning_links`: one row per link e-mailed; only the SHA-256 of the token is stored; the address it went to
 *   (lower-case: the form is filled in from its latest registration when the link opens), the event and form it
 *   opens, when it stops opening (30 minutes) and when it was opened (once). Rows older than a day are deleted by
 *   the retention job: they only count the e-mails of the last 24 hours.
 * - `returning_link_senders`: one row per hash of an address, locked while a link for it is decided, so that posts at
 *   once cannot send more than 3 a day. Nothing else is stored.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable("returning_links", (t) => {
    t.increments("id");
    t.string("token_hash", 64).notNullable().unique().comment("SHA-256 (hex) of the link's token; the token itself is never stored");
    t.string("email", 254).notNullable().comment("the address the link went to, lower-case");
    t.integer("event_id").unsigned().notNullable().references("id").inTable("events").onDelete("CASCADE");
    t.string("form", 20).notNullable().comment("individual or team: the form the link opens");
    t.dateTime("created_at").notNullable();
    t.dateTime("expires_at").notNullable().comment("the link opens until then (30 minutes)");
    t.dateTime("used_at").nullable().comment("set when opened: a link opens once");
    t.index(["email", "created_at"], "returning_links_email_created");
  });
  await knex.schema.createTable("returning_link_senders", (t) => {
    t.string("sender", 64).primary().comment("SHA-256 (hex) of the lower-case address: the row locked while its links are decided");
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable("returning_link_senders");
  await knex.schema.dropTable("returning_links");
}
