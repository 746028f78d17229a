import type { Knex } from "knex";

/**
 * One row per refund the site asks for (src/payments/refunds.ts). `status` is the refund's own life (requested ->
 * pending -> succeeded | failed | canceled); `send_status` and the columns after it are the job queue's
 * (src/db/jobQueue.ts) that sends a requested refund to Stripe once, whichever instance runs it.
 * `request_key` names what asked for it (a cancellation and its version, an operator command): the same key never
 * refunds twice.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable("payment_refunds", (t) => {
    t.increments("id").primary();
    t.integer("payment_id").unsigned().notNullable().references("id").inTable("payments").onDelete("CASCADE");
    t.integer("amount_cents").notNullable();
    t.string("reason", 500).notNullable();
    t.string("request_key", 191).notNullable().unique("payment_refunds_request_key");
    t.string("status", 20).notNullable().defaultTo("requested").comment("requested, pending, succeeded, failed, canceled");
    t.string("provider_refund_id", 120).nullable().unique("payment_refunds_provider_refund_id");
    t.text("failure_reason").nullable();
    t.string("send_status", 20).notNullable().defaultTo("pending").comment("the sending job: pending, sending, sent, failed (after its attempts: an operator must act)");
    t.integer("attempts").notNullable().defaultTo(0);
    t.dateTime("next_attempt_at").notNullable();
    t.dateTime("claimed_at").nullable();
    t.text("last_error").nullable();
    t.dateTime("sent_at").nullable();
    t.dateTime("created_at").notNullable();
    t.dateTime("updated_at").notNullable();
    t.index(["payment_id"], "payment_refunds_payment");
    t.index(["send_status", "next_attempt_at"], "payment_refunds_due");
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists("payment_refunds");
}
