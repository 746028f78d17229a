import type { Knex } from "knex";

/**
 * `payments.group_reference`: the thing a payment's money belongs to, so one question answers what that thing has
 * paid (src/payments/groups.ts). A registration's own payment and its changes' payments share the registration's
 * reference (later its deposit and balance too); an order's payment is its own group. Rows written before this
 * migration are given their group here: `registration` and `order` payments their own reference, a
 * `registration_change` payment (reference: the change's id) its registration's reference.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable("payments", (t) => {
    t.string("group_reference", 60).nullable().comment("the registration or order whose money this payment is (its changes' payments share it)");
    t.index(["group_reference"], "payments_group_reference");
  });
  await knex("payments").whereNot("kind", "registration_change").update({ group_reference: knex.ref("reference") });
  const changes: { id: unknown; reference: unknown }[] = await knex("registration_changes")
    .join("registrations", "registrations.id", "registration_changes.registration_id")
    .select("registration_changes.id as id", "registrations.reference as reference");
  for (const c of changes) {
    await knex("payments").where({ kind: "registration_change", reference: String(c.id) }).update({ group_reference: String(c.reference) });
  }
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable("payments", (t) => {
    t.dropIndex(["group_reference"], "payments_group_reference");
    t.dropColumn("group_reference");
  });
}
