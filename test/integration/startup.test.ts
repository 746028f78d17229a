import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import knexFactory from "knex";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { backend, createMysqlDatabase } from "../support/app.ts";
import { spawnServer, startServer, type RunningServer, type StartingServer } from "../support/server.ts";
import { spawnNodeBuilt, spawnNodeScript, spawnTracked } from "../support/children.ts";
import { MYSQL_MIGRATION_LOCK } from "../../src/db/knex.ts";
import { scaledMs } from "../support/timeouts.ts";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const migrationFiles = fs.readdirSync(path.join(root, "migrations")).filter((f) => f.endsWith(".ts"));
const dir = fs.mkdtempSync(path.join(os.tmpdir(), "startup-"));
// The server as `npm start` runs it: built once by esbuild.server.mjs (inside the checkout, so the bundle's
// dependencies resolve from node_modules) and started by plain node. Through tsx, each of this file's dozen starts
// compiled the server's whole import graph again: seconds of CPU apiece, and what they prove is the start, not the loading.
const built = path.join(root, "build", `test-startup.${process.pid}`, "server.js");
const servers: RunningServer[] = [];
const cleanups: (() => Promise<void>)[] = [];
beforeAll(async () => {
  const build = spawnTracked(process.execPath, ["esbuild.server.mjs", "--outfile", built], { cwd: root, stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  build.stdout!.on("data", (c: Buffer) => (output += c.toString()));
  build.stderr!.on("data", (c: Buffer) => (output += c.toString()));
  const code = await new Promise<number | null>((resolve) => build.once("exit", resolve));
  expect(code, output).toBe(0);
});
afterAll(async () => {
  await Promise.all(servers.map((s) => s.stop("SIGKILL")));
  for (const c of cleanups) await c();
  fs.rmSync(dir, { recursive: true, force: true });
  fs.rmSync(path.dirname(built), { recursive: true, force: true });
});

/** Starts the built server and waits for its "listening" line. */
const startBuilt = (env: Record<string, string>) => startServer(env, { built });

/** Runs plain node on FILE ARGS until it exits; every line it printed, parsed as JSON (a stack trace would not parse). */
function runToExit(file: string, env: Record<string, string>, args: string[] = []): Promise<{ code: number | null; lines: Record<string, unknown>[]; output: string }> {
  const child = spawnNodeBuilt(file, args, {
    cwd: root,
    env: { ...process.env, NODE_ENV: "test", PORT: "0", HOST: "127.0.0.1", MAIL_DIR: path.join(dir, "mail"), ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout!.on("data", (c: Buffer) => (output += c.toString()));
  child.stderr!.on("data", (c: Buffer) => (output += c.toString()));
  return new Promise((resolve) => {
    child.once("exit", (code) => {
      const lines = output.split("\n").filter((l) => l.trim() !== "").map((l) => JSON.parse(l) as Record<string, unknown>);
      resolve({ code, lines, output });
    });
  });
}

/** The built server, started until it exits. */
const runServer = (env: Record<string, string>) => runToExit(built, env);
/** `npm run migrate -- ARGS` as the npm script runs it (src/cli/run.mjs: the command compiled once, then plain node). */
const runMigrate = (env: Record<string, string>, args: string[] = []) => runToExit(path.join(root, "src/cli/run.mjs"), env, ["migrate", ...args]);

/** `npm run knex -- ARGS`: knex's own CLI, as an admin runs it. */
function runKnexCli(args: string[], env: Record<string, string>): Promise<{ code: number | null; output: string }> {
  const child = spawnNodeScript("node_modules/knex/bin/cli.js", args, { cwd: root, env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  child.stdout!.on("data", (c: Buffer) => (output += c.toString()));
  child.stderr!.on("data", (c: Buffer) => (output += c.toString()));
  return new Promise((resolve) => child.once("exit", (code) => resolve({ code, output })));
}

function fatalLines(lines: Record<string, unknown>[]): Record<string, unknown>[] {
  return lines.filter((l) => l.level === 60);
}

describe("a start that fails says why in one JSON line", () => {
  it("an unreachable database: exit 1, one fatal line naming the step and the reason, no stack", async () => {
    const run = await runServer({ DATABASE_URL: "mysql://root@127.0.0.1:1/nothing" });
    expect(run.code).toBe(1);
    const [fatal, ...more] = fatalLines(run.lines);
    expect(more).toEqual([]);
    expect(fatal).toMatchObject({ step: "database", code: "ECONNREFUSED" });
    expect(String(fatal!.reason)).toContain("ECONNREFUSED");
    expect(run.output).not.toMatch(/\n\s+at /);
  });

  it("a bad setting: exit 1, one JSON line naming it", async () => {
    const run = await runServer({ PORT: "not-a-port", SQLITE_PATH: ":memory:" });
    expect(run.code).toBe(1);
    expect(run.lines).toHaveLength(1);
    expect(run.lines[0]).toMatchObject({ level: 60, step: "configuration" });
    expect(String(run.lines[0]!.reason)).toContain("PORT");
  });

  it("a port already taken: exit 1, step listen, EADDRINUSE", async () => {
    const first = await startBuilt({ SQLITE_PATH: path.join(dir, "port.sqlite3") });
    servers.push(first);
    const port = new URL(first.url).port;
    const run = await runServer({ PORT: port, SQLITE_PATH: path.join(dir, "port.sqlite3") });
    expect(run.code).toBe(1);
    expect(fatalLines(run.lines)).toEqual([expect.objectContaining({ step: "listen", code: "EADDRINUSE" })]);
  });
});

describe("npm run migrate", () => {
  it("runs every migration once, then finds nothing to run; refuses an argument with one line", async () => {
    const env: Record<string, string> = { SQLITE_PATH: path.join(dir, "migrate.sqlite3") };
    if (backend === "mysql") {
      const created = await createMysqlDatabase();
      cleanups.push(created.drop);
      env.DATABASE_URL = created.url;
    }
    const first = await runMigrate(env);
    expect(first.code).toBe(0);
    expect(first.lines.at(-1)).toMatchObject({ ran: migrationFiles.length, msg: `ran ${migrationFiles.length} migration(s)` });
    // Once migrated, the other three only read the database (or not at all): they run at once.
    // The knex CLI reads knexfile.ts: the same database, every migration found done.
    const [second, bad, status] = await Promise.all([runMigrate(env), runMigrate(env, ["--force"]), runKnexCli(["migrate:status"], env)]);
    expect(second.code).toBe(0);
    expect(second.lines.at(-1)).toMatchObject({ ran: 0, msg: "the database is up to date" });
    expect(bad.code).toBe(1);
    expect(bad.lines).toEqual([expect.objectContaining({ level: 60, reason: "unknown argument --force" })]);
    expect(status.output).toContain("No Pending Migration files Found.");
    expect(status.output).toContain(`Found ${migrationFiles.length} Completed Migration file/files.`);
    expect(status.code).toBe(0);
  });

  it("needs DATABASE_URL alone in production (no Stripe keys, SESSION_SECRET, PUBLIC_URL or SMTP)", async () => {
    const env: Record<string, string> = { NODE_ENV: "production", SQLITE_PATH: path.join(dir, "alone.sqlite3") };
    const refused = await runMigrate(env);
    expect(refused.code).toBe(1);
    expect(refused.lines).toEqual([expect.objectContaining({ level: 60, step: "configuration", reason: "Production needs: DATABASE_URL (mysql://...)" })]);
    if (backend !== "mysql") return;
    const created = await createMysqlDatabase();
    cleanups.push(created.drop);
    const run = await runMigrate({ NODE_ENV: "production", DATABASE_URL: created.url });
    expect(run.code).toBe(0);
    expect(run.lines.at(-1)).toMatchObject({ ran: migrationFiles.length });
  });
});

describe.runIf(backend === "mysql")("several instances starting on one MySQL database", () => {
  async function emptyDatabase(): Promise<string> {
    const created = await createMysqlDatabase();
    cleanups.push(created.drop);
    return created.url;
  }

  async function holdMigrationLock(url: string) {
    const conn = knexFactory({ client: "mysql2", connection: { uri: url } as never, pool: { min: 1, max: 1 } });
    const [[held]] = (await conn.raw(`SELECT GET_LOCK(${MYSQL_MIGRATION_LOCK}, 0) AS got`)) as [{ got: number }[]];
    expect(held?.got, "this test holds the database's migration lock").toBe(1);
    return {
      release: async () => {
        await conn.raw(`SELECT RELEASE_LOCK(${MYSQL_MIGRATION_LOCK})`);
        await conn.destroy();
      },
    };
  }

  it("two processes started at once on an empty database both become ready; every migration ran once", async () => {
    const url = await emptyDatabase();
    const started = await Promise.all([startBuilt({ DATABASE_URL: url }), startBuilt({ DATABASE_URL: url })]);
    servers.push(...started);
    for (const s of started) {
      const ready = await fetch(`${s.url}/readyz`);
      expect(ready.status).toBe(200);
      expect(s.output()).not.toContain("start failed");
    }
    const db = knexFactory({ client: "mysql2", connection: { uri: url } as never, pool: { min: 0, max: 1 } });
    const rows = await db<{ name: string }>("knex_migrations").select("name");
    await db.destroy();
    expect(rows.map((r) => r.name).sort()).toEqual([...migrationFiles].sort());
  });

  it("a start that finds another migrating logs one line, waits, and starts once the lock is released", async () => {
    const url = await emptyDatabase();
    const lock = await holdMigrationLock(url);
    const starting = spawnServer({ DATABASE_URL: url }, { built });
    await waitForOutput(starting, "waiting for it to finish");
    await new Promise((r) => setTimeout(r, 1000));
    expect(starting.child.exitCode).toBeNull();
    expect(starting.output()).not.toContain("listening on");
    await lock.release();
    const server = await starting.listening;
    servers.push(server);
    expect((await fetch(`${server.url}/readyz`)).status).toBe(200);
    const waitLines = server.output().split("\n").filter((l) => l.includes("waiting for it to finish"));
    expect(waitLines).toHaveLength(1);
    expect(JSON.parse(waitLines[0]!)).toMatchObject({ level: 30, waitSeconds: 120 });
  });

  it("gives up after MIGRATION_LOCK_WAIT_MS with one fatal line", async () => {
    const url = await emptyDatabase();
    const lock = await holdMigrationLock(url);
    try {
      const run = await runServer({ DATABASE_URL: url, MIGRATION_LOCK_WAIT_MS: "1500" });
      expect(run.code).toBe(1);
      expect(fatalLines(run.lines)).toEqual([expect.objectContaining({ step: "database" })]);
      expect(String(fatalLines(run.lines)[0]!.reason)).toContain("not released within 2 s");
    } finally {
      await lock.release();
    }
  });
});

async function waitForOutput(starting: StartingServer, text: string): Promise<void> {
  const guard = Date.now() + scaledMs(120_000);
  while (Date.now() < guard && starting.child.exitCode === null) {
    if (starting.output().includes(text)) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`no "${text}" in the output:\n${starting.output()}`);
}
