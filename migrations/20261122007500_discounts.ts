import type { Knex } from "knex";

/**
 * Discount codes (created by operators with `npm run discount`) and their redemptions: one per registration,
 * `held` while the registration's hold lasts, `redeemed` once it is paid (or recorded free), `released` when
 * the hold lapsed. The roster view gains the code and the amount taken off.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable("discount_codes", (t) => {
    t.increments("id").primary();
    t.string("code", 40).notNullable().unique().comment("stored upper-case, so unique without regard to case");
    t.string("discount_type", 10).notNullable().comment("percent or fixed");
    t.integer("value").notNullable().comment("percent: 1 to 100; fixed: cents off");
    t.integer("event_id").unsigned().nullable().references("id").inTable("events").comment("null: every event");
    t.string("kind", 20).notNullable().defaultTo("both").comment("individual, team or both");
    t.integer("max_redemptions").nullable().comment("null: no limit; held and redeemed uses count");
    t.dateTime("starts_at").nullable().comment("null: valid at once");
    t.dateTime("expires_at").nullable().comment("null: never expires; the code stops working at this instant");
    t.boolean("active").notNullable().defaultTo(true);
    t.dateTime("created_at").notNullable();
  });

  await knex.schema.createTable("discount_redemptions", (t) => {
    t.increments("id").primary();
    t.integer("discount_code_id").unsigned().notNullable().references("id").inTable("discount_codes");
    t.integer("registration_id").unsigned().notNullable().unique().references("id").inTable("registrations").onDelete("CASCADE");
    t.integer("amount_off_cents").notNullable();
    t.string("status", 10).notNullable().comment("held, redeemed or released");
    t.dateTime("created_at").notNullable();
    t.dateTime("updated_at").notNullable();
    t.index(["discount_code_id", "status"], "discount_redemptions_code_status");
  });

  await replaceRoster(knex, true);
}

export async function down(knex: Knex): Promise<void> {
  await replaceRoster(knex, false);
  await knex.schema.dropTableIfExists("discount_redemptions");
  await knex.schema.dropTableIfExists("discount_codes");
}

/** The roster view of the registrations migration, with (or without) the discount code and the amount taken off. */
async function replaceRoster(knex: Knex, withDiscount: boolean): Promise<void> {
  const mysql = knex.client.config.client === "mysql2";
  const days = mysql
    ? "(select group_concat(d.label order by d.sort_order separator ', ') from registration_days rd join event_days d on d.id = rd.event_day_id where rd.registration_id = r.id)"
    : "(select group_concat(d.label, ', ' order by d.sort_order) from registration_days rd join event_days d on d.id = rd.event_day_id where rd.registration_id = r.id)";
  const dollars = (col: string) => (mysql ? `cast(${col} / 100 as decimal(10, 2))` : `printf('%.2f', ${col} / 100.0)`);
  const fullName = (a: string, b: string) => (mysql ? `concat(${a}, ' ', ${b})` : `${a} || ' ' || ${b}`);
  const time = (col: string) => (mysql ? col : `datetime(${col} / 1000, 'unixepoch')`);
  const gradeOrAge = mysql ? "coalesce(a.grade, cast(a.age as char))" : "coalesce(a.grade, cast(a.age as text))";
  await knex.raw("drop view if exists registration_roster");
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
      ${dollars("r.amount_paid_cents")} as amount_paid,${
        withDiscount
          ? `
      dc.code as discount_code,
      ${dollars("dr.amount_off_cents")} as discount_amount,`
          : ""
      }
      r.status as status,
      r.contact_email as contact_email,
      r.contact_phone as contact_phone,
      ${mysql ? "concat(a.emergency_contact_name, ', ', a.emergency_contact_phone)" : "a.emergency_contact_name || ', ' || a.emergency_contact_phone"} as emergency_contact,
      a.special_requirements as special_requirements,
      ${time("r.created_at")} as created_at,
      ${time("r.paid_at")} as paid_at
    from registrations r
    join events e on e.id = r.event_id
    join registration_athletes a on a.registration_id = r.id${
      withDiscount
        ? `
    left join discount_redemptions dr on dr.registration_id = r.id and dr.status <> 'released'
    left join discount_codes dc on dc.id = dr.discount_code_id`
        : ""
    }
  `);
}
