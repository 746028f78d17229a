// HTTP benchmark: starts the site on embedded defaults and measures a few pages with autocannon.
// Usage: npm run bench:http [-- /path ...]   (loopback only, 10 connections, 5 s per path; request logs on, as in production)
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import autocannon from "autocannon";
import { startServer } from "../support/server.ts";

const paths = process.argv.slice(2).length ? process.argv.slice(2) : ["/healthz", "/about", "/"];
const dir = fs.mkdtempSync(path.join(os.tmpdir(), "bench-"));
const server = await startServer({ SQLITE_PATH: path.join(dir, "app.sqlite3"), MAIL_DIR: path.join(dir, "mail") });
try {
  console.log("path\treq/s (avg)\tlatency p50 ms\tp99 ms\terrors");
  for (const p of paths) {
    const result = await autocannon({ url: `${server.url}${p}`, connections: 10, duration: 5 });
    console.log(`${p}\t${result.requests.average}\t${result.latency.p50}\t${result.latency.p99}\t${result.errors + result.non2xx}`);
  }
} finally {
  await server.stop();
  fs.rmSync(dir, { recursive: true, force: true });
}
