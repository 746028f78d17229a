import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { chromium, type BrowserServer } from "playwright-core";
import type { TestProject } from "vitest/node";
import { CHROMIUM_FLAGS, chromiumPath } from "../support/chromium.ts";
import { startServer, type RunningServer } from "../support/server.ts";

declare module "vitest" {
  export interface ProvidedContext {
    baseUrl: string;
    sqlitePath: string;
    mailDir: string;
    /** The run's one Chromium (test/support/browser.ts launchBrowser connects to it); empty outside the journeys. */
    browserWsEndpoint: string;
  }
}

let server: RunningServer | undefined;
let browserServer: BrowserServer | undefined;
let dir = "";

const root = path.resolve(import.meta.dirname, "../..");

/**
 * The journeys need a build that holds the test-only islands (widgets/testIslands), which `npm run build` leaves
 * out. `npm test` and `npm run test:e2e` make it first (`npm run build:test`); after a production build, it is
 * made here.
 */
function ensureTestBuild(): void {
  const manifestFile = path.join(root, "public/build/manifest.json");
  const built = fs.existsSync(manifestFile) ? Object.keys((JSON.parse(fs.readFileSync(manifestFile, "utf8")) as { widgets: object }).widgets) : [];
  const testIslands = fs.readdirSync(path.join(root, "widgets/testIslands")).map((f) => f.replace(/\.tsx$/, ""));
  if (testIslands.every((name) => built.includes(name))) return;
  execFileSync(process.execPath, ["esbuild.config.mjs"], { cwd: root, env: { ...process.env, TEST_ISLANDS: "1" }, stdio: "inherit" });
}

/**
 * One server for the e2e run, on its own SQLite file and mail folder, in offline Stripe test mode, and one Chromium
 * that every file connects to (each file opens its own contexts). Chromium is this process's child on a pipe: it
 * ends with this process however that ends (teardown, a signal, SIGKILL), so none outlives the run.
 */
export async function setup(project: TestProject): Promise<void> {
  ensureTestBuild();
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "e2e-"));
  const sqlitePath = path.join(dir, "app.sqlite3");
  const mailDir = path.join(dir, "mail");
  const launching = chromium
    .launchServer({ executablePath: chromiumPath(), headless: true, args: CHROMIUM_FLAGS, host: "127.0.0.1" })
    .then((launched) => (browserServer = launched));
  // Every journey comes from one address (127.0.0.1), and many leave a hold unpaid (a page checked, a card declined):
  // the per-visitor cap on places held (60 by default, tested by the integration tests) would refuse the later files.
  // The waiting list's queue polls every 250 ms instead of 15 s: a journey that asks for an offer round from its own
  // database connection (no wake reaches the server) sees the offer without waiting for the production poll.
  server = await startServer({
    SQLITE_PATH: sqlitePath, MAIL_DIR: mailDir, ENABLE_TEST_ROUTES: "1", MAX_HELD_PLACES_PER_VISITOR: "10000", WAITING_LIST_JOB_INTERVAL_MS: "250",
  });
  const browser = await launching;
  project.provide("baseUrl", server.url);
  project.provide("sqlitePath", sqlitePath);
  project.provide("mailDir", mailDir);
  project.provide("browserWsEndpoint", browser.wsEndpoint());
}

export async function teardown(): Promise<void> {
  await Promise.all([server?.stop(), browserServer?.close()]);
  fs.rmSync(dir, { recursive: true, force: true });
}
