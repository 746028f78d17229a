import type { Knex } from "knex";

/** Events and everything their pages, APIs and payment amounts read: one source of truth an operator can edit. */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable("events", (t) => {
    t.increments("id").primary();
    t.string("title", 160).notNullable();
    t.string("short_description", 400).notNullable().comment("one or two sentences for cards and meta descriptions");
    t.text("description").notNullable().comment("the About section; blank lines separate paragraphs");
    t.string("category", 40).notNullable().comment("badge text: Camp, Clinic, Tour");
    t.string("date_text", 80).notNullable().comment("dates as shown to visitors, e.g. June 5-7, 2025");
    t.date("start_date").notNullable();
    t.date("end_date").notNullable();
    t.string("time_text", 80).notNullable().comment("daily hours as shown, e.g. 9:00 AM - 4:00 PM");
    t.string("location", 160).notNullable();
    t.string("image", 300).notNullable().comment("picture path under public/, e.g. /images/events/champ-camp.svg");
    t.string("card_overlay", 160).nullable().comment("optional line printed over the card picture on /events");
    t.text("features_json").notNullable().comment("What's Included: a JSON array of strings");
    t.integer("capacity").unsigned().notNullable().defaultTo(200).comment("wrestlers; paid and held places count against it");
    t.string("age_group", 100).notNullable();
    t.boolean("listed").notNullable().defaultTo(true).comment("shown on /events; an unlisted event is reachable by its link only");
    t.dateTime("registration_closes_at").nullable().comment("null = open until full");
    t.integer("team_price_cents").unsigned().notNullable().comment("team registration price per athlete");
    t.integer("original_price_cents").unsigned().nullable().comment("struck-through promo price; SAVE = original minus full package price");
    t.dateTime("created_at").notNullable();
    t.dateTime("updated_at").notNullable();
  });

  await knex.schema.createTable("event_packages", (t) => {
    t.increments("id").primary();
    t.integer("event_id").unsigned().notNullable().references("id").inTable("events").onDelete("CASCADE");
    t.string("code", 20).notNullable().comment("full, 1day, 2day or singleDay");
    t.string("label", 80).notNullable();
    t.integer("price_cents").unsigned().notNullable().comment("individual price; the full package is also the regular price per athlete");
    t.integer("day_count").unsigned().notNullable().comment("how many days the athlete chooses (full = every day)");
    t.integer("sort_order").notNullable().defaultTo(0);
    t.unique(["event_id", "code"], { indexName: "event_packages_event_code" });
  });

  await knex.schema.createTable("event_days", (t) => {
    t.increments("id").primary();
    t.integer("event_id").unsigned().notNullable().references("id").inTable("events").onDelete("CASCADE");
    t.date("day_date").notNullable();
    t.string("label", 80).notNullable().comment("as shown on the day choice, e.g. Thursday, June 5");
    t.integer("sort_order").notNullable().defaultTo(0);
    t.index(["event_id", "sort_order"], "event_days_event_order");
  });

  await knex.schema.createTable("event_coaches", (t) => {
    t.increments("id").primary();
    t.integer("event_id").unsigned().notNullable().references("id").inTable("events").onDelete("CASCADE");
    t.string("name", 120).notNullable();
    t.string("title", 160).notNullable();
    t.text("bio").notNullable();
    t.string("image", 300).notNullable();
    t.integer("sort_order").notNullable().defaultTo(0);
    t.index(["event_id", "sort_order"], "event_coaches_event_order");
  });

  await knex.schema.createTable("event_college_logos", (t) => {
    t.increments("id").primary();
    t.integer("event_id").unsigned().notNullable().references("id").inTable("events").onDelete("CASCADE");
    t.string("name", 120).notNullable().comment("college name, used as the logo's alt text");
    t.string("image", 300).notNullable();
    t.integer("sort_order").notNullable().defaultTo(0);
    t.index(["event_id", "sort_order"], "event_college_logos_event_order");
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable("event_college_logos");
  await knex.schema.dropTable("event_coaches");
  await knex.schema.dropTable("event_days");
  await knex.schema.dropTable("event_packages");
  await knex.schema.dropTable("events");
}
