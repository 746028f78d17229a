import type { Knex } from "knex";

/** Whether `conn` (the Db or a transaction) talks to MySQL rather than SQLite. */
export const isMysql = (conn: { client: unknown }): boolean => (conn.client as Knex.Client).config.client === "mysql2";
