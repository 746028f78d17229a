import type { Knex } from "knex";

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable("payments", (t) => {
    t.increments("id").primary();
    t.string("kind", 30).notNullable().comment("what is being paid for: order (shop) or registration (events)");
    t.string("reference", 60).notNullable().comment("the paid row's public reference, e.g. an order reference");
    t.string("provider", 20).notNullable().defaultTo("stripe");
    t.string("provider_payment_id", 120).notNullable().unique().comment("Stripe PaymentIntent id (pi_...)");
    t.string("idempotency_key", 200).notNullable();
    t.integer("amount_cents").notNullable().comment("what the server computed and asked Stripe to charge");
    t.string("currency", 3).notNullable().defaultTo("usd");
    t.string("status", 20).notNullable().defaultTo("pending").comment("pending, paid, failed, canceled");
    t.string("paid_via", 20).nullable().comment("which path confirmed it first: return (the browser) or webhook");
    t.text("last_error").nullable().comment("the provider's message for the last failed attempt");
    t.dateTime("created_at").notNullable();
    t.dateTime("updated_at").notNullable();
    t.dateTime("paid_at").nullable();
    t.index(["kind", "reference"], "payments_kind_reference");
  });

  await knex.schema.createTable("stripe_events", (t) => {
    t.increments("id").primary();
    t.string("event_id", 120).notNullable().unique().comment("Stripe's event id (evt_...): a redelivery is recognised by it");
    t.string("type", 80).notNullable();
    t.string("provider_payment_id", 120).nullable();
    t.dateTime("received_at").notNullable();
    t.dateTime("processed_at").nullable().comment("null while processing failed or is under way; Stripe retries until it is set");
    t.text("last_error").nullable();
  });

  await knex.schema.createTable("orders", (t) => {
    t.increments("id").primary();
    t.string("reference", 20).notNullable().unique().comment("the order number shown to the customer and sent to Stripe");
    t.string("status", 20).notNullable().defaultTo("pending_payment").comment("pending_payment, paid, canceled");
    t.string("customer_first_name", 100).notNullable();
    t.string("customer_last_name", 100).notNullable();
    t.string("customer_email", 320).notNullable();
    t.string("customer_phone", 40).nullable();
    t.integer("subtotal_cents").notNullable();
    t.integer("total_cents").notNullable();
    t.string("currency", 3).notNullable().defaultTo("usd");
    t.string("cart_fingerprint", 64).notNullable().comment("hash of the cart lines the order was made from");
    t.string("shopify_order_id", 120).nullable();
    t.string("shopify_sync_status", 20).notNullable().defaultTo("not_configured").comment("not_configured, pending, synced, failed");
    t.text("shopify_error").nullable();
    t.dateTime("created_at").notNullable();
    t.dateTime("updated_at").notNullable();
    t.dateTime("paid_at").nullable();
    t.index(["status", "created_at"], "orders_status_created");
  });

  await knex.schema.createTable("order_items", (t) => {
    t.increments("id").primary();
    t.integer("order_id").unsigned().notNullable().references("id").inTable("orders").onDelete("CASCADE");
    t.string("product_id", 120).notNullable().comment("catalogue (Shopify) product id");
    t.string("variant_id", 120).notNullable().comment("catalogue (Shopify) variant id");
    t.string("product_handle", 200).nullable();
    t.string("product_title", 300).notNullable();
    t.string("variant_title", 200).notNullable();
    t.string("selected_size", 60).nullable();
    t.string("selected_color", 60).nullable();
    t.integer("unit_price_cents").notNullable();
    t.integer("quantity").notNullable();
    t.integer("line_total_cents").notNullable();
    t.index(["order_id"], "order_items_order");
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists("order_items");
  await knex.schema.dropTableIfExists("orders");
  await knex.schema.dropTableIfExists("stripe_events");
  await knex.schema.dropTableIfExists("payments");
}
