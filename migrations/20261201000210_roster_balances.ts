import type { Knex } from "knex";
import { replaceRoster } from "./20261126000300_registration_manage_links.ts";

/**
 * `registration_roster` (and so `npm run export -- registrations`) shows a deposit registration's money: `deposit_paid`
 * (the deposit, once paid), `balance` (what is still owed: 0.00 once paid in full, or once the registration was
 * released or canceled) and `balance_due` (when the balance is charged); NULL for a registration paid in full. The
 * `status` column reads deposit_paid or balance_overdue while the balance is owed.
 */
export async function up(knex: Knex): Promise<void> {
  await replaceRoster(knex, { athleteStatus: true, missing: true, balances: true });
}

export async function down(knex: Knex): Promise<void> {
  await replaceRoster(knex, { athleteStatus: true, missing: true });
}
