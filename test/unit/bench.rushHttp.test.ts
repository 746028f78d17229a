/**
 * The load generator's own HTTP client (test/bench/rushHttp.ts) against a real node:http server: what it sends,
 * and the answers it reads (lengths, chunks split anywhere, cookies, errors, a closed or reset connection).
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import zlib from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { request } from "../bench/rushHttp.ts";

let server: http.Server;
let port: number;
const seen: { method: string; url: string; headers: string[]; body: string; socket: number }[] = [];
const sockets = new Map<unknown, number>();
const page = Buffer.from(`<html>${"x".repeat(40_000)}<meta name="csrf-token" content="t0k3n"></html>`);

beforeAll(async () => {
  server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      if (!sockets.has(req.socket)) sockets.set(req.socket, sockets.size + 1);
      seen.push({ method: req.method!, url: req.url!, headers: req.rawHeaders, body: Buffer.concat(chunks).toString(), socket: sockets.get(req.socket)! });
      if (req.url === "/chunked") {
        // Compressed as the site's pages are, and written in small pieces: chunks split anywhere.
        const body = zlib.brotliCompressSync(page);
        res.writeHead(200, { "Content-Encoding": "br", "Set-Cookie": ["a=One; Path=/; HttpOnly", "b=Two; Path=/"] });
        for (let at = 0; at < body.length; at += 7) res.write(body.subarray(at, at + 7));
        res.end();
      } else if (req.url === "/length") res.writeHead(200, { "content-type": "application/json" }).end('{"ok":true}');
      else if (req.url === "/error") res.writeHead(409, { "content-type": "application/json" }).end('{"error":"Sold out"}');
      else if (req.url === "/close") res.writeHead(200, { connection: "close", "content-length": "4" }).end("done");
      else if (req.url === "/reset") req.socket.destroy();
      else res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

describe("the load generator's HTTP client", () => {
  it("sends the caller's header lines, then Host and Connection, with the body's length", async () => {
    const body = JSON.stringify({ name: "Zoë" });
    const res = await request("127.0.0.1", port, "POST", "/length", "accept: application/json\r\ncookie: a=1\r\n", body, true);
    expect(res.status).toBe(200);
    expect(res.body.toString()).toBe('{"ok":true}');
    const last = seen.at(-1)!;
    expect(last.method).toBe("POST");
    expect(last.headers).toEqual(["accept", "application/json", "cookie", "a=1", "content-length", String(Buffer.byteLength(body)), "Host", `127.0.0.1:${port}`, "Connection", "keep-alive"]);
    expect(last.body).toBe(body);
  });

  it("reads a chunked, compressed answer split anywhere, with its cookies, and reuses the connection", async () => {
    const before = seen.length;
    const res = await request("127.0.0.1", port, "GET", "/chunked", "", undefined, true);
    expect(res.status).toBe(200);
    expect(res.contentEncoding).toBe("br");
    expect(res.setCookie).toEqual(["a=One; Path=/; HttpOnly", "b=Two; Path=/"]);
    expect(zlib.brotliDecompressSync(res.body).equals(page)).toBe(true);
    // Not kept, but read through: the next request goes on the same connection.
    const skipped = await request("127.0.0.1", port, "GET", "/chunked", "", undefined, false);
    expect(skipped.body.length).toBe(0);
    await request("127.0.0.1", port, "GET", "/length", "", undefined, true);
    expect(new Set(seen.slice(before).map((s) => s.socket)).size).toBe(1);
  });

  it("keeps an error's body even when the page was not to be read", async () => {
    const res = await request("127.0.0.1", port, "GET", "/error", "", undefined, false);
    expect(res.status).toBe(409);
    expect(JSON.parse(res.body.toString())).toEqual({ error: "Sold out" });
  });

  it("answers 204 without a body, and leaves a connection the server closes", async () => {
    expect((await request("127.0.0.1", port, "GET", "/empty", "", undefined, true)).status).toBe(204);
    const closed = await request("127.0.0.1", port, "GET", "/close", "", undefined, true);
    expect(closed.body.toString()).toBe("done");
    const before = seen.length;
    await request("127.0.0.1", port, "GET", "/length", "", undefined, true);
    await request("127.0.0.1", port, "GET", "/length", "", undefined, true);
    // The closed connection was not taken again: both went on one connection, not the closed one.
    const used = seen.slice(before).map((s) => s.socket);
    expect(used[0]).toBe(used[1]);
    expect(seen.find((s) => s.url === "/close")!.socket).not.toBe(used[0]);
  });

  it("rejects when the connection ends before the answer", async () => {
    await expect(request("127.0.0.1", port, "GET", "/reset", "", undefined, true)).rejects.toThrow();
    // And the next request still gets its answer.
    expect((await request("127.0.0.1", port, "GET", "/length", "", undefined, true)).status).toBe(200);
  });
});
