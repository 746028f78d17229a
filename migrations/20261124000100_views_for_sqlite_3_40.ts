import type { Knex } from "knex";

/**
 * The two admin views, redefined so that older SQLite builds read the embedded database too: Debian's `sqlite3`
 * (3.40) refuses the whole file ("malformed database schema") when a view uses `group_concat(... ORDER BY ...)`,
 * which SQLite reads only since 3.44. On SQLite the days are joined by `group_concat` as a window function ordered
 * by the day (window functions: SQLite 3.25+), whose frame is every row, so the first row holds the whole ordered
 * list. MySQL keeps `group_concat(... order by ... separator ...)`. Columns, their order and the order of days are
 * those of the previous definitions (registrations + discounts, coach requests).
 *
 * A later migration that changes a view copies its function here and edits the copy, keeping this form.
 */
export async function up(knex: Knex): Promise<void> {
  const mysql = knex.client.config.client === "mysql2";
  await knex.raw("drop view if exists registration_roster");
  await knex.raw(`create view registration_roster as ${rosterQuery(mysql)}`);
  await knex.raw("drop view if exists coach_request_list");
  await knex.raw(`create view coach_request_list as ${coachRequestListQuery(mysql)}`);
}

/** The previous definitions needed SQLite 3.44; these read the same on every version, so they stay. */
export async function down(): Promise<void> {}

/** `expression` of the rows of `from` (a FROM ... WHERE clause), in `orderBy` order, joined by `separator`. */
function orderedList(mysql: boolean, expression: string, orderBy: string, separator: string, from: string): string {
  if (mysql) return `(select group_concat(${expression} order by ${orderBy} separator '${separator}') ${from})`;
  return `(select group_concat(${expression}, '${separator}') over (order by ${orderBy} rows between unbounded preceding and unbounded following) ${from} limit 1)`;
}

function rosterQuery(mysql: boolean): string {
  const days = orderedList(mysql, "d.label", "d.sort_order", ", ", "from registration_days rd join event_days d on d.id = rd.event_day_id where rd.registration_id = r.id");
  const dollars = (col: string) => (mysql ? `cast(${col} / 100 as decimal(10, 2))` : `printf('%.2f', ${col} / 100.0)`);
  const fullName = (a: string, b: string) => (mysql ? `concat(${a}, ' ', ${b})` : `${a} || ' ' || ${b}`);
  const time = (col: string) => (mysql ? col : `datetime(${col} / 1000, 'unixepoch')`);
  const gradeOrAge = mysql ? "coalesce(a.grade, cast(a.age as char))" : "coalesce(a.grade, cast(a.age as text))";
  return `
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
      ${dollars("dr.amount_off_cents")} as discount_amount,
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
    left join discount_redemptions dr on dr.registration_id = r.id and dr.status <> 'released'
    left join discount_codes dc on dc.id = dr.discount_code_id`;
}

/** A day in words, e.g. 'Friday, June 12, 2027', from the stored date (never from a label typed by hand). */
function dayInWords(mysql: boolean): string {
  if (mysql) return "date_format(d.day_date, '%W, %M %e, %Y')";
  // SQLite stores knex Date bindings as epoch milliseconds; a date typed by hand is 'YYYY-MM-DD'.
  const date = "(case when typeof(d.day_date) in ('integer', 'real') then date(d.day_date / 1000, 'unixepoch') else date(d.day_date) end)";
  const weekdays = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"];
  const months = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"];
  const weekday = `case cast(strftime('%w', ${date}) as integer) ${weekdays.map((w, i) => `when ${i} then '${w}'`).join(" ")} end`;
  const month = `case cast(strftime('%m', ${date}) as integer) ${months.map((m, i) => `when ${i + 1} then '${m}'`).join(" ")} end`;
  return `${weekday} || ', ' || ${month} || ' ' || cast(strftime('%d', ${date}) as integer) || ', ' || strftime('%Y', ${date})`;
}

function coachRequestListQuery(mysql: boolean): string {
  const days = orderedList(mysql, dayInWords(mysql), "d.day_date", "; ", "from coach_request_days rd join event_days d on d.id = rd.event_day_id where rd.coach_request_id = r.id");
  return `
    select
      r.id,
      r.created_at,
      r.event_id,
      e.title as event_title,
      ${days} as days_attending,
      r.full_name,
      r.title,
      r.college_name,
      r.email,
      r.cell_phone,
      r.school_phone,
      r.school_website,
      r.division_level,
      r.conference,
      r.number_of_athletes,
      r.areas_of_interest,
      r.notes,
      r.logo_file
    from coach_requests r
    join events e on e.id = r.event_id`;
}
