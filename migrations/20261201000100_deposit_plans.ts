import type { Knex } from "knex";

/**
 * Camp payment plans (README: Deposits): per event a deposit policy as data, per registration the plan chosen, what
 * the deposit was, when the balance is due, the saved card the balance is charged to and the consent its payer gave.
 *
 * - `events.deposit_kind`: none, fixed (`deposit_value` cents per athlete) or percent (`deposit_value` whole percent
 *   of the price, rounded to whole dollars per athlete); `balance_due_days` before the first day the balance is due;
 *   `balance_grace_days` after the due date an unpaid balance keeps its places.
 * - The seeded camps (events 1 and 2) take $75 per athlete, the tour (event 4) 25%, the clinic (event 3) none; an
 *   event an operator already gave a policy keeps it.
 */
const SEEDED_POLICIES = [
  { id: 1, deposit_kind: "fixed", deposit_value: 7500 },
  { id: 2, deposit_kind: "fixed", deposit_value: 7500 },
  { id: 4, deposit_kind: "percent", deposit_value: 25 },
] as const;

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable("events", (t) => {
    t.string("deposit_kind", 10).notNullable().defaultTo("none").comment("none, fixed or percent");
    t.integer("deposit_value").notNullable().defaultTo(0).comment("fixed: cents per athlete; percent: whole percent of the price");
    t.integer("balance_due_days").notNullable().defaultTo(14).comment("the balance is due this many days before the first day");
    // 10: past the last retry (due + 7 days), so an overdue balance keeps its places for a while (DEFAULT_BALANCE_GRACE_DAYS).
    t.integer("balance_grace_days").notNullable().defaultTo(10).comment("days after the due date an unpaid balance keeps its places");
  });
  await knex.schema.alterTable("registrations", (t) => {
    t.string("payment_plan", 10).notNullable().defaultTo("full").comment("full or deposit");
    t.integer("deposit_cents").nullable().comment("plan deposit: what is paid today; the balance is amount_cents minus it");
    t.dateTime("balance_due_at").nullable().comment("plan deposit: when the balance is charged to the saved card");
    t.string("stripe_customer_id", 255).nullable();
    t.string("payment_method_id", 255).nullable().comment("the saved card the balance is charged to");
    t.string("card_brand", 20).nullable();
    t.string("card_last4", 4).nullable();
    t.integer("card_exp_month").nullable();
    t.integer("card_exp_year").nullable();
    t.string("card_consent_version", 20).nullable().comment("the version of the consent sentence shown next to the Pay button");
    t.text("card_consent_text").nullable().comment("the consent sentence as shown, with its amount and date");
  });
  for (const p of SEEDED_POLICIES) {
    await knex("events").where({ id: p.id, deposit_kind: "none" }).update({ deposit_kind: p.deposit_kind, deposit_value: p.deposit_value });
  }
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable("registrations", (t) =>
    t.dropColumns("payment_plan", "deposit_cents", "balance_due_at", "stripe_customer_id", "payment_method_id", "card_brand", "card_last4", "card_exp_month", "card_exp_year", "card_consent_version", "card_consent_text"),
  );
  await knex.schema.alterTable("events", (t) => t.dropColumns("deposit_kind", "deposit_value", "balance_due_days", "balance_grace_days"));
}
