import type { Knex } from "knex";

/**
 * One live payment per (kind, reference), enforced by a unique index on `live_key` (`kind:reference` while
 * the payment is live, NULL once canceled or refunded: NULLs never collide in MySQL or SQLite); an amount
 * change in flight; review and refund facts; free settlements (provider `none`, no PaymentIntent).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable("payments", (t) => {
    t.string("provider_payment_id", 120).nullable().comment("Stripe PaymentIntent id (pi_...); null for provider none (a free settlement)").alter();
    t.string("idempotency_key", 200).nullable().alter();
    t.string("status", 20).notNullable().defaultTo("pending").comment("see src/payments/transitions.ts: pending, failed, paid, needs_review, refund_pending, refunded, canceled").alter();
  });
  await knex.schema.alterTable("payments", (t) => {
    t.string("live_key", 100).nullable().comment("kind:reference while the payment is live; NULL once canceled or refunded");
    t.integer("expected_amount_cents").nullable().comment("an amount change in flight: written under a row lock before Stripe is asked");
    t.dateTime("amount_change_started_at").nullable();
    t.text("review_reason").nullable().comment("why a succeeded PaymentIntent did not match (status needs_review)");
    t.text("refund_reason").nullable();
    t.string("provider_refund_id", 120).nullable();
    t.dateTime("refunded_at").nullable();
    t.unique(["live_key"], { indexName: "payments_live_key" });
  });

  // The newest open payment of each (kind, reference) becomes its live one; older open ones stay as they are.
  const open = await knex("payments").whereIn("status", ["pending", "failed", "paid"]).orderBy("id", "desc").select("id", "kind", "reference");
  const seen = new Set<string>();
  for (const row of open as { id: number; kind: string; reference: string }[]) {
    const key = `${row.kind}:${row.reference}`;
    if (seen.has(key)) continue;
    seen.add(key);
    await knex("payments").where({ id: row.id }).update({ live_key: key });
  }
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable("payments", (t) => {
    t.dropUnique(["live_key"], "payments_live_key");
    t.dropColumns("live_key", "expected_amount_cents", "amount_change_started_at", "review_reason", "refund_reason", "provider_refund_id", "refunded_at");
  });
}
