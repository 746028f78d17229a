// `npm run clock` as a demo uses it: the offset written where every instance started from the same directory reads
// it, an instance following the file sees the moved time, and the command refuses production and live keys.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { backend } from "../support/app.ts";
import { spawnTracked } from "../support/children.ts";
import { followClockFile, now, stopFollowingClockFile } from "../../src/clock.ts";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const DAY = 86_400_000;

function clockCommand(cwd: string, args: string[], env: Record<string, string> = {}): Promise<{ code: number | null; out: string }> {
  // Run from another directory (the offset file is the working directory's var/clock.json): tsx is named by its path.
  const child = spawnTracked(process.execPath, ["--import", import.meta.resolve("tsx"), path.join(root, "src/cli/clock.ts"), ...args], { cwd, env: { ...process.env, NODE_ENV: "development", STRIPE_SECRET_KEY: "", ...env }, stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  child.stdout!.on("data", (c: Buffer) => (out += c.toString()));
  child.stderr!.on("data", (c: Buffer) => (out += c.toString()));
  return new Promise((resolve) => child.once("exit", (code) => resolve({ code, out })));
}

describe.runIf(backend === "sqlite")("npm run clock", () => {
  const dirs: string[] = [];
  const tempDir = () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "clock-"));
    dirs.push(dir);
    return dir;
  };
  afterEach(() => {
    stopFollowingClockFile();
    for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
  });

  it("forward 14d twice: the offset adds up in var/clock.json, and an instance following it sees 28 days ahead", async () => {
    const dir = tempDir();
    expect((await clockCommand(dir, ["forward", "14d"])).code).toBe(0);
    const second = await clockCommand(dir, ["forward", "14d"]);
    expect(second.code, second.out).toBe(0);
    expect(second.out).toMatch(/28 days 0 h 0 min ahead/);
    const file = path.join(dir, "var", "clock.json");
    expect((JSON.parse(fs.readFileSync(file, "utf8")) as { offsetMs: number }).offsetMs).toBe(28 * DAY);
    followClockFile(file);
    expect(now().getTime() - Date.now()).toBeGreaterThan(28 * DAY - 60_000);
    const reset = await clockCommand(dir, ["reset"]);
    expect(reset.code).toBe(0);
    expect((JSON.parse(fs.readFileSync(file, "utf8")) as { offsetMs: number }).offsetMs).toBe(0);
  });

  it("refuses production, live keys, a duration it cannot read, and writes nothing", async () => {
    const dir = tempDir();
    const production = await clockCommand(dir, ["forward", "14d"], { NODE_ENV: "production" });
    expect(production).toMatchObject({ code: 1 });
    expect(production.out).toMatch(/cannot be moved in production\. Nothing changed/);
    const live = await clockCommand(dir, ["forward", "14d"], { STRIPE_SECRET_KEY: "sk_live_x" });
    expect(live.out).toMatch(/live Stripe keys/);
    const bad = await clockCommand(dir, ["forward", "14 days"]);
    expect(bad).toMatchObject({ code: 1 });
    expect(bad.out).toMatch(/not a duration/);
    expect(fs.existsSync(path.join(dir, "var", "clock.json"))).toBe(false);
  });
});
