import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import knexFactory, { type Knex } from "knex";
import type { Config } from "../config.ts";
import type { Logger } from "../logger.ts";
import { trackTransactionStatements } from "./locks.ts";
import { skipCommitsDoneInServer } from "./serverCommits.ts";
import { beginInServerWhenAsked } from "./serverBegins.ts";

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
      // maxPreparedStatements: mysql2 sizes each connection's statement cache up front (four arrays of 16,000 by
      // default: measured 3-4 ms of CPU and half a megabyte of garbage per connection, paid ~30 times in an opening's
      // first second as the pool fills); the app sends no prepared statements (knex uses query, not execute).
      connection: { uri: database.url, connectTimeout: 2000, dateStrings: false, timezone: "Z", charset: "utf8mb4", maxPreparedStatements: 64 },
      // Opening day: each event's holds and its payments' settlements queue apart in this process (src/db/rowQueue.ts),
      // so up to two connections per event wait for its row lock, while a crowd's pages and the holds' reads before
      // the queue need theirs within the 2 s below.
      pool: {
        min: 0,
        max: 30,
        // READ COMMITTED for every transaction, set once per connection: a locking transaction decides on rows read
        // after their locks (src/db/transaction.ts), and a SET TRANSACTION before each BEGIN was a round trip of its own.
        afterCreate: (conn: { query: (sql: string, done: (err: Error | null) => void) => void }, done: (err: Error | null, conn: unknown) => void) => {
          conn.query("SET SESSION TRANSACTION ISOLATION LEVEL READ COMMITTED", (err) => done(err, conn));
        },
      },
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
  if (database.client === "mysql2") {
    skipCommitsDoneInServer(db);
    beginInServerWhenAsked(db);
  }
  return db;
}

export interface MigrateOptions {
  /** Told once when another process holds the migration lock and this one waits for it. */
  logger?: Logger;
  /** How long to wait for another process's migration before giving up (MIGRATION_LOCK_WAIT_MS). */
  lockWaitMs?: number;
}

/** Thrown when another process kept the migration lock longer than the wait allows. */
export class MigrationLockTimeout extends Error {}

/**
 * GET_LOCK names are server-wide: the lock is named after the database, so migrations of other databases on the same
 * server (another site, parallel test databases) never wait for each other. 64 characters at most.
 */
export const MYSQL_MIGRATION_LOCK = "LEFT(CONCAT('ironside_migrations:', DATABASE()), 64)";

/**
 * Runs the pending migrations; returns the files it ran. Several instances may start at once on one database: on
 * MySQL a named lock (GET_LOCK) lets one migrate while the others wait, since knex's own lock row is created by the
 * first migration and two processes racing to create it fail instead of waiting. knex's lock (`knex_migrations_lock`)
 * is still respected: a migration run by another tool makes this one wait too.
 */
export async function migrateLatest(db: Db, options: MigrateOptions = {}): Promise<string[]> {
  const waitMs = options.lockWaitMs ?? 120_000;
  const deadline = Date.now() + waitMs;
  let told = false;
  const waiting = () => {
    if (told) return;
    told = true;
    options.logger?.info({ waitSeconds: Math.round(waitMs / 1000) }, "another instance is migrating the database: waiting for it to finish");
  };
  const timeout = () =>
    new MigrationLockTimeout(
      `the migration lock was not released within ${Math.round(waitMs / 1000)} s (MIGRATION_LOCK_WAIT_MS); if no migration is running, ` +
        "a previous one died holding it: UPDATE knex_migrations_lock SET is_locked = 0",
    );
  const latest = async (): Promise<string[]> => {
    for (;;) {
      try {
        const [, files] = (await db.migrate.latest()) as [number, string[]];
        return files;
      } catch (err) {
        if ((err as Error).name !== "MigrationLocked" || !/already locked/.test((err as Error).message)) throw err;
        if (Date.now() >= deadline) throw timeout();
        waiting();
        await new Promise((resolve) => setTimeout(resolve, 500));
      }
    }
  };
  if ((db.client as Knex.Client).config.client !== "mysql2") return latest();
  // GET_LOCK belongs to a connection: the transaction keeps one for the lock while the migrations use others.
  return db.transaction(async (holder) => {
    const tryLock = async (seconds: number) => {
      const [rows] = (await holder.raw(`SELECT GET_LOCK(${MYSQL_MIGRATION_LOCK}, ?) AS got`, [seconds])) as unknown as [{ got: number | null }[]];
      return rows[0]?.got === 1;
    };
    if (!(await tryLock(0))) {
      waiting();
      if (!(await tryLock(Math.max(1, Math.ceil((deadline - Date.now()) / 1000))))) throw timeout();
    }
    try {
      return await latest();
    } finally {
      await holder.raw(`SELECT RELEASE_LOCK(${MYSQL_MIGRATION_LOCK})`);
    }
  });
}
