import type { Knex } from "knex";

/**
 * Each event keeps its own time zone (an IANA name such as America/Chicago): its closing time and the hold times
 * are shown in it, with the zone named, and registration closes at the start of its first day there. Each event
 * also keeps the athletes' age limits ('Ages 10+ through high school' is 10 to 19), which the team form checks.
 * The seeded events get the zone of their city; the Panther Train Tour travels around the brand's home, Alabama.
 */
const SEEDED_ZONES: Record<number, string> = {
  1: "America/Chicago", // Birmingham, AL
  2: "America/Los_Angeles", // Las Vegas, NV
  3: "America/Chicago", // Arlington, TX
  4: "America/Chicago", // Multiple locations around Birmingham, AL
};

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable("events", (t) => {
    t.string("time_zone", 64).notNullable().defaultTo("America/Chicago").comment("IANA time zone of the venue: times are shown in it, registration closes at the start of the first day there");
    t.integer("min_age").notNullable().defaultTo(10).comment("youngest athlete the event takes (team form)");
    t.integer("max_age").notNullable().defaultTo(19).comment("oldest athlete the event takes (team form); 19 = through high school");
  });
  for (const [id, zone] of Object.entries(SEEDED_ZONES)) {
    await knex("events").where({ id: Number(id) }).update({ time_zone: zone });
  }
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable("events", (t) => {
    t.dropColumns("time_zone", "min_age", "max_age");
  });
}
