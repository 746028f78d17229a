// A package code in the database that src/shared/registrations/packages.ts does not know is an error: the start is
// refused naming the event and the code, and a read of that event fails instead of leaving the package out.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { testConfig } from "../support/app.ts";
import { spawnNodeScript } from "../support/children.ts";
import { createDb, migrateLatest, type Db } from "../../src/db/knex.ts";
import { createLogger } from "../../src/logger.ts";
import { checkPackageCodes, findEvent } from "../../src/events/repository.ts";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const dir = fs.mkdtempSync(path.join(os.tmpdir(), "packages-"));
let db: Db;
let env: Record<string, string>;
let cleanup: () => Promise<void>;

beforeAll(async () => {
  const file = path.join(dir, "site.sqlite");
  const made = await testConfig({ SQLITE_PATH: file });
  cleanup = made.cleanup;
  db = createDb(made.config.database, createLogger("silent"));
  await migrateLatest(db, { logger: createLogger("silent"), lockWaitMs: 60_000 });
  const database = made.config.database;
  env = database.client === "better-sqlite3" ? { SQLITE_PATH: file } : { DATABASE_URL: database.url, REDIS_URL: made.config.redis!.url, REDIS_PREFIX: made.config.redis!.prefix };
});
afterAll(async () => {
  await db?.destroy();
  await cleanup?.();
  fs.rmSync(dir, { recursive: true, force: true });
});

/** src/server.ts run until it exits: its exit code and its JSON log lines. */
function startToExit(extra: Record<string, string>): Promise<{ code: number | null; lines: Record<string, unknown>[] }> {
  const child = spawnNodeScript("src/server.ts", [], {
    cwd: root,
    env: { ...process.env, NODE_ENV: "test", PORT: "0", HOST: "127.0.0.1", MAIL_DIR: path.join(dir, "mail"), ...extra },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout!.on("data", (c: Buffer) => (output += c.toString()));
  child.stderr!.on("data", (c: Buffer) => (output += c.toString()));
  return new Promise((resolve) => {
    child.once("exit", (code) => resolve({ code, lines: output.split("\n").filter((l) => l.trim().startsWith("{")).map((l) => JSON.parse(l) as Record<string, unknown>) }));
  });
}

describe("package codes in the database", () => {
  it("are all known in the reference data", async () => {
    await expect(checkPackageCodes(db)).resolves.toBeUndefined();
  });

  it("an unknown code refuses the start, naming the event and the code; a read of the event fails, never drops it", async () => {
    const [event] = await db("events").where({ id: 2 }).select("id", "title");
    expect(event).toBeDefined();
    await db("event_packages").insert({ event_id: 2, code: "3day", label: "3 Days", price_cents: 25000, day_count: 3, sort_order: 9 });

    await expect(checkPackageCodes(db)).rejects.toThrow(`event 2 (${String(event.title)}) offers package code "3day"`);
    await expect(findEvent(db, 2)).rejects.toThrow('offers package code "3day"');

    const run = await startToExit(env);
    expect(run.code).toBe(1);
    const fatal = run.lines.filter((l) => l.level === 60);
    expect(fatal).toEqual([expect.objectContaining({ step: "events" })]);
    expect(String(fatal[0]!.reason)).toContain(`event 2 (${String(event.title)}) offers package code "3day", which is no package`);
  });
});
