/**
 * `npm test`'s vitest step: the browser journeys (one file at a time, against one shared server) run beside the unit
 * and integration tests instead of after them. The journeys mostly wait on Chromium and the server, so on a
 * two-core machine the two halves together take about as long as the longer one alone. The first half streams
 * its output; the journeys' output is held and printed whole when they end. With arguments (files or filters),
 * one vitest run takes them all, as `vitest run` would.
 */
import { spawn } from "node:child_process";

const config = ["run", "--config", "test/vitest.config.ts"];

function vitest(args: string[], streamed: boolean): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    const child = spawn("vitest", [...config, ...args], { stdio: ["ignore", "pipe", "pipe"], env: process.env });
    let output = "";
    const take = (chunk: Buffer, to: NodeJS.WriteStream) => (streamed ? to.write(chunk) : (output += chunk.toString()));
    child.stdout.on("data", (chunk: Buffer) => take(chunk, process.stdout));
    child.stderr.on("data", (chunk: Buffer) => take(chunk, process.stderr));
    child.on("close", (code, signal) => resolve({ code: code ?? (signal ? 1 : 0), output }));
  });
}

const extra = process.argv.slice(2);
if (extra.length) process.exit((await vitest(extra, true)).code);

const [checks, journeys] = await Promise.all([vitest(["--project", "!e2e"], true), vitest(["--project", "e2e"], false)]);
process.stdout.write(`\n--- browser journeys (e2e) ---\n${journeys.output}`);
const failed = [checks.code && "unit/integration", journeys.code && "e2e"].filter(Boolean);
if (failed.length) process.stderr.write(`\nFailed: ${failed.join(" and ")}\n`);
process.exit(failed.length ? 1 : 0);
