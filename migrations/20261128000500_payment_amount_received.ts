import type { Knex } from "knex";

/**
 * `payments.amount_received_cents`: what Stripe actually charged, recorded when a payment goes to needs_review (the
 * PaymentIntent's amount can differ from the row's). A review payment is refunded for that amount, and counts as
 * refunded in full once that much is back; NULL means the row's own amount was charged.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable("payments", (t) => {
    t.integer("amount_received_cents").nullable().comment("what Stripe charged when it differs from amount_cents (needs_review)");
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable("payments", (t) => t.dropColumn("amount_received_cents"));
}
