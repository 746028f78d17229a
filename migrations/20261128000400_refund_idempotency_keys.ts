import type { Knex } from "knex";

/**
 * `payment_refunds.idempotency_key`: the key a refund is sent to Stripe with, made when it is asked for from the
 * payment's PaymentIntent and a random part (src/payments/refunds.ts), and kept so every retry sends the same one.
 * The row's id alone collided with refunds sent before when a database was recreated or restored (Stripe keeps its
 * keys for 24 hours). Rows from before get theirs when they are next sent.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable("payment_refunds", (t) => {
    t.string("idempotency_key", 191).nullable().unique("payment_refunds_idempotency_key").comment("sent to Stripe with the refund: PaymentIntent id and a random part");
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable("payment_refunds", (t) => {
    t.dropUnique(["idempotency_key"], "payment_refunds_idempotency_key");
    t.dropColumn("idempotency_key");
  });
}
