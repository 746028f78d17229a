import type { Knex } from "knex";

/**
 * Families and coaches manage their own registrations (README: Managing a registration after payment):
 * - `registration_manage_links`: the private links, one row per link sent (the confirmation e-mail, the
 *   confirmation page, each "Lost your confirmation?" e-mail); only the SHA-256 of the token is stored;
 * - `events.changes_freeze_at`: until when a paid registration's details and days can change (null: 7 days
 *   before the event's start);
 * - a registration canceled by its registrant (`withdrawn`), or one athlete withdrawn from a team, keeps when and the
 *   refund the policy gave; the roster view shows such an athlete as `withdrawn`;
 * - a team athlete's family signs the liability waiver and medical release through its own link: the version, the
 *   typed name, the relationship and when are kept on the athlete, and the roster view shows them;
 * - `registration_reminders`: one row per reminder sent to a family before the freeze date (unique, so several
 *   instances sending at once send it once).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable("registration_manage_links", (t) => {
    t.increments("id");
    t.integer("registration_id").unsigned().notNullable().references("id").inTable("registrations").onDelete("CASCADE");
    t.string("token_hash", 64).notNullable().unique().comment("SHA-256 (hex) of the link's token; the token itself is never stored");
    t.string("sent_by", 20).notNullable().comment("confirmation (e-mail), page (confirmation page), resend (Lost your confirmation?) or family (sent by the coach)");
    t.integer("athlete_position").nullable().comment("a family's link: opens only this athlete of a team (registration_athletes.position)");
    t.dateTime("created_at").notNullable();
    t.dateTime("revoked_at").nullable().comment("set: the link answers 404");
    t.index(["registration_id"], "registration_manage_links_registration");
  });
  await knex.schema.alterTable("events", (t) => {
    t.dateTime("changes_freeze_at").nullable().comment("paid registrations can change until then; null: 7 days before the start");
  });
  await knex.schema.alterTable("registrations", (t) => {
    t.dateTime("withdrawn_at").nullable().comment("canceled by the registrant through the manage link");
    t.integer("withdrawal_refund_cents").nullable().comment("what the cancellation policy gave back when it was canceled");
  });
  await knex.schema.alterTable("registration_athletes", (t) => {
    t.dateTime("withdrawn_at").nullable().comment("withdrawn from its team by the coach: the place is free, the rest of the team stays");
    t.integer("withdrawal_refund_cents").nullable();
    t.string("waiver_version", 20).nullable().comment("the liability waiver and medical release version signed (src/registrations/manage/agreements.ts)");
    t.string("waiver_signed_name", 160).nullable().comment("the signer's typed full name");
    t.string("waiver_signer_relationship", 40).nullable().comment("Parent, Legal guardian, or the athlete (18 or older)");
    t.dateTime("waiver_signed_at").nullable();
  });
  await knex.schema.createTable("registration_reminders", (t) => {
    t.increments("id");
    t.integer("registration_id").unsigned().notNullable().references("id").inTable("registrations").onDelete("CASCADE");
    t.integer("athlete_position").notNullable();
    t.string("kind", 40).notNullable().comment("what it reminded of, e.g. waiver_before_freeze");
    t.dateTime("sent_at").notNullable();
    t.unique(["registration_id", "athlete_position", "kind"], { indexName: "registration_reminders_once" });
  });
  await replaceRoster(knex, { athleteStatus: true });
}

export async function down(knex: Knex): Promise<void> {
  await replaceRoster(knex, { athleteStatus: false });
  await knex.schema.dropTable("registration_reminders");
  await knex.schema.alterTable("registration_athletes", (t) =>
    t.dropColumns("withdrawn_at", "withdrawal_refund_cents", "waiver_version", "waiver_signed_name", "waiver_signer_relationship", "waiver_signed_at"),
  );
  await knex.schema.alterTable("registrations", (t) => t.dropColumns("withdrawn_at", "withdrawal_refund_cents"));
  await knex.schema.alterTable("events", (t) => t.dropColumn("changes_freeze_at"));
  await knex.schema.dropTable("registration_manage_links");
}

/**
 * The admins' one-row-per-athlete view, copied from 20261124000300 (amount refunded and when included); with
 * `athleteStatus` an athlete withdrawn from a team reads `withdrawn` while the rest of the team stays `paid`, and with
 * `missing` (20261127000300) a column says what a team athlete's family still has to do, and with `balances`
 * (20261201000210) a deposit registration's deposit paid, balance owed and due date; with `guardianMissing`
 * (20261202000300) `missing` also names an individual's parent or guardian contact still to be given; with `siblings`
 * (20261203000100) a family athlete's own package, days and sibling discount. Later migrations that change
 * the view call this, so its SQL is written once from here on.
 */
export async function replaceRoster(
  knex: Knex,
  { athleteStatus, missing = false, balances = false, guardianMissing = false, siblings = false }: { athleteStatus: boolean; missing?: boolean; balances?: boolean; guardianMissing?: boolean; siblings?: boolean },
): Promise<void> {
  const mysql = knex.client.config.client === "mysql2";
  // SQLite before 3.44 has no ORDER BY inside group_concat: the days are ordered in a subquery instead.
  const days = mysql
    ? "(select group_concat(d.label order by d.sort_order separator ', ') from registration_days rd join event_days d on d.id = rd.event_day_id where rd.registration_id = r.id)"
    : "(select group_concat(label, ', ') from (select d.label as label from registration_days rd join event_days d on d.id = rd.event_day_id where rd.registration_id = r.id order by d.sort_order))";
  // A family athlete's own days (registration_athletes.day_ids, comma-separated ids).
  const athleteDays = mysql
    ? "(select group_concat(d.label order by d.sort_order separator ', ') from event_days d where find_in_set(d.id, a.day_ids) > 0)"
    : "(select group_concat(label, ', ') from (select d.label as label from event_days d where instr(',' || a.day_ids || ',', ',' || d.id || ',') > 0 order by d.sort_order))";
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
      ${siblings ? "coalesce(a.package_label, r.package_label)" : "r.package_label"} as package,
      ${siblings ? `case when a.day_ids is not null then ${athleteDays} else ${days} end` : days} as days,
      ${dollars("r.amount_paid_cents")} as amount_paid,
      dc.code as discount_code,
      ${dollars("dr.amount_off_cents")} as discount_amount,
      ${dollars("r.amount_refunded_cents")} as amount_refunded,
      ${athleteStatus ? "case when a.withdrawn_at is not null then 'withdrawn' else r.status end" : "r.status"} as status,
      r.contact_email as contact_email,
      r.contact_phone as contact_phone,
      ${mysql ? "concat(a.emergency_contact_name, ', ', a.emergency_contact_phone)" : "a.emergency_contact_name || ', ' || a.emergency_contact_phone"} as emergency_contact,
      a.special_requirements as special_requirements,
      ${time("r.created_at")} as created_at,
      ${time("r.paid_at")} as paid_at,
      ${time("r.refunded_at")} as refunded_at${
        athleteStatus
          ? `,
      a.waiver_version as waiver_version,
      ${mysql ? "concat(a.waiver_signed_name, ', ', a.waiver_signer_relationship)" : "a.waiver_signed_name || ', ' || a.waiver_signer_relationship"} as waiver_signed_by,
      ${time("a.waiver_signed_at")} as waiver_signed_at`
          : ""
      }${
        missing
          ? `,
      case when r.kind = 'team' and a.withdrawn_at is null and a.waiver_version is null and (a.age is null or a.age < 18)
        then 'waiver and medical release'${guardianMissing ? "\n        when r.kind = 'individual' and r.guardian_missing = 1 then 'parent or guardian contact'" : ""} end as missing`
          : ""
      }${
        balances
          ? `,
      case when r.payment_plan = 'deposit' and r.amount_paid_cents is not null then ${dollars("r.deposit_cents")} end as deposit_paid,
      case when r.payment_plan = 'deposit' and r.amount_paid_cents is not null
        then ${dollars(`case when r.status in ('deposit_paid', 'balance_overdue') then r.amount_cents - r.amount_paid_cents else 0 end`)} end as balance,
      case when r.payment_plan = 'deposit' then ${time("r.balance_due_at")} end as balance_due`
          : ""
      }${
        siblings
          ? `,
      case when a.sibling_discount_cents is not null then ${dollars("a.sibling_discount_cents")} end as sibling_discount`
          : ""
      }
    from registrations r
    join events e on e.id = r.event_id
    join registration_athletes a on a.registration_id = r.id
    left join discount_redemptions dr on dr.registration_id = r.id and dr.status <> 'released'
    left join discount_codes dc on dc.id = dr.discount_code_id
  `);
}
