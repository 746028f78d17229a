// Importing the app must finish. A module cycle through a top-level await (as the widget registry once had)
// never settles: in-process the import just hangs, so a child process with a deadline proves it. The deadline is a
// guard far above the import's time (a second or two), scaled on a loaded machine (test/support/timeouts.ts).
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { NODE_CHILD_FLAGS, spawnTracked } from "../support/children.ts";
import { scaledMs } from "../support/timeouts.ts";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const DEADLINE_MS = scaledMs(60_000);

function importInChild(modulePath: string): Promise<{ code: number | null; out: string; timedOut: boolean }> {
  const script = `const m = await import(${JSON.stringify(path.join(root, modulePath))}); console.log("imported:", Object.keys(m).join(","));`;
  return new Promise((resolve, reject) => {
    const child = spawnTracked(process.execPath, [...NODE_CHILD_FLAGS, "--input-type=module", "-e", script], {
      cwd: root,
      env: { ...process.env, NODE_ENV: "test", LOG_LEVEL: "silent" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    child.stdout!.on("data", (d: Buffer) => (out += d.toString()));
    child.stderr!.on("data", (d: Buffer) => (out += d.toString()));
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill("SIGKILL");
    }, DEADLINE_MS);
    child.on("error", reject);
    child.on("exit", (code) => {
      clearTimeout(timer);
      resolve({ code, out, timedOut });
    });
  });
}

describe("importing the app", () => {
  it("finishes (no top-level await that never settles) and exports createApp", { timeout: DEADLINE_MS + 10_000 }, async () => {
    const result = await importInChild("src/app.ts");
    // Node exits with 13 when a top-level await can never settle; a hang runs into the deadline.
    expect(result.timedOut, "importing src/app.ts did not finish").toBe(false);
    expect(result.code, result.out).toBe(0);
    expect(result.out).toContain("imported: createApp");
  });
});
