import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { backend } from "../support/app.ts";
import { startServer, type RunningServer } from "../support/server.ts";
import { scaledMs } from "../support/timeouts.ts";

let server: RunningServer | undefined;
const dir = fs.mkdtempSync(path.join(os.tmpdir(), "shutdown-"));
afterAll(async () => {
  await server?.stop("SIGKILL");
  fs.rmSync(dir, { recursive: true, force: true });
});

// One process-level test is enough; it runs in the embedded-defaults project.
describe.runIf(backend === "sqlite")("graceful shutdown", () => {
  it("on SIGTERM finishes the request in flight, refuses new ones, and exits 0", async () => {
    server = await startServer({ SQLITE_PATH: path.join(dir, "app.sqlite3"), MAIL_DIR: path.join(dir, "mail"), ENABLE_TEST_ROUTES: "1" });
    // The answer's headers arrive at once: from then on the request is in flight, whatever the machine's load.
    const inFlight = await fetch(`${server.url}/__test/slow?ms=3000`);
    const exitCode = server.stop("SIGTERM");
    // Refused as soon as the server stops listening (a guard, not a budget).
    const guard = Date.now() + scaledMs(20_000);
    let refused = false;
    while (!refused && Date.now() < guard) {
      refused = await fetch(`${server.url}/healthz`).then(
        () => false,
        () => true,
      );
    }
    expect(refused).toBe(true);
    expect({ status: inFlight.status, body: await inFlight.json() }).toEqual({ status: 200, body: { done: true } });
    expect(await exitCode).toBe(0);
    expect(server.output()).toContain("stopped");
  });
});
