import type { Knex } from "knex";

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable("checkout_locks", (t) => {
    t.increments("id").primary();
    t.string("checkout_key", 64).notNullable().unique().comment("a visitor session's checkout key (kept when the session id is renewed)");
    t.string("order_reference", 20).nullable().comment("the session's current pending order, decided under this row's lock");
    t.dateTime("updated_at").notNullable();
  });

  await knex.schema.alterTable("orders", (t) => {
    t.string("checkout_key", 64).nullable().comment("the visitor session that started the order: its browser may confirm any of its payments");
    t.index(["checkout_key"], "orders_checkout_key");
  });

  await knex.schema.alterTable("order_items", (t) => {
    t.string("cart_line_id", 40).nullable().comment("the cart line it was made from: only paid lines leave the cart");
  });

  await knex.schema.createTable("shopify_writebacks", (t) => {
    t.increments("id").primary();
    t.integer("order_id").unsigned().notNullable().unique().references("id").inTable("orders").onDelete("CASCADE");
    t.string("status", 20).notNullable().defaultTo("pending").comment("pending, sending, sent, failed (after 8 attempts: create the order in Shopify by hand)");
    t.integer("attempts").notNullable().defaultTo(0);
    t.dateTime("next_attempt_at").notNullable();
    t.dateTime("claimed_at").nullable();
    t.text("last_error").nullable();
    t.string("shopify_order_id", 120).nullable();
    t.dateTime("created_at").notNullable();
    t.dateTime("sent_at").nullable();
    t.index(["status", "next_attempt_at"], "shopify_writebacks_due");
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists("shopify_writebacks");
  await knex.schema.dropTableIfExists("checkout_locks");
  // SQLite drops a column by copying the table, and dropping `orders` would cascade to its items: the two
  // nullable columns stay there.
  if (knex.client.config.client === "better-sqlite3") return;
  await knex.schema.alterTable("order_items", (t) => t.dropColumn("cart_line_id"));
  await knex.schema.alterTable("orders", (t) => {
    t.dropIndex(["checkout_key"], "orders_checkout_key");
    t.dropColumn("checkout_key");
  });
}
