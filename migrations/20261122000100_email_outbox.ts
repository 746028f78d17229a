import type { Knex } from "knex";

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable("email_outbox", (t) => {
    t.increments("id").primary();
    t.string("kind", 60).notNullable().comment("what the e-mail announces: order_confirmation, contact_message, ...");
    t.string("reference", 120).nullable().comment("the row it is about, e.g. order:42");
    t.string("to_address", 320).notNullable();
    t.string("reply_to", 320).nullable();
    t.string("subject", 300).notNullable();
    t.text("text_body").notNullable();
    t.text("html_body").nullable();
    t.text("attachments_json").nullable().comment("[{filename, contentType, content}] e.g. an .ics invitation");
    t.string("status", 20).notNullable().defaultTo("pending").comment("pending, sending, sent, failed");
    t.integer("attempts").notNullable().defaultTo(0);
    t.dateTime("next_attempt_at").notNullable();
    t.dateTime("claimed_at").nullable();
    t.text("last_error").nullable();
    t.dateTime("created_at").notNullable();
    t.dateTime("sent_at").nullable();
    t.index(["status", "next_attempt_at"], "email_outbox_due");
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable("email_outbox");
}
