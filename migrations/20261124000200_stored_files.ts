import type { Knex } from "knex";

/**
 * Uploaded files (college coaches' school logos) in the database, where every app instance reads them, instead of
 * the local disk of whichever instance took the upload. Never served by the site: read by the outbox to attach a
 * logo to the brand's e-mail, and by the operator. `coach_requests.logo_file` names a row here by `name`.
 */
export async function up(knex: Knex): Promise<void> {
  const mysql = knex.client.config.client === "mysql2";
  await knex.schema.createTable("stored_files", (t) => {
    t.increments("id").primary();
    t.string("name", 64).notNullable().unique().comment("random name, e.g. 32 hex digits and the type's extension");
    t.string("content_type", 40).notNullable().comment("checked from the content, never taken from the upload");
    t.integer("bytes").unsigned().notNullable();
    // 5 MB logos: MySQL's BLOB stops at 64 kB, MEDIUMBLOB at 16 MB.
    if (mysql) t.specificType("content", "mediumblob").notNullable();
    else t.binary("content").notNullable();
    t.dateTime("created_at").notNullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable("stored_files");
}
