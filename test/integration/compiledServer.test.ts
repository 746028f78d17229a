import type { ChildProcess } from "node:child_process";
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { spawnTracked } from "../support/children.ts";
import { scaledMs } from "../support/timeouts.ts";

/**
 * The server as the image and `npm run serve` run it: built once by esbuild.server.mjs, started by plain node (no tsx,
 * no loader). It migrates an empty database (migrations/*.ts, loaded by Node itself), answers /readyz, and serves
 * /metrics on METRICS_PORT only: never on the site's port, and no metrics port at all without METRICS_PORT.
 */
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
// Inside the checkout (the bundle's dependencies resolve from node_modules), in a folder of this run's own.
const outdir = path.join(root, "build", `test-server.${process.pid}`);
const outfile = path.join(outdir, "server.js");
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "compiled-"));
const START_GUARD_MS = scaledMs(120_000);
const children: ChildProcess[] = [];

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = net.createServer().once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const { port } = probe.address() as net.AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}

/** Starts the compiled server with plain node; resolves with its site URL and its log once it listens. */
function start(env: Record<string, string>): Promise<{ url: string; log: () => string }> {
  const child = spawnTracked(process.execPath, ["--enable-source-maps", outfile], {
    cwd: root,
    env: { PATH: process.env.PATH, NODE_ENV: "test", HOST: "127.0.0.1", PORT: "0", LOG_LEVEL: "info", MAIL_DIR: path.join(dataDir, "mail"), ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  children.push(child);
  let log = "";
  return new Promise((resolve, reject) => {
    const guard = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`the compiled server did not start within ${START_GUARD_MS / 1000} s:\n${log}`));
    }, START_GUARD_MS);
    const read = (chunk: Buffer) => {
      log += chunk.toString();
      const m = /listening on http:\/\/localhost:(\d+)/.exec(log);
      if (m) {
        clearTimeout(guard);
        resolve({ url: `http://127.0.0.1:${m[1]}`, log: () => log });
      }
    };
    child.stdout!.on("data", read);
    child.stderr!.on("data", read);
    child.once("exit", (code) => {
      clearTimeout(guard);
      reject(new Error(`the compiled server exited with ${code}:\n${log}`));
    });
  });
}

beforeAll(() => {
  const build = spawnSync(process.execPath, ["esbuild.server.mjs", "--outfile", outfile], { cwd: root, encoding: "utf8" });
  expect(build.status, build.stderr).toBe(0);
});
afterAll(async () => {
  await Promise.all(
    children.filter((c) => c.exitCode === null && c.signalCode === null).map((c) => new Promise((r) => (c.once("exit", r), c.kill("SIGKILL")))),
  );
  fs.rmSync(outdir, { recursive: true, force: true });
  fs.rmSync(dataDir, { recursive: true, force: true });
});

describe("the compiled server (build/server.js)", () => {
  it("starts on plain node, migrates, is ready and serves /metrics on METRICS_PORT alone", async () => {
    expect(fs.readFileSync(outfile, "utf8")).toMatch(/sourceMappingURL=server\.js\.map/);
    const metricsPort = await freePort();
    const server = await start({ SQLITE_PATH: path.join(dataDir, "with-metrics.sqlite3"), METRICS_PORT: String(metricsPort) });
    expect((await fetch(`${server.url}/readyz`)).status).toBe(200);
    const events = await fetch(`${server.url}/events`);
    expect(events.status).toBe(200);
    expect(await events.text()).toContain("</html>");
    const metrics = await fetch(`http://127.0.0.1:${metricsPort}/metrics`);
    expect(metrics.status).toBe(200);
    const text = await metrics.text();
    expect(text).toMatch(/^ironside_http_request_duration_seconds_count\{route="\/events",method="GET",status_class="2xx"\} 1$/m);
    expect(text).toMatch(/^ironside_event_capacity\{event="\d+"\} \d+$/m);
    expect((await fetch(`${server.url}/metrics`)).status).toBe(404);
    expect((await fetch(`http://127.0.0.1:${metricsPort}/`)).status).toBe(404);
  });

  it("opens no metrics port without METRICS_PORT", async () => {
    const server = await start({ SQLITE_PATH: path.join(dataDir, "without-metrics.sqlite3") });
    expect((await fetch(`${server.url}/readyz`)).status).toBe(200);
    expect(server.log()).not.toContain("metrics on /metrics");
    expect((await fetch(`${server.url}/metrics`)).status).toBe(404);
  });
});
