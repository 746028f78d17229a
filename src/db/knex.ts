import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import knexFactory, { type Knex } from "knex";
import type { Config } from "../config.ts";
import type { Logger } from "../logger.ts";
import { trackTransactionStatements } from "./locks.ts";

export type Db = Knex;

export const migrationsDirectory = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../migrations");

/** Knex options for either database; kept in one place so the app, the CLI and the tests agree. */
export function knexOptions(database: Config["database"]): Knex.Config {
  const migrations: Knex.MigratorConfig = {
    directory: migrationsDirectory,
    loadExtensions: [".ts"],
    tableName: "knex_migrations",
  };
  if (database.client === "mysql2") {
    return {
      client: "mysql2",
      // knex would otherwise copy the bound values (e-mail addresses, names) into error messages, and so into logs.
      compileSqlOnError: false,
      connection: { uri: database.url, connectTimeout: 2000, dateStrings: false, timezone: "Z", charset: "utf8mb4" } as Knex.MySql2ConnectionConfig,
      pool: { min: 0, max: 10 },
      // A stopped MySQL must answer within 2 s instead of holding requests.
      acquireConnectionTimeout: 2000,
      migrations,
    };
  }
  if (database.filename !== ":memory:") fs.mkdirSync(path.dirname(database.filename), { recursive: true });
  return {
    client: "better-sqlite3",
    compileSqlOnError: false,
    connection: { filename: database.filename },
    useNullAsDefault: true,
    pool: {
      min: 1,
      max: 1,
      afterCreate: (conn: { pragma: (s: string) => void }, done: (err: Error | null, conn: unknown) => void) => {
        conn.pragma("foreign_keys = ON");
        conn.pragma("journal_mode = WAL");
        conn.pragma("busy_timeout = 2000");
        done(null, conn);
      },
    },
    acquireConnectionTimeout: 2000,
    migrations,
  };
}

/** knex logs connection trouble itself; send it to our logger instead of the console. */
export function createDb(database: Config["database"], logger?: Logger): Db {
  const log = logger
    ? {
        warn: (m: unknown) => logger.warn({ knex: String(m) }, "database warning"),
        error: (m: unknown) => logger.error({ knex: String(m) }, "database error"),
        deprecate: (m: unknown) => logger.debug({ knex: String(m) }, "database deprecation"),
        debug: (m: unknown) => logger.debug({ knex: m }, "database debug"),
      }
    : undefined;
  const db = knexFactory({ ...knexOptions(database), ...(log ? { log } : {}) });
  trackTransactionStatements(db);
  return db;
}

export async function migrateLatest(db: Db): Promise<void> {
  await db.migrate.latest();
}
