/**
 * The services' side of a test: a fresh MySQL database (empty, or already migrated), and removing a Redis key prefix.
 * Kept apart from app.ts so a script that starts app processes (test:cluster) does not load the whole app to get them.
 */
import { createHash, randomBytes } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import knexFactory, { type Knex } from "knex";
import type { Redis } from "../../src/redis.ts";
import { createDb, migrateLatest, migrationsDirectory } from "../../src/db/knex.ts";

const serverUrl = () => new URL(process.env.TEST_DATABASE_URL!);
const admin = (url = serverUrl().toString()): Knex =>
  knexFactory({ client: "mysql2", connection: { uri: url, multipleStatements: false } as never, pool: { min: 0, max: 1 } });
const databaseUrl = (name: string) => {
  const url = serverUrl();
  url.pathname = `/${name}`;
  return url.toString();
};

/** A fresh, empty MySQL database on the TEST_DATABASE_URL server; dropped by the returned function. */
export async function createMysqlDatabase(): Promise<{ url: string; drop: () => Promise<void> }> {
  const name = `t_${Date.now().toString(36)}_${randomBytes(4).toString("hex")}`;
  const a = admin();
  await a.raw(`create database \`${name}\` character set utf8mb4 collate utf8mb4_unicode_ci`);
  await a.destroy();
  return {
    url: databaseUrl(name),
    drop: async () => {
      const d = admin();
      await d.raw(`drop database if exists \`${name}\``);
      await d.destroy();
    },
  };
}

/**
 * A fresh MySQL database with every migration run, as `migrateLatest` leaves it. Running the migrations takes
 * seconds on MySQL (each ALTER rebuilds a table), once per test app; instead they run once into a template
 * database named after the migrations' contents (kept for the next run, shared by parallel test processes), and each
 * test database is a copy of it: its tables (SHOW CREATE TABLE, keys and AUTO_INCREMENT included), rows and views.
 */
export async function createMigratedMysqlDatabase(): Promise<{ url: string; drop: () => Promise<void> }> {
  const template = await migratedTemplate();
  const created = await createMysqlDatabase();
  const a = admin(created.url);
  try {
    await a.transaction(async (trx) => {
      await trx.raw("set foreign_key_checks = 0");
      const objects = (await trx.raw(`show full tables from \`${template}\``))[0] as Record<string, string>[];
      const tables = objects.filter((o) => Object.values(o)[1] === "BASE TABLE" && Object.values(o)[0] !== COMPLETE).map((o) => Object.values(o)[0]!);
      const views = objects.filter((o) => Object.values(o)[1] === "VIEW").map((o) => Object.values(o)[0]!);
      for (const table of tables) {
        const [[row]] = (await trx.raw(`show create table \`${template}\`.\`${table}\``)) as [Record<string, string>[]];
        await trx.raw(row!["Create Table"]!);
        await trx.raw(`insert into \`${table}\` select * from \`${template}\`.\`${table}\``);
      }
      // A view may read another: create them in the order the template's dependencies allow.
      let pending = views;
      while (pending.length) {
        const failed: string[] = [];
        for (const view of pending) {
          const [[row]] = (await trx.raw(`show create view \`${template}\`.\`${view}\``)) as [Record<string, string>[]];
          const sql = row!["Create View"]!.replace(/^CREATE .*?VIEW/, "CREATE VIEW").replaceAll(`\`${template}\`.`, "");
          await trx.raw(sql).catch(() => failed.push(view));
        }
        if (failed.length === pending.length) throw new Error(`could not copy the views ${failed.join(", ")} of ${template}`);
        pending = failed;
      }
      // Stored procedures (admit_places: migrations/20261202000200_admit_places.ts), without the template's definer.
      const procedures = (await trx.raw(`show procedure status where Db = ?`, [template]))[0] as { Name: string }[];
      for (const { Name } of procedures) {
        const [[row]] = (await trx.raw(`show create procedure \`${template}\`.\`${Name}\``)) as [Record<string, string>[]];
        await trx.raw(row!["Create Procedure"]!.replace(/^CREATE .*?PROCEDURE/, "CREATE PROCEDURE"));
      }
      await trx.raw("set foreign_key_checks = 1");
    });
  } catch (err) {
    await a.destroy();
    await created.drop();
    throw err;
  }
  await a.destroy();
  return created;
}

/** The template's name: the migrations' names and contents, hashed. */
function templateName(): string {
  const hash = createHash("sha256");
  for (const file of fs.readdirSync(migrationsDirectory).sort()) hash.update(file).update(fs.readFileSync(path.join(migrationsDirectory, file)));
  return `tmpl_${hash.digest("hex").slice(0, 16)}`;
}

/** A table of the template only, made last: its presence says the template is whole. */
const COMPLETE = "template_complete";
let templateReady: Promise<string> | undefined;

/** Makes the template once per migrations' state; a lock keeps parallel test processes from making it twice. */
function migratedTemplate(): Promise<string> {
  templateReady ??= (async () => {
    const name = templateName();
    const a = admin();
    try {
      await a.transaction(async (trx) => {
        const [[lock]] = (await trx.raw("select get_lock(?, 600) as got", [name])) as [{ got: number }[]];
        if (lock?.got !== 1) throw new Error(`could not lock the test template ${name}`);
        try {
          const [done] = (await trx.raw("select 1 from information_schema.tables where table_schema = ? and table_name = ?", [name, COMPLETE])) as [unknown[]];
          if (done.length) return;
          await trx.raw(`drop database if exists \`${name}\``);
          await trx.raw(`create database \`${name}\` character set utf8mb4 collate utf8mb4_unicode_ci`);
          const db = createDb({ client: "mysql2", url: databaseUrl(name) });
          try {
            await migrateLatest(db);
          } finally {
            await db.destroy();
          }
          await trx.raw(`create table \`${name}\`.\`${COMPLETE}\` (id int primary key)`);
        } finally {
          await trx.raw("select release_lock(?)", [name]);
        }
      });
    } finally {
      await a.destroy();
    }
    return name;
  })();
  return templateReady;
}

/** Deletes every Redis key under a test prefix. */
export async function clearPrefix(redis: Redis, prefix: string): Promise<void> {
  for await (const keys of redis.scanIterator({ MATCH: `${prefix}*`, COUNT: 500 })) {
    if (keys.length) await redis.del(keys);
  }
}
