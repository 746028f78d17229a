// What a deployment writes into the checkout (the runbook's ironside.env and .env, TLS keys, the SQLite file, e-mail
// files) must stay out of a commit made with `git add -A`; the example settings file must stay in.
import { spawnSync } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");

/** git's own answer for a path, whether or not the file exists or is tracked. */
function ignored(file: string): boolean {
  const run = spawnSync("git", ["check-ignore", "--quiet", "--no-index", file], { cwd: root });
  if (run.status !== 0 && run.status !== 1) throw new Error(`git check-ignore failed: ${run.stderr.toString()}`);
  return run.status === 0;
}

describe(".gitignore", () => {
  it.each([
    "ironside.env",
    "production.env",
    ".env",
    ".env.local",
    "deploy/certs/privkey.pem",
    "deploy/certs/fullchain.pem",
    "var/app.sqlite3",
    "var/mail/message.eml",
    "build/cli",
    "build/cli.1795792561287.27907/events.mjs",
  ])("keeps %s out of the repository", (file) => {
    expect(ignored(file)).toBe(true);
  });

  it.each(["ironside.env.example", "deploy/nginx.conf", "compose.yaml", "compose.local.yaml", "src/config.ts"])("keeps %s in", (file) => {
    expect(ignored(file)).toBe(false);
  });
});
