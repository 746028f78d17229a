import type { Knex } from "knex";

/**
 * A team's invite link (docs/behaviour.md, "A team's invite link"): the coach's draft lives on the server while the
 * athletes' families fill in their own rows through one shared link.
 * - `team_invites`: one per coach's draft (event, coach contact, the coach's own rows, the form's id); only the
 *   SHA-256 of the link's token is stored; `registration_reference` is the team held from it, `paid_at` closes it;
 * - `team_invite_rows`: one per family: the team form's athlete row, the waiver as signed, and the row's place on
 *   the held team (`held_position`).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable("team_invites", (t) => {
    t.increments("id");
    t.integer("event_id").unsigned().notNullable().references("id").inTable("events");
    t.string("token_hash", 64).notNullable().unique().comment("SHA-256 (hex) of the invite link's token; the token itself is never stored");
    t.string("form_session_id", 100).notNullable().comment("the team form's id: the team held from this draft (registrations.form_session_id)");
    t.text("coach_json").notNullable().comment("the coach's contact and team name as last saved (JSON)");
    t.text("rows_json").notNullable().comment("the athlete rows the coach typed (JSON); the families' rows are team_invite_rows");
    t.string("registration_reference", 40).nullable().comment("the team last held from this draft");
    t.dateTime("paid_at").nullable().comment("set when that team is paid: the link then shows it closed");
    t.dateTime("created_at").notNullable();
    t.dateTime("updated_at").notNullable();
    t.index(["registration_reference"], "team_invites_registration");
  });
  await knex.schema.createTable("team_invite_rows", (t) => {
    t.increments("id");
    t.integer("invite_id").unsigned().notNullable().references("id").inTable("team_invites").onDelete("CASCADE");
    t.string("first_name", 100).notNullable();
    t.string("last_name", 100).notNullable();
    t.integer("age").notNullable();
    t.string("email", 254).notNullable();
    t.string("shirt_size", 10).notNullable();
    t.string("parent_name", 160).notNullable().comment("the parent or guardian: the athlete's emergency contact");
    t.string("parent_phone", 40).notNullable();
    t.string("waiver_version", 20).nullable().comment("the waiver and medical release version the family signed");
    t.string("waiver_signed_name", 160).nullable();
    t.string("waiver_signer_relationship", 40).nullable();
    t.dateTime("waiver_signed_at").nullable();
    t.integer("held_position").nullable().comment("the athlete's registration_athletes.position on the team held from the invite");
    t.dateTime("created_at").notNullable();
    t.dateTime("updated_at").notNullable();
    t.index(["invite_id"], "team_invite_rows_invite");
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable("team_invite_rows");
  await knex.schema.dropTable("team_invites");
}
