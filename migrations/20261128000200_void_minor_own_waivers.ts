import type { Knex } from "knex";

/**
 * A waiver that an athlete signed for themself while an age of 18 or more stood on the roster, and whose age was then
 * set under 18, was never a valid signature: it is voided, so the roster's `missing` asks a parent or guardian for it.
 * From now on the family's details change voids it in the same transaction (registrations/manage/family.ts).
 */
export async function up(knex: Knex): Promise<void> {
  await knex("registration_athletes")
    .where({ waiver_signer_relationship: "Athlete (18 or older)" })
    .where((q) => q.whereNull("age").orWhere("age", "<", 18))
    .update({ waiver_version: null, waiver_signed_name: null, waiver_signer_relationship: null, waiver_signed_at: null });
}

export async function down(): Promise<void> {
  // A voided signature is not restored.
}
