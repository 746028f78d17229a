import type { Knex } from "knex";

/** Shop orders ship to a US address and carry their shipping cost; paid orders get a status link for the buyer. */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable("orders", (t) => {
    t.string("ship_name", 100).nullable().comment("who receives the parcel (null on orders placed before addresses were asked)");
    t.string("ship_line1", 100).nullable();
    t.string("ship_line2", 100).nullable();
    t.string("ship_city", 60).nullable();
    t.string("ship_state", 2).nullable().comment("USPS state code: 50 states, DC, AA/AE/AP");
    t.string("ship_zip", 10).nullable().comment("12345 or 12345-6789");
    t.integer("shipping_cents").notNullable().defaultTo(0).comment("shipping charged: 0 over the free-shipping threshold, else SHIPPING_FLAT_RATE_CENTS; total_cents = subtotal_cents + shipping_cents");
    t.string("status_token_hash", 64).nullable().unique().comment("sha256 of the order-status link's token (sent in the confirmation e-mail; the token itself is not stored)");
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable("orders", (t) => {
    t.dropUnique(["status_token_hash"]);
    t.dropColumns("ship_name", "ship_line1", "ship_line2", "ship_city", "ship_state", "ship_zip", "shipping_cents", "status_token_hash");
  });
}
