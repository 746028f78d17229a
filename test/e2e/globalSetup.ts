import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { TestProject } from "vitest/node";
import { startServer, type RunningServer } from "../support/server.ts";

declare module "vitest" {
  export interface ProvidedContext {
    baseUrl: string;
    sqlitePath: string;
    mailDir: string;
  }
}

let server: RunningServer | undefined;
let dir = "";

/** One server for the e2e run, on its own SQLite file and mail folder, in offline Stripe test mode. */
export async function setup(project: TestProject): Promise<void> {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "e2e-"));
  const sqlitePath = path.join(dir, "app.sqlite3");
  const mailDir = path.join(dir, "mail");
  server = await startServer({ SQLITE_PATH: sqlitePath, MAIL_DIR: mailDir, ENABLE_TEST_ROUTES: "1" });
  project.provide("baseUrl", server.url);
  project.provide("sqlitePath", sqlitePath);
  project.provide("mailDir", mailDir);
}

export async function teardown(): Promise<void> {
  await server?.stop();
  fs.rmSync(dir, { recursive: true, force: true });
}
