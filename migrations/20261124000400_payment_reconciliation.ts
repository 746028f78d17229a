import type { Knex } from "knex";

/**
 * The reconciliation job (src/payments/reconcile.ts) asks Stripe about payments still open a while after their
 * PaymentIntent was made. `reconcile_after` is when a payment is next due for that question; an instance claims a
 * payment by moving it forward in one conditional UPDATE, so several instances never ask about one payment at once.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable("payments", (t) => {
    t.dateTime("reconcile_after").nullable().comment("when the reconciliation job next asks Stripe about this open payment");
    t.integer("reconcile_checks").notNullable().defaultTo(0);
    t.index(["status", "reconcile_after"], "payments_reconcile_due");
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable("payments", (t) => {
    t.dropIndex(["status", "reconcile_after"], "payments_reconcile_due");
    t.dropColumns("reconcile_after", "reconcile_checks");
  });
}
