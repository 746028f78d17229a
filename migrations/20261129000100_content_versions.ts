import type { Knex } from "knex";

/**
 * A version number per kind of content that app instances keep in memory: a change made elsewhere (an operator's
 * command, another instance) bumps it in the change's own transaction, and each instance compares it before serving
 * what it kept, so every instance shows the change on its next request (src/events/version.ts).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable("content_versions", (t) => {
    t.string("name", 40).primary().comment("what the version covers: events (the events tables)");
    t.bigInteger("version").notNullable().defaultTo(0).comment("bumped by each change of that content");
  });
  await knex("content_versions").insert({ name: "events", version: 0 });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable("content_versions");
}
