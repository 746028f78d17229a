import type { Knex } from "knex";

/**
 * College coach requests: which events take them (the recruiting clinic), the requests with the days each
 * coach attends, and `coach_request_list`, one readable row per request for admins.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable("events", (t) => {
    t.boolean("coach_registration").notNullable().defaultTo(false).comment("college coaches can request to attend (the 'College Coach Registration' button)");
  });
  await knex("events").where({ id: 3 }).update({ coach_registration: true });

  await knex.schema.createTable("coach_requests", (t) => {
    t.increments("id").primary();
    t.integer("event_id").unsigned().notNullable().references("id").inTable("events").onDelete("RESTRICT");
    t.string("full_name", 120).notNullable();
    t.string("title", 120).notNullable().comment("title or position, e.g. Head Coach");
    t.string("college_name", 160).notNullable();
    t.string("email", 254).notNullable();
    t.string("cell_phone", 40).notNullable();
    t.string("school_phone", 40).nullable();
    t.string("school_website", 300).nullable();
    t.string("division_level", 10).notNullable().comment("D1, D2, D3, NAIA, JUCO or Other");
    t.string("conference", 120).notNullable();
    t.integer("number_of_athletes").unsigned().nullable().comment("athletes the coach is recruiting for, 0 to 50");
    t.string("areas_of_interest", 300).notNullable().comment("comma-separated weight classes, empty when none was chosen");
    t.text("notes").nullable();
    t.string("logo_file", 80).nullable().comment("random file name under UPLOAD_DIR/coach-logos; never served by the site");
    t.string("logo_content_type", 20).nullable().comment("image/jpeg, image/png or image/gif, from the file's content");
    t.integer("logo_bytes").unsigned().nullable();
    t.dateTime("created_at").notNullable();
    t.index(["event_id", "created_at"], "coach_requests_event_created");
  });

  await knex.schema.createTable("coach_request_days", (t) => {
    t.increments("id").primary();
    t.integer("coach_request_id").unsigned().notNullable().references("id").inTable("coach_requests").onDelete("CASCADE");
    t.integer("event_day_id").unsigned().notNullable().references("id").inTable("event_days").onDelete("RESTRICT");
    t.unique(["coach_request_id", "event_day_id"], { indexName: "coach_request_days_request_day" });
  });

  await knex.raw(`create view coach_request_list as ${listQuery(knex.client.config.client === "mysql2")}`);
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

function listQuery(mysql: boolean): string {
  const days = mysql
    ? `group_concat(${dayInWords(true)} order by d.day_date separator '; ')`
    : `group_concat(${dayInWords(false)}, '; ' order by d.day_date)`;
  return `
    select
      r.id,
      r.created_at,
      r.event_id,
      e.title as event_title,
      (select ${days} from coach_request_days rd join event_days d on d.id = rd.event_day_id where rd.coach_request_id = r.id) as days_attending,
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

export async function down(knex: Knex): Promise<void> {
  await knex.raw("drop view if exists coach_request_list");
  await knex.schema.dropTable("coach_request_days");
  await knex.schema.dropTable("coach_requests");
  await knex.schema.alterTable("events", (t) => {
    t.dropColumn("coach_registration");
  });
}
