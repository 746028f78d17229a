import type { Knex } from "knex";

/**
 * The registration aggregate (src/registrations/):
 * - `version` counts changes to what a registration pays for (package, days, places, code, amount); a payment
 *   records the version its PaymentIntent was made for (`payments.covers_version`), and settlement compares them.
 * - who holds a registration's places unpaid (hashes of the visitor's session key and address), for the cap on
 *   places one visitor may hold at once;
 * - refunds recorded on the registration and the payment (a partial refund keeps the registration paid);
 * - discount codes compared byte for byte (MySQL's default collation folds accents: 'ÖFF119' = 'OFF119');
 * - the roster view gains the amount refunded, and orders its days in a form SQLite 3.40 reads.
 */
export async function up(knex: Knex): Promise<void> {
  const mysql = knex.client.config.client === "mysql2";
  await knex.schema.alterTable("registrations", (t) => {
    t.integer("version").notNullable().defaultTo(1).comment("bumped when package, days, places, code or amount change");
    t.string("holder_session", 64).nullable().comment("hash of the holding visitor's session key (the per-visitor cap on unpaid places)");
    t.string("holder_address", 64).nullable().comment("hash of the holding visitor's address");
    t.integer("amount_refunded_cents").notNullable().defaultTo(0).comment("refunded so far, through the site or Stripe's dashboard");
    t.dateTime("refunded_at").nullable();
    t.index(["holder_session", "status"], "registrations_holder_session");
    t.index(["holder_address", "status"], "registrations_holder_address");
  });
  await knex.schema.alterTable("payments", (t) => {
    t.integer("covers_version").nullable().comment("the version of the paid-for row that the PaymentIntent's amount is for (registrations)");
    t.integer("amount_refunded_cents").notNullable().defaultTo(0);
  });
  if (mysql) {
    await knex.raw("alter table discount_codes modify code varchar(40) character set utf8mb4 collate utf8mb4_bin not null");
  }
  await replaceRoster(knex, true);
}

export async function down(knex: Knex): Promise<void> {
  await replaceRoster(knex, false);
  if (knex.client.config.client === "mysql2") {
    await knex.raw("alter table discount_codes modify code varchar(40) character set utf8mb4 collate utf8mb4_unicode_ci not null");
  }
  await knex.schema.alterTable("payments", (t) => t.dropColumns("covers_version", "amount_refunded_cents"));
  await knex.schema.alterTable("registrations", (t) => {
    t.dropIndex(["holder_session", "status"], "registrations_holder_session");
    t.dropIndex(["holder_address", "status"], "registrations_holder_address");
    t.dropColumns("version", "holder_session", "holder_address", "amount_refunded_cents", "refunded_at");
  });
}

/** The admins' one-row-per-athlete view; `withRefunds` adds the amount refunded and when. */
async function replaceRoster(knex: Knex, withRefunds: boolean): Promise<void> {
  const mysql = knex.client.config.client === "mysql2";
  // SQLite before 3.44 has no ORDER BY inside group_concat: the days are ordered in a subquery instead.
  const days = mysql
    ? "(select group_concat(d.label order by d.sort_order separator ', ') from registration_days rd join event_days d on d.id = rd.event_day_id where rd.registration_id = r.id)"
    : "(select group_concat(label, ', ') from (select d.label as label from registration_days rd join event_days d on d.id = rd.event_day_id where rd.registration_id = r.id order by d.sort_order))";
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
      ${dollars("r.amount_paid_cents")} as amount_paid,
      dc.code as discount_code,
      ${dollars("dr.amount_off_cents")} as discount_amount,${
        withRefunds
          ? `
      ${dollars("r.amount_refunded_cents")} as amount_refunded,`
          : ""
      }
      r.status as status,
      r.contact_email as contact_email,
      r.contact_phone as contact_phone,
      ${mysql ? "concat(a.emergency_contact_name, ', ', a.emergency_contact_phone)" : "a.emergency_contact_name || ', ' || a.emergency_contact_phone"} as emergency_contact,
      a.special_requirements as special_requirements,
      ${time("r.created_at")} as created_at,
      ${time("r.paid_at")} as paid_at${
        withRefunds
          ? `,
      ${time("r.refunded_at")} as refunded_at`
          : ""
      }
    from registrations r
    join events e on e.id = r.event_id
    join registration_athletes a on a.registration_id = r.id
    left join discount_redemptions dr on dr.registration_id = r.id and dr.status <> 'released'
    left join discount_codes dc on dc.id = dr.discount_code_id
  `);
}
