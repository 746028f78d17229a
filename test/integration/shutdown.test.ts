import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { backend } from "../support/app.ts";
import { startServer, type RunningServer } from "../support/server.ts";

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
    const inFlight = fetch(`${server.url}/__test/slow?ms=1500`).then(async (r) => ({ status: r.status, body: await r.json() }));
    await new Promise((r) => setTimeout(r, 300));
    const exitCode = server.stop("SIGTERM");
    await new Promise((r) => setTimeout(r, 200));
    await expect(fetch(`${server.url}/healthz`)).rejects.toThrow();
    expect(await inFlight).toEqual({ status: 200, body: { done: true } });
    expect(await exitCode).toBe(0);
    expect(server.output()).toContain("stopped");
  });
});
