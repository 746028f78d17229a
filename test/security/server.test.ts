import net from "node:net";
import type { AddressInfo } from "node:net";
import type { Server } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, type TestApp } from "../support/app.ts";
import { createHttpServer, SERVER_LIMITS } from "../../src/http/httpServer.ts";

/**
 * Slow clients and a connection flood against the real HTTP server (src/http/httpServer.ts). The limits are
 * scaled down so the test is quick; SERVER_LIMITS holds the production values.
 */
let t: TestApp;
let server: Server;
let port: number;
const LIMITS = { headersTimeout: 600, requestTimeout: 1200, keepAliveTimeout: 300, maxConnections: 20, checkEveryMs: 100 };

beforeAll(async () => {
  t = await createTestApp();
  server = createHttpServer(t.app, LIMITS);
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  port = (server.address() as AddressInfo).port;
});
afterAll(async () => {
  server?.closeAllConnections();
  await new Promise((r) => server?.close(r));
  await t?.close();
});

/** Opens a raw connection, writes `parts` with pauses, resolves with what the server sent and when it closed. */
function rawExchange(parts: string[], gapMs: number, giveUpMs = 5000): Promise<{ text: string; closedAfterMs: number }> {
  return new Promise((resolve) => {
    const started = Date.now();
    const socket = net.connect(port, "127.0.0.1");
    let text = "";
    let i = 0;
    const timer = setInterval(() => {
      if (i < parts.length && socket.writable) socket.write(parts[i++]!);
    }, gapMs);
    socket.on("data", (d) => (text += d.toString()));
    const done = () => {
      clearInterval(timer);
      resolve({ text, closedAfterMs: Date.now() - started });
    };
    socket.on("close", done);
    socket.on("error", () => undefined);
    setTimeout(() => socket.destroy(), giveUpMs).unref();
  });
}

describe("the HTTP server's limits", () => {
  it("uses production values of about 12 s for headers, 30 s per request, 5 s keep-alive and a connection cap", () => {
    expect(SERVER_LIMITS.headersTimeout).toBeGreaterThanOrEqual(10_000);
    expect(SERVER_LIMITS.headersTimeout).toBeLessThanOrEqual(15_000);
    expect(SERVER_LIMITS.requestTimeout).toBe(30_000);
    expect(SERVER_LIMITS.keepAliveTimeout).toBeLessThan(60_000);
    expect(SERVER_LIMITS.maxConnections).toBeGreaterThan(0);
  });

  it("drops a client that sends its headers slowly, with 408", async () => {
    const parts = ["GET /healthz HTTP/1.1\r\n", "Host: x\r\n", ...Array.from({ length: 40 }, (_, i) => `X-Slow-${i}: 1\r\n`)];
    const { text, closedAfterMs } = await rawExchange(parts, 100);
    expect(text).toMatch(/^HTTP\/1\.1 408/);
    expect(closedAfterMs).toBeLessThan(LIMITS.headersTimeout + 1000);
  });

  it("drops a client that sends its body slowly, with 408", async () => {
    const head = "POST /api/contact HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n";
    const { text, closedAfterMs } = await rawExchange([head, ...Array.from({ length: 60 }, () => "a")], 100);
    expect(text).toMatch(/^HTTP\/1\.1 408/);
    expect(closedAfterMs).toBeLessThan(LIMITS.requestTimeout + 1000);
  });

  it("answers a NUL byte in a header (Stripe-Signature) with 400", async () => {
    const request = 'POST /api/stripe/webhook HTTP/1.1\r\nHost: x\r\nStripe-Signature: t=1,v1=ab\u0000cd\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}';
    const { text } = await rawExchange([request], 10);
    expect(text).toMatch(/^HTTP\/1\.1 400/);
    expect(text).toContain("The request could not be read.");
  });

  it("refuses connections over the cap and keeps serving the others", async () => {
    const held = await Promise.all(
      Array.from({ length: LIMITS.maxConnections }, () => new Promise<net.Socket>((resolve) => { const s = net.connect(port, "127.0.0.1", () => resolve(s)); s.on("error", () => undefined); })),
    );
    const extra = await rawExchange(["GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"], 10, 2000);
    expect(extra.text).toBe("");
    for (const s of held) s.destroy();
    await new Promise((r) => setTimeout(r, 100));
    const after = await rawExchange(["GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"], 10);
    expect(after.text).toMatch(/^HTTP\/1\.1 200/);
  });
});
