import type { Knex } from "knex";

/**
 * Event registrations: one row per registration (an individual, or later a team under one payment), one row
 * per athlete, one row per attended day, and the admins' one-row-per-athlete `registration_roster` view.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable("registrations", (t) => {
    t.increments("id").primary();
    t.string("reference", 20).notNullable().unique().comment("shown to the registrant and sent to Stripe");
    t.integer("event_id").unsigned().notNullable().references("id").inTable("events");
    t.string("kind", 20).notNullable().defaultTo("individual").comment("individual or team");
    t.string("team_name", 160).nullable().comment("team registrations only");
    t.string("status", 20).notNullable().defaultTo("pending_payment").comment("pending_payment, paid, expired, canceled, refunded");
    t.integer("places").unsigned().notNullable().defaultTo(1).comment("places taken at the event: 1, or the team's athletes");
    t.string("package_code", 20).notNullable().comment("event_packages.code at the time of registration");
    t.string("package_label", 80).notNullable();
    t.integer("list_price_cents").notNullable().comment("package price times places, from event_packages");
    t.integer("amount_cents").notNullable().comment("what the registrant pays");
    t.integer("amount_paid_cents").nullable().comment("set when paid (0 for a free registration)");
    t.string("contact_first_name", 100).notNullable();
    t.string("contact_last_name", 100).notNullable();
    t.string("contact_email", 320).notNullable();
    t.string("contact_phone", 40).notNullable();
    t.string("form_session_id", 64).notNullable().unique().comment("the form that made it: a resubmit reuses the row");
    t.dateTime("reserved_until").nullable().comment("a pending registration holds its places until then");
    t.dateTime("agreed_at").notNullable().comment("when the terms and medical release were accepted");
    t.dateTime("created_at").notNullable();
    t.dateTime("updated_at").notNullable();
    t.dateTime("paid_at").nullable();
    t.index(["event_id", "status", "reserved_until"], "registrations_event_status");
    t.index(["status", "reserved_until"], "registrations_status_reserved");
  });

  await knex.schema.createTable("registration_athletes", (t) => {
    t.increments("id").primary();
    t.integer("registration_id").unsigned().notNullable().references("id").inTable("registrations").onDelete("CASCADE");
    t.integer("position").notNullable().defaultTo(1);
    t.string("first_name", 100).notNullable();
    t.string("last_name", 100).notNullable();
    t.string("email", 320).notNullable();
    t.string("phone", 40).nullable();
    t.string("grade", 40).nullable().comment("individual registrations");
    t.integer("age").nullable().comment("team registrations");
    t.string("gender", 10).nullable();
    t.string("school_name", 160).nullable();
    t.string("club_name", 160).nullable();
    t.string("shirt_size", 10).nullable();
    t.string("emergency_contact_name", 160).notNullable().comment("a team athlete's parent");
    t.string("emergency_contact_phone", 40).notNullable();
    t.text("special_requirements").nullable().comment("medical needs, allergies");
    t.index(["registration_id", "position"], "registration_athletes_registration");
  });

  await knex.schema.createTable("registration_days", (t) => {
    t.increments("id").primary();
    t.integer("registration_id").unsigned().notNullable().references("id").inTable("registrations").onDelete("CASCADE");
    t.integer("event_day_id").unsigned().notNullable().references("id").inTable("event_days");
    t.unique(["registration_id", "event_day_id"], { indexName: "registration_days_unique" });
  });

  const mysql = knex.client.config.client === "mysql2";
  const days = mysql
    ? "(select group_concat(d.label order by d.sort_order separator ', ') from registration_days rd join event_days d on d.id = rd.event_day_id where rd.registration_id = r.id)"
    : "(select group_concat(d.label, ', ' order by d.sort_order) from registration_days rd join event_days d on d.id = rd.event_day_id where rd.registration_id = r.id)";
  const dollars = (col: string) => (mysql ? `cast(${col} / 100 as decimal(10, 2))` : `printf('%.2f', ${col} / 100.0)`);
  const fullName = (a: string, b: string) => (mysql ? `concat(${a}, ' ', ${b})` : `${a} || ' ' || ${b}`);
  // SQLite keeps knex's Date bindings as epoch milliseconds: show them as readable UTC times.
  const time = (col: string) => (mysql ? col : `datetime(${col} / 1000, 'unixepoch')`);
  const gradeOrAge = mysql ? "coalesce(a.grade, cast(a.age as char))" : "coalesce(a.grade, cast(a.age as text))";
  await knex.raw(`
    create view registration_roster as
    select
      r.reference as reference,
      e.title as event_title,
      r.kind as kind,
      r.team_name as team_name,
      ${fullName("a.first_name", "a.last_name")} as athlete_name,
      ${gradeOrAge} as grade_or_age,
      a.gender as gender,
      a.school_name as school,
      a.club_name as club,
      a.shirt_size as shirt_size,
      r.package_label as package,
      ${days} as days,
      ${dollars("r.amount_paid_cents")} as amount_paid,
      r.status as status,
      r.contact_email as contact_email,
      r.contact_phone as contact_phone,
      ${mysql ? "concat(a.emergency_contact_name, ', ', a.emergency_contact_phone)" : "a.emergency_contact_name || ', ' || a.emergency_contact_phone"} as emergency_contact,
      a.special_requirements as special_requirements,
      ${time("r.created_at")} as created_at,
      ${time("r.paid_at")} as paid_at
    from registrations r
    join events e on e.id = r.event_id
    join registration_athletes a on a.registration_id = r.id
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw("drop view if exists registration_roster");
  await knex.schema.dropTableIfExists("registration_days");
  await knex.schema.dropTableIfExists("registration_athletes");
  await knex.schema.dropTableIfExists("registrations");
}
