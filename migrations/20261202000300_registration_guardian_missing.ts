import type { Knex } from "knex";
import { replaceRoster } from "./20261126000300_registration_manage_links.ts";

/**
 * `registrations.guardian_missing`: an individual registration made by a request of the spec's shape (its table has no
 * guardian fields) registers without its parent or guardian contact, which is asked for afterwards: on the manage page,
 * in the confirmation e-mail, and in `registration_roster.missing` ("parent or guardian contact"), as a team athlete's
 * waiver is. It goes back to false when the contact is given or the athlete is said to be 18 or older.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable("registrations", (t) => {
    t.boolean("guardian_missing").notNullable().defaultTo(false).comment("an individual's parent or guardian contact still to be given (spec-shaped request)");
  });
  await replaceRoster(knex, { athleteStatus: true, missing: true, balances: true, guardianMissing: true });
}

export async function down(knex: Knex): Promise<void> {
  await replaceRoster(knex, { athleteStatus: true, missing: true, balances: true });
  await knex.schema.alterTable("registrations", (t) => t.dropColumn("guardian_missing"));
}
