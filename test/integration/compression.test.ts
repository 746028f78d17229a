import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import zlib from "node:zlib";
import express from "express";
import request from "supertest";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, type TestApp } from "../support/app.ts";
import { precompressedFiles } from "../../src/http/precompressed.ts";

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => {
  await t?.close();
});

/** The bytes as sent (supertest would decode them). */
async function raw(app: express.Express, url: string, acceptEncoding: string): Promise<{ headers: http.IncomingHttpHeaders; body: Buffer }> {
  const server = app.listen(0, "127.0.0.1");
  await new Promise((resolve) => server.once("listening", resolve));
  try {
    const { port } = server.address() as AddressInfo;
    return await new Promise((resolve, reject) => {
      http
        .get({ host: "127.0.0.1", port, path: url, headers: { "accept-encoding": acceptEncoding } }, (res) => {
          const chunks: Buffer[] = [];
          res.on("data", (c: Buffer) => chunks.push(c));
          res.on("end", () => resolve({ headers: res.headers, body: Buffer.concat(chunks) }));
        })
        .on("error", reject);
    });
  } finally {
    server.close();
  }
}

describe("compressed answers", () => {
  it("compresses pages and JSON with brotli or gzip as the client accepts, and not at all otherwise", async () => {
    const plain = await request(t.app).get("/about").set("accept-encoding", "identity").expect(200);
    expect(plain.headers["content-encoding"]).toBeUndefined();
    expect(plain.headers.vary).toMatch(/Accept-Encoding/i);

    const br = await raw(t.app, "/about", "gzip, deflate, br");
    expect(br.headers["content-encoding"]).toBe("br");
    // The same page but for the new visitor's CSRF token and the test server's port.
    const withoutToken = (html: string) => html.replace(/"[A-Za-z0-9_-]{43}"/g, "").replace(/127\.0\.0\.1:\d+/g, "");
    expect(withoutToken(zlib.brotliDecompressSync(br.body).toString())).toBe(withoutToken(plain.text));
    expect(br.body.length).toBeLessThan(plain.text.length / 3);

    const gz = await raw(t.app, "/api/events/2", "gzip");
    expect(gz.headers["content-encoding"]).toBe("gzip");
    expect(JSON.parse(zlib.gunzipSync(gz.body).toString()).id).toBe(2);
  });
});

describe("precompressed build files", () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "precompressed-"));
  const js = `export const x = ${JSON.stringify("a".repeat(5000))};`;
  fs.writeFileSync(path.join(dir, "boot-ABC.js"), js);
  fs.writeFileSync(path.join(dir, "boot-ABC.js.br"), zlib.brotliCompressSync(js));
  fs.writeFileSync(path.join(dir, "boot-ABC.js.gz"), zlib.gzipSync(js));
  fs.writeFileSync(path.join(dir, "plain.txt"), "no compressed copy");
  const app = express();
  app.use("/build", precompressedFiles(dir), express.static(dir, { immutable: true, maxAge: "1y", fallthrough: false }));
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it("serves the brotli copy, else the gzip copy, else the file, with the original's type and a year's immutable caching", async () => {
    const br = await raw(app, "/build/boot-ABC.js", "gzip, deflate, br, zstd");
    expect(br.headers["content-encoding"]).toBe("br");
    expect(br.headers["content-type"]).toMatch(/^text\/javascript/);
    expect(br.headers["cache-control"]).toBe("public, max-age=31536000, immutable");
    expect(br.headers.vary).toBe("Accept-Encoding");
    expect(zlib.brotliDecompressSync(br.body).toString()).toBe(js);

    const gz = await raw(app, "/build/boot-ABC.js", "gzip, br;q=0");
    expect(gz.headers["content-encoding"]).toBe("gzip");
    expect(zlib.gunzipSync(gz.body).toString()).toBe(js);

    const none = await request(app).get("/build/boot-ABC.js").set("accept-encoding", "identity").expect(200);
    expect(none.headers["content-encoding"]).toBeUndefined();
    expect(none.text).toBe(js);

    const other = await request(app).get("/build/plain.txt").set("accept-encoding", "br").expect(200);
    expect(other.headers["content-encoding"]).toBeUndefined();
  });
});
