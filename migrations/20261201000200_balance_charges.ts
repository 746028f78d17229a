import type { Knex } from "knex";

/**
 * `balance_charges`: one row per attempt to charge a deposit registration's balance to its saved card
 * (src/registrations/balances/job.ts). The row is the claim: the unique (registration_id, attempt) lets one app
 * instance of several make an attempt, and the attempt's Stripe idempotency key is written with it before Stripe is
 * asked, so an attempt whose process died is sent again with the same key (Stripe answers with the first charge,
 * never a second). `status`: claimed (in flight), retry (the call failed before Stripe answered: the same attempt,
 * the same key, again at next_attempt_at), succeeded, authentication_required, declined (next_attempt_at set: a
 * soft decline tried again then; null: the last attempt), dropped (left behind by a dead claimer when nothing was
 * owed any more: not sent again).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable("balance_charges", (t) => {
    t.increments("id");
    t.integer("registration_id").unsigned().notNullable().references("id").inTable("registrations").onDelete("CASCADE");
    t.integer("attempt").notNullable().comment("1 on the due date, then 2 to 4 after soft declines");
    t.string("idempotency_key", 100).notNullable().unique().comment("Stripe idempotency key of this attempt, reused when the attempt is sent again");
    t.integer("amount_cents").notNullable().comment("the balance this attempt charges");
    t.string("status", 30).notNullable().comment("claimed, retry, succeeded, authentication_required, declined or dropped");
    t.integer("claims").notNullable().defaultTo(1).comment("times the attempt was claimed: the claimer's ticket for writing its outcome");
    t.integer("payment_id").unsigned().nullable().comment("the payments row Stripe's answer was recorded as");
    t.string("decline_code", 60).nullable();
    t.boolean("hard_decline").nullable().comment("a decline that no retry can change (lost or stolen card, ...)");
    t.string("last_error", 500).nullable();
    t.dateTime("claimed_at").nullable();
    t.dateTime("finished_at").nullable();
    t.dateTime("next_attempt_at").nullable().comment("declined softly: when the next attempt is due; retry: when this one is sent again");
    t.dateTime("created_at").notNullable();
    t.unique(["registration_id", "attempt"], { indexName: "balance_charges_one_per_attempt" });
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable("balance_charges");
}
