import type { Knex } from "knex";

/**
 * The waiting list of a sold-out event (README: Waiting list): one row per family or team in line, the pending
 * registrations an offer holds for it, the job queue that makes offers, and the admins' `waiting_list` view
 * (plain SQL that SQLite 3.40 reads: no `group_concat(... order by ...)`, see 20261124000100).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable("waiting_list_entries", (t) => {
    t.increments("id").primary();
    t.integer("event_id").unsigned().notNullable().references("id").inTable("events");
    t.integer("position").unsigned().notNullable().comment("place in the event's line: 1 is first; never reused");
    t.string("kind", 20).notNullable().comment("individual (1-4 places, one registration each) or team (one team registration)");
    t.integer("places").unsigned().notNullable();
    t.string("package_code", 20).notNullable().comment("event_packages.code, or team");
    t.string("contact_first_name", 100).notNullable();
    t.string("contact_last_name", 100).notNullable();
    t.string("contact_email", 320).notNullable();
    t.string("contact_phone", 40).notNullable();
    t.string("team_name", 160).nullable();
    t.string("status", 20).notNullable().defaultTo("waiting").comment("waiting, offered, registered, expired, declined, left");
    t.string("leave_token_hash", 64).notNullable().unique().comment("sha256 of the e-mailed link's token that leaves the list");
    t.string("offer_token_hash", 64).nullable().unique().comment("sha256 of the offer link's token");
    t.integer("passed_over").unsigned().notNullable().defaultTo(0).comment("offers made to entries behind it while it did not fit");
    t.dateTime("offered_at").nullable();
    t.dateTime("offered_until").nullable();
    t.dateTime("created_at").notNullable();
    t.dateTime("updated_at").notNullable();
    t.unique(["event_id", "position"], { indexName: "waiting_list_entries_position" });
    t.index(["event_id", "status", "position"], "waiting_list_entries_line");
  });

  await knex.schema.createTable("waiting_list_holds", (t) => {
    t.increments("id").primary();
    t.integer("entry_id").unsigned().notNullable().references("id").inTable("waiting_list_entries").onDelete("CASCADE");
    t.integer("registration_id").unsigned().notNullable().unique().references("id").inTable("registrations").onDelete("CASCADE");
    t.integer("place_number").unsigned().notNullable().comment("1..places for an individual entry; 1 for a team");
  });

  await knex.schema.createTable("waiting_list_jobs", (t) => {
    t.increments("id").primary();
    t.integer("event_id").unsigned().notNullable();
    t.string("status", 20).notNullable().defaultTo("pending");
    t.integer("attempts").notNullable().defaultTo(0);
    t.dateTime("next_attempt_at").notNullable();
    t.dateTime("claimed_at").nullable();
    t.dateTime("sent_at").nullable();
    t.text("last_error").nullable();
    t.dateTime("created_at").notNullable();
    t.index(["status", "next_attempt_at"], "waiting_list_jobs_due");
  });

  const mysql = knex.client.config.client === "mysql2";
  const time = (col: string) => (mysql ? col : `datetime(${col} / 1000, 'unixepoch')`);
  const fullName = mysql ? "concat(w.contact_first_name, ' ', w.contact_last_name)" : "w.contact_first_name || ' ' || w.contact_last_name";
  await knex.raw(`
    create view waiting_list as
    select
      w.event_id as event_id,
      e.title as event_title,
      w.position as position,
      w.kind as kind,
      w.places as size,
      w.package_code as package,
      w.status as status,
      ${time("w.offered_until")} as offered_until,
      w.passed_over as passed_over,
      ${fullName} as contact_name,
      w.contact_email as contact_email,
      w.contact_phone as contact_phone,
      w.team_name as team_name,
      ${time("w.created_at")} as joined_at
    from waiting_list_entries w
    join events e on e.id = w.event_id
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw("drop view if exists waiting_list");
  await knex.schema.dropTable("waiting_list_jobs");
  await knex.schema.dropTable("waiting_list_holds");
  await knex.schema.dropTable("waiting_list_entries");
}
