import type { Knex } from "knex";

/** What visitors send the brand: contact messages, custom apparel quote requests and newsletter sign-ups. */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable("contact_messages", (t) => {
    t.increments("id").primary();
    t.string("name", 100).notNullable();
    t.string("email", 254).notNullable();
    t.string("phone", 40).nullable();
    t.string("subject", 200).notNullable();
    t.text("message").notNullable();
    t.dateTime("created_at").notNullable();
    t.index(["created_at"], "contact_messages_created");
  });

  await knex.schema.createTable("quote_requests", (t) => {
    t.increments("id").primary();
    t.string("organization", 150).notNullable().comment("team or organization name");
    t.string("contact_name", 100).notNullable();
    t.string("email", 254).notNullable();
    t.string("phone", 40).nullable();
    t.text("apparel_needs").notNullable().comment("comma-separated: Competition Singlets, Rashguards, ...");
    t.string("estimated_quantity", 20).nullable().comment("1-10, 11-25, 26-50, 51-100, 100+");
    t.string("reference_design", 100).nullable().comment("portfolio design the visitor asked for something similar to");
    t.text("details").nullable();
    t.dateTime("created_at").notNullable();
    t.index(["created_at"], "quote_requests_created");
  });

  await knex.schema.createTable("newsletter_subscribers", (t) => {
    t.increments("id").primary();
    t.string("email", 254).notNullable().unique("newsletter_subscribers_email").comment("stored lower-case");
    t.string("source", 40).notNullable().comment("the page the visitor subscribed from");
    t.dateTime("created_at").notNullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable("newsletter_subscribers");
  await knex.schema.dropTable("quote_requests");
  await knex.schema.dropTable("contact_messages");
}
