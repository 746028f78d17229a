import type { Knex } from "knex";
import { replaceRoster } from "./20261126000300_registration_manage_links.ts";

/**
 * Siblings in one registration (issue 43): an individual registration may hold 2 to 4 athletes of one family, one
 * place each, each with its own package and days, priced per athlete with the event's sibling discount.
 * - `events.sibling_discount_kind` (`none`, `fixed`, `percent`) and `sibling_discount_value` (fixed: cents off each
 *   additional athlete; percent: whole percent off each additional athlete's package price).
 * - `registration_athletes.package_code`, `package_label`, `list_price_cents`, `sibling_discount_cents`, `day_ids`
 *   (comma-separated event_days ids): an athlete's own package, price, discount and days, written for every athlete of
 *   a family registration (null for one athlete and for a team, whose registration row says it).
 * The roster reads an athlete's own package, days and sibling discount where it has them.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable("events", (t) => {
    t.string("sibling_discount_kind", 10).notNullable().defaultTo("none").comment("none, fixed or percent: off each additional athlete of a family");
    t.integer("sibling_discount_value").notNullable().defaultTo(0).comment("fixed: cents; percent: whole percent");
  });
  await knex.schema.alterTable("registration_athletes", (t) => {
    t.string("package_code", 20).nullable().comment("a family athlete's own package (null: the registration's)");
    t.string("package_label", 80).nullable();
    t.integer("list_price_cents").nullable().comment("a family athlete's package price");
    t.integer("sibling_discount_cents").nullable().comment("the sibling discount on this athlete (0 for the athlete paying full price)");
    t.string("day_ids", 100).nullable().comment("a family athlete's event_days ids, comma-separated");
  });
  await replaceRoster(knex, { athleteStatus: true, missing: true, balances: true, guardianMissing: true, siblings: true });
}

export async function down(knex: Knex): Promise<void> {
  await replaceRoster(knex, { athleteStatus: true, missing: true, balances: true, guardianMissing: true });
  await knex.schema.alterTable("registration_athletes", (t) => t.dropColumns("package_code", "package_label", "list_price_cents", "sibling_discount_cents", "day_ids"));
  await knex.schema.alterTable("events", (t) => t.dropColumns("sibling_discount_kind", "sibling_discount_value"));
}
