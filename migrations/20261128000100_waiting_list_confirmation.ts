import type { Knex } from "knex";

/**
 * The waiting list no one can game (docs/operators.md: Waiting list): a join is a request until its e-mail is
 * confirmed through the e-mailed link (only the link's hash is stored; unconfirmed requests lapse after
 * CONFIRM_HOURS and are deleted), so waiting_list_entries holds confirmed entries only. An entry remembers who
 * joined (the visitor's hashes, for the per-visitor cap) and until when it may hold the line back.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable("waiting_list_requests", (t) => {
    t.increments("id").primary();
    t.integer("event_id").unsigned().notNullable().references("id").inTable("events");
    t.string("kind", 20).notNullable();
    t.integer("places").unsigned().notNullable();
    t.string("package_code", 20).notNullable();
    t.string("contact_first_name", 100).notNullable();
    t.string("contact_last_name", 100).notNullable();
    t.string("contact_email", 320).notNullable();
    t.string("contact_phone", 40).notNullable();
    t.string("team_name", 160).nullable();
    t.string("joiner_session", 64).notNullable().comment("hash of the joining visitor's session key (the per-visitor cap)");
    t.string("joiner_address", 64).notNullable().comment("hash of the joining visitor's address");
    t.string("confirm_token_hash", 64).notNullable().unique().comment("sha256 of the e-mailed confirmation link's token");
    t.dateTime("confirm_by").notNullable().comment("the link confirms until then; the request is deleted a day later");
    t.integer("entry_id").unsigned().nullable().references("id").inTable("waiting_list_entries").onDelete("CASCADE").comment("the entry its confirmation made");
    t.dateTime("created_at").notNullable();
    t.index(["joiner_session", "confirm_by"], "waiting_list_requests_session");
    t.index(["joiner_address", "confirm_by"], "waiting_list_requests_address");
  });
  await knex.schema.alterTable("waiting_list_entries", (t) => {
    t.string("joiner_session", 64).nullable().comment("hash of the joining visitor's session key (the per-visitor cap)");
    t.string("joiner_address", 64).nullable().comment("hash of the joining visitor's address");
    t.dateTime("holds_line_until").nullable().comment("set when it is passed over the second time: until then nobody behind it is offered and the free places wait for it");
    t.index(["contact_email", "status"], "waiting_list_entries_email");
    t.index(["joiner_session", "status"], "waiting_list_entries_session");
    t.index(["joiner_address", "status"], "waiting_list_entries_address");
  });
}

export async function down(knex: Knex): Promise<void> {
  // SQLite drops a column by copying the table, which a view on it forbids: its views are put back after.
  const sqlite = knex.client.config.client !== "mysql2";
  const views: { name: string; sql: string }[] = sqlite ? await knex("sqlite_master").where({ type: "view" }).andWhere("sql", "like", "%waiting_list_entries%").select("name", "sql") : [];
  for (const v of views) await knex.raw(`drop view "${v.name}"`);
  await knex.schema.alterTable("waiting_list_entries", (t) => {
    t.dropIndex(["contact_email", "status"], "waiting_list_entries_email");
    t.dropIndex(["joiner_session", "status"], "waiting_list_entries_session");
    t.dropIndex(["joiner_address", "status"], "waiting_list_entries_address");
    t.dropColumns("joiner_session", "joiner_address", "holds_line_until");
  });
  for (const v of views) await knex.raw(v.sql);
  await knex.schema.dropTable("waiting_list_requests");
}
