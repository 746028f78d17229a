// The operators' commands as an operator runs them, through npm: each one's --help prints its usage and exits 0, and
// they run compiled (build/cli, made by src/cli/run.mjs when a source is newer), not through tsx each time.
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { backend } from "../support/app.ts";
import { spawnTracked } from "../support/children.ts";
import { UNMIGRATED } from "../../src/cli/operatorContext.ts";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const scripts = (JSON.parse(fs.readFileSync(path.join(root, "package.json"), "utf8")) as { scripts: Record<string, string> }).scripts;
const commands = Object.entries(scripts)
  .filter(([, line]) => /^node src\/cli\/run\.mjs \w+$/.test(line))
  .map(([name]) => name);

function npmRun(args: string[]): Promise<{ code: number | null; out: string }> {
  const child = spawnTracked("npm", ["run", "-s", ...args], { cwd: root, env: { ...process.env, SQLITE_PATH: ":memory:" }, stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  child.stdout!.on("data", (c: Buffer) => (out += c.toString()));
  child.stderr!.on("data", (c: Buffer) => (out += c.toString()));
  return new Promise((resolve) => child.once("exit", (code) => resolve({ code, out })));
}

describe.runIf(backend === "sqlite")("the operators' commands through npm run", () => {
  it("are every command file of src/cli", () => {
    expect(commands.sort()).toEqual(["capacity", "clock", "discount", "erase", "events", "export", "migrate", "payments", "refund", "resend", "retention"].filter((c) => fs.existsSync(path.join(root, `src/cli/${c}.ts`))));
  });

  it.each(commands)("npm run %s -- --help prints its usage and exits 0", async (command) => {
    const run = await npmRun([command, "--", "--help"]);
    expect(run.out).toMatch(/usage|npm run/i);
    expect(run.code, run.out).toBe(0);
  });

  it("on a database never migrated, say to migrate first in one line, and change nothing", async () => {
    const run = await npmRun(["events", "--", "list"]);
    expect(run.out.trim()).toBe(UNMIGRATED);
    expect(run.code).toBe(1);
  });

  it("run compiled: the build holds every command", () => {
    const built = JSON.parse(fs.readFileSync(path.join(root, "build/cli/built.json"), "utf8")) as { commands: string[] };
    expect(built.commands.sort()).toEqual([...commands].sort());
    for (const command of commands) expect(fs.existsSync(path.join(root, `build/cli/${command}.mjs`))).toBe(true);
  });

  it("a new build leaves the one a running command loads its chunks from in place", async () => {
    expect((await npmRun(["build:cli"])).code).toBe(0);
    const earlier = fs.realpathSync(path.join(root, "build/cli"));
    const chunks = fs.readdirSync(earlier).filter((f) => f.startsWith("chunk-"));
    expect(chunks.length).toBeGreaterThan(0);
    expect((await npmRun(["build:cli"])).code).toBe(0);
    expect(fs.realpathSync(path.join(root, "build/cli"))).not.toBe(earlier);
    for (const chunk of chunks) expect(fs.existsSync(path.join(earlier, chunk))).toBe(true);
  });
});
