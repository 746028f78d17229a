/**
 * `npm test` after its preflight and the test build: lint, the type check and vitest at once instead of one after
 * the other. The browser journeys run beside the unit and integration tests instead of after them, in JOURNEY_LANES
 * lanes (one on two cores; test/e2e/lanes.ts: each a vitest run with its own server, database and Chromium, one file
 * at a time). With TEST_REPORT_DIR each half also writes vitest's JSON report (`.ci/run` prints the slowest files). The
 * journeys mostly wait on Chromium, the server and the pages' own timers, and the tests on
 * MySQL, Redis and child processes, so on a two-core machine lint and the type check fill cores the tests leave
 * idle. The unit and integration output streams; the journeys', lint's and the type check's output is held and
 * printed whole when they end. With arguments (files or filters), one vitest run takes them all, as `vitest run`
 * would, beside lint and the type check.
 *
 * Each step runs in a process group of its own; when this run is stopped (Ctrl-C, SIGTERM, SIGHUP) or ends, the
 * groups are killed whole, so no worker, server or browser outlives it. Timeouts are guards scaled to the machine's
 * load when the run starts (TEST_TIMEOUT_SCALE, test/support/timeouts.ts), unless it is set.
 */
import { spawn } from "node:child_process";
import os from "node:os";
import { journeyLanes } from "./e2e/lanes.ts";

const config = ["run", "--config", "test/vitest.config.ts"];
/** The process groups of the vitest runs, kept after their leaders exit: a server in one may still be stopping. */
const groups = new Set<number>();

// A loaded machine (load above its cores) stretches every timeout: 2 on a quiet machine, up to 6 (a hang then takes
// that much longer to be reported, so not more).
const loadPerCore = os.loadavg()[0]! / os.availableParallelism();
const env = { ...process.env, TEST_TIMEOUT_SCALE: process.env.TEST_TIMEOUT_SCALE ?? String(Math.min(6, 2 + Math.floor(loadPerCore / 2))) };

function killGroups(signal: NodeJS.Signals): void {
  for (const group of groups) {
    try {
      process.kill(-group, signal);
    } catch {
      // the group is already gone
    }
  }
}
process.once("exit", () => killGroups("SIGKILL"));
for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) {
  process.once(signal, () => {
    process.stderr.write(`\nnpm test stopped (${signal}): stopping every test process\n`);
    killGroups("SIGTERM");
    setTimeout(() => process.exit(130), 2000);
  });
}

/** TEST_REPORT_DIR=<dir>: each half also writes vitest's JSON report there (per-file and per-test durations). */
function reportArgs(half: string): string[] {
  const dir = process.env.TEST_REPORT_DIR;
  return dir ? ["--reporter=default", "--reporter=json", `--outputFile.json=${dir}/${half}.json`] : [];
}

interface Step {
  name: string;
  code: number;
  /** What it wrote, when held for the end (empty when it streamed). */
  output: string;
  /** Its failing tests' lines (vitest's ×/FAIL lines), repeated at the very end where a log's tail shows them. */
  failures: string[];
}

// vitest colours its output
const plain = (line: string) => line.replace(/\x1b\[[0-9;]*m/g, "");
const failureLines = (text: string) => text.split("\n").map(plain).filter((line) => /^\s*(×|FAIL\s)/.test(line));

/**
 * The journeys are the longest step: the other steps run at a lower priority (a higher nice
 * value, inherited by their workers and children), so they take the cores the journeys leave idle rather than slow
 * them. Nothing of theirs waits on a clock, only on readiness, so they just take longer.
 */
const BESIDE_NICE = 5;

/** Runs a step in a process group of its own; its output streams, or is held for the end. */
function step(name: string, command: string, args: string[], streamed: boolean, nice = 0): Promise<Step> {
  return new Promise((resolve) => {
    const child = spawn(command, args, { stdio: ["ignore", "pipe", "pipe"], env, detached: true });
    groups.add(child.pid!);
    if (nice) os.setPriority(child.pid!, Math.min(19, os.getPriority() + nice));
    const chunks: Buffer[] = [];
    const take = (chunk: Buffer, to: NodeJS.WriteStream) => {
      chunks.push(chunk);
      if (streamed) to.write(chunk);
    };
    child.stdout.on("data", (chunk: Buffer) => take(chunk, process.stdout));
    child.stderr.on("data", (chunk: Buffer) => take(chunk, process.stderr));
    child.on("close", (code, signal) => {
      const seen = Buffer.concat(chunks).toString();
      resolve({ name, code: code ?? (signal ? 1 : 0), output: streamed ? "" : seen, failures: failureLines(seen) });
    });
  });
}

const vitest = (name: string, args: string[], streamed: boolean, nice = 0) => step(name, "vitest", [...config, ...args], streamed, nice);

process.stdout.write(`Timeouts scaled by ${env.TEST_TIMEOUT_SCALE} (load ${os.loadavg()[0]!.toFixed(1)} on ${os.availableParallelism()} cores)\n`);
const extra = process.argv.slice(2);

// The unit and integration files mostly wait (on MySQL, Redis, a child process): vitest's default of one worker per
// core but one (a single worker on two cores) left the cores idle, so they run one file per core. One more (3 on two
// cores, with the journeys beside them) kept the load near 10 and lost the journeys time without finishing sooner:
// the journeys are the longer half.
const checkWorkers = String(os.availableParallelism());
// The journeys in lanes, each with its own server, database and Chromium (test/e2e/lanes.ts). One: on two cores a
// second lane beside the unit and integration half kept the load near 30 and made the whole run slower (27 min
// against 21 in one lane), and a toast's auto-dismissal lost a journey. More lanes pay only on more cores.
const JOURNEY_LANES = 1;
const tests = extra.length
  ? [vitest("vitest", extra, true)]
  : [
      vitest("unit/integration", ["--project", "!e2e", "--maxWorkers", checkWorkers, ...reportArgs("checks")], true, BESIDE_NICE),
      ...journeyLanes(JOURNEY_LANES).map((files, i) =>
        vitest(`browser journeys (e2e), lane ${i + 1} of ${JOURNEY_LANES}`, ["--project", "e2e", ...reportArgs(`e2e-${i + 1}`), ...files], false),
      ),
    ];
const steps = await Promise.all([
  ...tests,
  step("lint", "npm", ["run", "--silent", "lint"], false, BESIDE_NICE),
  step("typecheck", "npm", ["run", "--silent", "typecheck"], false, BESIDE_NICE),
]);
for (const { name, code, output } of steps) if (output || name === "lint" || name === "typecheck") process.stdout.write(`\n--- ${name}: ${code ? "failed" : "passed"} ---\n${output}`);
const failed = steps.filter((s) => s.code).map((s) => s.name);
for (const { name, code, failures } of steps) {
  if (code && failures.length) process.stderr.write(`\n${name} failed in:\n${[...new Set(failures)].slice(0, 40).join("\n")}\n`);
}
if (failed.length) process.stderr.write(`\nFailed: ${failed.join(", ")}\n`);
process.exit(failed.length ? 1 : 0);
