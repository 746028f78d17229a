import type { Knex } from "knex";
import { replaceRoster } from "./20261126000300_registration_manage_links.ts";

/**
 * `registration_roster.missing`: what a team athlete's family still has to do, NULL when nothing. Today that is the
 * liability waiver and medical release, required for an athlete under 18 (ADULT_AGE in registrations/manage/family.ts)
 * who is still on the team; an individual registrant agrees on the registration form itself.
 */
export async function up(knex: Knex): Promise<void> {
  await replaceRoster(knex, { athleteStatus: true, missing: true });
}

export async function down(knex: Knex): Promise<void> {
  await replaceRoster(knex, { athleteStatus: true });
}
