/**
 * The services' side of a test: a fresh MySQL database, and removing a Redis key prefix. Kept apart from app.ts so a
 * script that starts app processes (test:cluster) does not load the whole app to get them.
 */
import { randomBytes } from "node:crypto";
import knexFactory from "knex";
import type { Redis } from "../../src/redis.ts";

/** A fresh MySQL database on the TEST_DATABASE_URL server; dropped by the returned function. */
export async function createMysqlDatabase(): Promise<{ url: string; drop: () => Promise<void> }> {
  const serverUrl = new URL(process.env.TEST_DATABASE_URL!);
  const name = `t_${Date.now().toString(36)}_${randomBytes(4).toString("hex")}`;
  const admin = knexFactory({ client: "mysql2", connection: { uri: serverUrl.toString() } as never, pool: { min: 0, max: 1 } });
  await admin.raw(`create database \`${name}\` character set utf8mb4 collate utf8mb4_unicode_ci`);
  await admin.destroy();
  const url = new URL(serverUrl.toString());
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      const a = knexFactory({ client: "mysql2", connection: { uri: serverUrl.toString() } as never, pool: { min: 0, max: 1 } });
      await a.raw(`drop database if exists \`${name}\``);
      await a.destroy();
    },
  };
}

/** Deletes every Redis key under a test prefix. */
export async function clearPrefix(redis: Redis, prefix: string): Promise<void> {
  for await (const keys of redis.scanIterator({ MATCH: `${prefix}*`, COUNT: 500 })) {
    if (keys.length) await redis.del(keys);
  }
}
