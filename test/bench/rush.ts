/**
 * `npm run bench:rush`: registration opening, production-shaped. Two app instances (the server built as `npm start`
 * builds and runs it, plain JavaScript on node, with NODE_ENV=production, the production build of the assets, every production check satisfied with loopback values) share one fresh
 * MySQL database and one Redis prefix; Stripe is the offline fake as a process of its own (`npm run stripe:fake`),
 * reached through STRIPE_API_URL and delivering signed webhooks to the instances in turn; the load generator is a
 * process of its own too (rushLoad.ts). RUSH_FAMILIES families (default 1,000) arrive within RUSH_SECONDS (default
 * 60; the burst profile is RUSH_SECONDS=10), most of them early, each a real HTTP client pinned to one instance (see
 * rushFamily.ts). Prints every step's answers and times, holds per second at the peak, CPU time per hold of each
 * process, queries and lock waits per hold inside and outside the event lock, MySQL's counters, and the end state
 * read from the database at the end of the rush and, when a charge waits for it there (its return and its webhook
 * both failed, Stripe's next delivery a minute away), again after the site's reconciliation job has run
 * (rushReconcile.ts); exits 1 when that end state is not exact or any answer was a 5xx (or no answer at all).
 *
 *   RUSH_FAMILIES=1000 RUSH_SECONDS=60 RUSH_SEED=1 npm run bench:rush
 *   TEST_DATABASE_URL (default mysql://root@127.0.0.1:3306/test: its server is used, a database rush_* is made
 *   and dropped), TEST_REDIS_URL (default redis://127.0.0.1:6379; keys under rush-*: are removed afterwards)
 *   RUSH_CPU_PROF=1: instance 1 and the load generator run with --cpu-prof; their profiles are summed up
 *   (var/bench-rush/profile/, and its generator/)
 *   RUSH_WEBHOOKS=off: the fake Stripe's webhooks reach no instance (the endpoint down all along): a charge whose
 *   return failed is left to the reconciliation job, which the end state then shows at work
 *   RUSH_KEEP_DATABASE=1: the run's database is kept (its name is printed) to follow a reference through its rows
 *   RUSH_LOCK_WAITS=1: MySQL's row-lock waits sampled every 50 ms during the rush (rushLockWaits.ts), summed up by lock
 *   and by the waiting and blocking statements (what a slow hold or return queued behind)
 *   RUSH_SLOW_LOG_MS=n: MySQL's slow log (to its table) catches statements over n ms during the run, summed up at the
 *   end; the server's earlier settings are put back (a global setting of a shared server: use it for a profile only)
 */
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import mysql from "mysql2/promise";
import { createClient } from "redis";
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { startServer, type RunningServer } from "../support/server.ts";
import { writeResults } from "./site.ts";
import { PUBLIC_URL, RUSH_CODE, type Call, type FamilyResult } from "./rushFamily.ts";
import type { LoadInput, LoopDelay } from "./rushLoad.ts";
import { sampleLockWaits } from "./rushLockWaits.ts";
import { cpuSplitMs, databasePid, lockLines, profileSummary, serverStatus, slowStatements, type LockLine } from "./rushMetrics.ts";
import { countCheck, readEndState, RULES, unsettledCharges, type Charge } from "./rushEndState.ts";
import { reconcilePass } from "./rushReconcile.ts";
import { agree, holdMetrics } from "./rushScrape.ts";
import { EVENT_IDS, familyPlans } from "./rushPlans.ts";
import { buildGenerator } from "./rushGenBuild.ts";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const INSTANCES = 2;
/** The goals of each profile (issue 31): the steady one (1,000 within 60 s), and the burst (RUSH_SECONDS=10 or less). */
const GOALS = { steady: { p99HoldMs: 500, p99ReturnMs: 500 }, burst: { p99HoldMs: 2000, peakHoldsPerSecond: 100 } } as const;

function setting(name: string, fallback: number, max: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === "") return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1 || n > max) {
    console.error(`${name} must be a whole number from 1 to ${max}, not "${raw}"`);
    process.exit(2);
  }
  return n;
}
const FAMILIES = setting("RUSH_FAMILIES", 1000, 100_000);
const SECONDS = setting("RUSH_SECONDS", 60, 3600);
const SEED = setting("RUSH_SEED", 1, 2 ** 31);
const LOCK_WAITS = process.env.RUSH_LOCK_WAITS === "1";
const SLOW_LOG_MS = process.env.RUSH_SLOW_LOG_MS ? setting("RUSH_SLOW_LOG_MS", 50, 10_000) : undefined;
const CPU_PROFILE = process.env.RUSH_CPU_PROF === "1";
const WEBHOOKS_OFF = process.env.RUSH_WEBHOOKS === "off";

const plans = () => familyPlans({ families: FAMILIES, seconds: SECONDS, seed: SEED, instances: INSTANCES });

const percentile = (sorted: number[], p: number) => (sorted.length ? sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]! : 0);
const round = (n: number) => Math.round(n);

const ms = (n: number) => `${round(n)} ms`;
const spread = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return `p50 ${ms(percentile(sorted, 50))}, p99 ${ms(percentile(sorted, 99))}, max ${ms(sorted.at(-1) ?? 0)}`;
};

const runId = randomBytes(4).toString("hex");
const database = `rush_${runId}`;
const prefix = `rush-${runId}:`;
const dbServer = new URL(process.env.TEST_DATABASE_URL || "mysql://root@127.0.0.1:3306/test");
dbServer.pathname = "/";
const redisUrl = process.env.TEST_REDIS_URL || "redis://127.0.0.1:6379";
const runDir = path.join(root, "var/bench-rush");
fs.rmSync(runDir, { recursive: true, force: true });
fs.mkdirSync(runDir, { recursive: true });
const profileDir = path.join(runDir, "profile");
const generatorProfileDir = path.join(profileDir, "generator");

/** Starts a process and waits for a line of its output that `ready` matches; its output goes to `logFile`. */
function startProcess(args: string[], env: Record<string, string>, logFile: string, ready: RegExp): Promise<{ child: ChildProcess; match: RegExpExecArray }> {
  const child = spawn(process.execPath, args, { cwd: root, env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] });
  const file = fs.createWriteStream(logFile);
  let out = "";
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${args.join(" ")} did not start:\n${out}`)), 30_000);
    const onData = (chunk: Buffer) => {
      file.write(chunk);
      if (out.length < 64 * 1024) out += chunk.toString();
      const m = ready.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve({ child, match: m });
      }
    };
    child.stdout.on("data", onData);
    child.stderr.on("data", onData);
    child.once("exit", (code) => reject(new Error(`${args.join(" ")} exited with ${code}:\n${out}`)));
  });
}
const stopProcess = (child: ChildProcess) => (child.exitCode !== null ? Promise.resolve() : new Promise<void>((resolve) => (child.once("exit", () => resolve()), child.kill("SIGTERM"))));

// The production build of the browser assets (what NODE_ENV=production serves) and of the server (what `npm start`
// runs: plain JavaScript on node, no tsx); their output only when they fail.
const serverBuild = path.join(runDir, "server", "server.js");
try {
  execFileSync(process.execPath, ["esbuild.config.mjs"], { cwd: root, env: { ...process.env, NODE_ENV: "production" }, stdio: "pipe" });
  execFileSync(process.execPath, ["esbuild.server.mjs", "--outfile", serverBuild], { cwd: root, stdio: "pipe" });
} catch (err) {
  console.error(`the production build failed:\n${String((err as { stdout?: Buffer }).stdout ?? "")}${String((err as { stderr?: Buffer }).stderr ?? "")}`);
  process.exit(1);
}

const redis = createClient({ url: redisUrl });
await redis.connect();
const admin = await mysql.createConnection({ uri: dbServer.toString(), timezone: "Z" });
await admin.query(`CREATE DATABASE \`${database}\` CHARACTER SET utf8mb4`);
const servers: RunningServer[] = [];
let stripe: ChildProcess | undefined;
let slowLogBefore: Record<string, unknown> | undefined;
/** The rush, from the generator's start to the end of the settling, on the CPU profile's clock. */
const rushWindow = { fromUs: 0, toUs: 0 };
let exitCode = 0;
try {
  const secret = randomBytes(32).toString("hex");
  const databaseUrl = new URL(dbServer);
  databaseUrl.pathname = `/${database}`;
  const keys = {
    STRIPE_SECRET_KEY: `sk_test_rush_${randomBytes(12).toString("hex")}`,
    STRIPE_PUBLISHABLE_KEY: `pk_test_rush_${randomBytes(12).toString("hex")}`,
    STRIPE_WEBHOOK_SECRET: `whsec_rush_${randomBytes(16).toString("hex")}`,
  };
  if (SLOW_LOG_MS !== undefined) {
    const [rows] = await admin.query("SELECT @@GLOBAL.slow_query_log AS slow_query_log, @@GLOBAL.long_query_time AS long_query_time, @@GLOBAL.log_output AS log_output");
    slowLogBefore = (rows as Record<string, unknown>[])[0];
    // Read by each connection when it opens: set before the instances connect.
    await admin.query("SET GLOBAL log_output = 'TABLE', long_query_time = ?, slow_query_log = 1", [SLOW_LOG_MS / 1000]);
  }
  // The instances' ports are chosen first: the fake Stripe is told where its webhooks go when it starts.
  // Each instance's Prometheus metrics (src/metrics/) too: the hold figures an operator's dashboard shows, read after the run.
  // RUSH_WEBHOOKS=off: the endpoint is down for the whole run (a port nobody listens on), every delivery and retry fails.
  const free = await freePorts(2 * INSTANCES + 2);
  const ports = free.slice(0, INSTANCES);
  const metricsPorts = free.slice(INSTANCES, 2 * INSTANCES);
  const stripePort = free[2 * INSTANCES]!;
  const webhookUrls = WEBHOOKS_OFF ? `http://127.0.0.1:${free[2 * INSTANCES + 1]}/api/stripe/webhook` : ports.map((p) => `http://127.0.0.1:${p}/api/stripe/webhook`).join(",");
  const started = await startProcess(
    ["--import", "tsx", "src/payments/offline/standalone.ts"],
    { ...keys, STRIPE_FAKE_PORT: String(stripePort), STRIPE_FAKE_WEBHOOK_URL: webhookUrls, LOG_LEVEL: "warn" },
    path.join(runDir, "stripe.log"),
    /fake Stripe listening on (http:\/\/[^\s]+)/,
  );
  stripe = started.child;
  const stripeUrl = started.match[1]!;
  // One after the other: the first runs the migrations.
  for (let i = 0; i < INSTANCES; i++) {
    servers.push(
      await startServer(
        {
          NODE_ENV: "production",
          PORT: String(ports[i]),
          METRICS_PORT: String(metricsPorts[i]),
          DATABASE_URL: databaseUrl.toString(),
          REDIS_URL: redisUrl,
          REDIS_PREFIX: prefix,
          SESSION_SECRET: secret,
          PUBLIC_URL,
          TRUST_PROXY_HOPS: "1",
          PAGE_CACHE_MS: "3000",
          MAIL_FILES_IN_PRODUCTION: "1",
          MAIL_DIR: path.join(runDir, "mail"),
          UPLOAD_DIR: path.join(runDir, "uploads"),
          ...keys,
          STRIPE_API_URL: stripeUrl,
        },
        { built: serverBuild, logFile: path.join(runDir, `instance-${i + 1}.log`), ...(CPU_PROFILE && i === 0 ? { nodeArgs: ["--cpu-prof", `--cpu-prof-dir=${profileDir}`] } : {}) },
      ),
    );
  }
  const modes = servers.map((s) => /"react":"(\w+)"/.exec(s.output())?.[1] ?? "unknown");
  await admin.query(`USE \`${database}\``);
  await admin.query("INSERT INTO discount_codes (code, discount_type, value, event_id, kind, max_redemptions, active, created_at) VALUES (?, 'percent', ?, NULL, 'both', ?, 1, ?)", [
    RUSH_CODE.code,
    RUSH_CODE.percent,
    RUSH_CODE.maxRedemptions,
    new Date(),
  ]);

  // Warm each instance's pages (and its JIT) as the first visitors of the day would, before the opening.
  for (const server of servers) {
    for (const id of EVENT_IDS) {
      for (const page of [`/register/${id}`, `/team-register/${id}`]) {
        for (let i = 0; i < 5; i++) await (await fetch(`${server.url}${page}`, { headers: { "x-forwarded-proto": "https" } })).arrayBuffer();
      }
    }
  }

  const families = plans();
  const teams = families.filter((f) => f.kind === "team");
  const burst = SECONDS <= 10;
  console.log(
    `bench:rush ${runId}: the instances run in ${modes.every((m) => m === "production") ? "production" : `NOT production (${modes.join(", ")})`} mode (NODE_ENV=production, React's ${modes.join("/")} build); fake Stripe and the load generator run as processes of their own\n` +
      `  ${burst ? "burst" : "steady"} profile: ${FAMILIES} families within ${SECONDS} s (seed ${SEED}) on ${INSTANCES} instances, events ${EVENT_IDS.join(", ")} (200 places each)${WEBHOOKS_OFF ? ", the webhook endpoint down all along (RUSH_WEBHOOKS=off)" : ""}; ${os.cpus().length} cores, load average ${os.loadavg().map((l) => l.toFixed(2)).join(" ")} before the run\n` +
      `  ${FAMILIES - teams.length} individuals, ${teams.length} teams of 5 to 12 (${teams.reduce((s, f) => s + f.athletes, 0)} athletes); ` +
      `${families.filter((f) => f.ending === "pay").length} mean to pay with 4242 4242 4242 4242, the others abandon after the hold; ` +
      `${families.filter((f) => f.doubleSubmit).length} double-submit; ${families.filter((f) => f.useCode).length} enter ${RUSH_CODE.code} (${RUSH_CODE.percent}% off, ${RUSH_CODE.maxRedemptions} uses)`,
  );

  // The rush: the generator runs in its own process; CPU is counted from its start to the end of the settling.
  const dbPid = databasePid();
  const watched: [string, number | undefined][] = [
    ...servers.map((s, i): [string, number | undefined] => [`instance ${i + 1}`, s.child.pid]),
    ["MySQL (the whole server)", dbPid],
    ["fake Stripe", stripe.pid],
  ];
  // Compiled before the run: the generator's process neither loads tsx nor compiles while its CPU is counted.
  const generatorScript = buildGenerator(runDir);
  const loadFile = path.join(runDir, "load-input.json");
  const resultFile = path.join(runDir, "load-results.json");
  fs.writeFileSync(loadFile, JSON.stringify({ instances: servers.map((s) => s.url), stripeUrl, plans: families } satisfies LoadInput));
  const statusBefore = await serverStatus(admin);
  const slowSince = new Date(Date.now() - 1000);
  const cpuBefore = new Map(watched.map(([name, pid]) => [name, pid ? cpuSplitMs(pid) : undefined]));
  const ownBefore = process.cpuUsage();
  const lockWaits = LOCK_WAITS ? await sampleLockWaits(databaseUrl.toString()) : undefined;
  rushWindow.fromUs = Number(process.hrtime.bigint() / 1000n);
  const generatorProfile = CPU_PROFILE ? ["--cpu-prof", `--cpu-prof-dir=${generatorProfileDir}`] : [];
  const generator = spawn(process.execPath, [...generatorProfile, generatorScript, loadFile, resultFile], { cwd: root, stdio: ["ignore", "inherit", "inherit"] });
  let generatorSplit: { user: number; system: number } | undefined;
  const generatorDone = new Promise<number | null>((resolve) => {
    // Read just before it is reaped: its CPU, summed over its whole life.
    const poll = setInterval(() => {
      const now = generator.pid ? cpuSplitMs(generator.pid) : undefined;
      if (now !== undefined) generatorSplit = now;
    }, 200);
    generator.once("exit", (code) => (clearInterval(poll), resolve(code)));
  });
  if ((await generatorDone) !== 0) throw new Error("the load generator failed");
  const load = JSON.parse(fs.readFileSync(resultFile, "utf8")) as { seconds: number; results: FamilyResult[]; loopDelay: { firstSeconds: number; first: LoopDelay; whole: LoopDelay } };
  const results = load.results;

  // Let the webhooks and returns still under way settle every charge (at most 30 s).
  const charges: Charge[] = results.flatMap((r) => (r.charged ? [r.charged] : []));
  const settleStarted = performance.now();
  while ((await unsettledCharges(admin, charges)) > 0 && performance.now() - settleStarted < 30_000) await new Promise((r) => setTimeout(r, 500));
  const settleSeconds = (performance.now() - settleStarted) / 1000;
  rushWindow.toUs = Number(process.hrtime.bigint() / 1000n);
  const lockWaitSummary = await lockWaits?.stop();
  const cpuAfter = new Map(watched.map(([name, pid]) => [name, pid ? cpuSplitMs(pid) : undefined]));
  const own = process.cpuUsage(ownBefore);
  const statusAfter = await serverStatus(admin);
  const loadAfter = os.loadavg();
  // The charges the rush left waiting (their return and webhook both failed, and Stripe's next webhook attempt is a
  // minute away) are the reconciliation job's: it runs here as an instance runs it, and the end state is read again.
  const atRushEnd = await readEndState(admin, EVENT_IDS, charges, new Date());
  const waiting = atRushEnd.problems.filter((p) => p.rule === "lost");
  const pass = waiting.length
    ? await reconcilePass({ DATABASE_URL: databaseUrl.toString(), ...keys, STRIPE_API_URL: stripeUrl, PUBLIC_URL })
    : undefined;
  const end = pass ? await readEndState(admin, EVENT_IDS, charges, new Date()) : atRushEnd;
  end.problems.push(...(await countCheck(databaseUrl.toString())));
  const slow = SLOW_LOG_MS !== undefined ? await slowStatements(admin, database, slowSince) : [];

  // ---- the report ----
  const calls: Call[] = results.flatMap((r) => r.calls);
  const holds = calls.filter((c) => c.step === "hold");
  const holdMs = holds.map((c) => c.ms).sort((a, b) => a - b);
  const held = holds.filter((c) => c.status === 200);
  // From the first successful hold sent to the last one answered.
  const holdWindow = held.length ? (Math.max(...held.map((c) => c.at + c.ms)) - Math.min(...held.map((c) => c.at))) / 1000 : 0;
  // The peak: the most holds answered 200 within one second (seconds counted from the generator's start).
  const perSecond = new Map<number, number>();
  for (const c of held) perSecond.set(Math.floor((c.at + c.ms) / 1000), (perSecond.get(Math.floor((c.at + c.ms) / 1000)) ?? 0) + 1);
  const [peakSecond, peak] = [...perSecond].sort((a, b) => b[1] - a[1] || a[0] - b[0])[0] ?? [0, 0];
  const fiveXX = calls.filter((c) => c.status >= 500).length;
  const noAnswer = calls.filter((c) => c.status === 0).length;

  console.log(`\nran ${load.seconds.toFixed(1)} s; settled ${settleSeconds.toFixed(1)} s after; load average ${loadAfter.map((l) => l.toFixed(2)).join(" ")} after the run`);
  const outcomes: Record<string, number> = {};
  for (const r of results) outcomes[r.outcome] = (outcomes[r.outcome] ?? 0) + 1;
  console.log(`families: ${Object.entries(outcomes).map(([k, v]) => `${v} ${k}`).join(", ")}`);
  const formIds = new Map<string, number>();
  for (const r of results) if (r.formSessionId) formIds.set(r.formSessionId, (formIds.get(r.formSessionId) ?? 0) + 1);
  const sharing = [...formIds.values()].filter((n) => n > 1).reduce((s, n) => s + n, 0);
  const holders = new Map<string, number>();
  for (const r of results) if (r.reference) holders.set(r.reference, (holders.get(r.reference) ?? 0) + 1);
  console.log(
    `form ids: ${formIds.size} distinct among ${[...formIds.values()].reduce((s, n) => s + n, 0)} forms shown; ${sharing} families were shown a form id another family was shown too; ` +
      `${[...holders.values()].filter((n) => n > 1).length} registrations were held by more than one family`,
  );
  const heldMs = held.map((c) => c.ms).sort((a, b) => a - b);
  console.log(
    `holds: ${holds.length} posted, ${held.length} answered 200; ${holdWindow ? (held.length / holdWindow).toFixed(1) : "0"} holds/s over ${holdWindow.toFixed(1)} s; ` +
      `latency p50 ${round(percentile(holdMs, 50))} ms, p99 ${round(percentile(holdMs, 99))} ms, max ${round(holdMs.at(-1) ?? 0)} ms ` +
      `(the 200s alone: p50 ${round(percentile(heldMs, 50))} ms, p99 ${round(percentile(heldMs, 99))} ms)`,
  );
  console.log(`holds per second at the peak: ${peak} answered 200 within second ${peakSecond} to ${peakSecond + 1} of the run`);
  const scraped = holdMetrics(await Promise.all(metricsPorts.map(async (p) => (await fetch(`http://127.0.0.1:${p}/metrics`)).text())));
  const holdMeanMs = holdMs.reduce((t, ms) => t + ms, 0) / Math.max(1, holdMs.length);
  const soldOutAnswers = holds.filter((c) => c.status === 409 && /sold out|places are left/.test(c.message ?? "")).length;
  const agreeMark = (a: number, b: number) => (agree(a, b) ? "agree" : "DISAGREE");
  console.log(
    `holds by the instances' /metrics: ${scraped.count} answered (${agreeMark(scraped.count, holds.length)} with ${holds.length} posted), ` +
      `${scraped.byOutcome.held ?? 0} held (${agreeMark(scraped.byOutcome.held ?? 0, held.length)} with ${held.length} answered 200), ` +
      `${scraped.byOutcome.sold_out ?? 0} sold out (${agreeMark(scraped.byOutcome.sold_out ?? 0, soldOutAnswers)} with ${soldOutAnswers}); ` +
      `mean ${round(scraped.meanMs)} ms (${agreeMark(scraped.meanMs, holdMeanMs)} with ${round(holdMeanMs)} ms measured by the families, who also count the network and their own wait), ` +
      `p99 within the ${scraped.p99BucketMs === Infinity ? "last (over 20 s)" : `${scraped.p99BucketMs} ms`} bucket`,
  );

  console.log("\nanswers by step and status:");
  const steps: Call["step"][] = ["page", "hold", "checkout", "confirm", "return", "landing"];
  for (const step of steps) {
    const mine = calls.filter((c) => c.step === step);
    if (mine.length === 0) continue;
    const byStatus = new Map<number, number>();
    for (const c of mine) byStatus.set(c.status, (byStatus.get(c.status) ?? 0) + 1);
    const statuses = [...byStatus].sort(([a], [b]) => a - b).map(([s, n]) => `${s === 0 ? "no answer" : s}: ${n}`).join(", ");
    console.log(`  ${step.padEnd(9)} ${statuses.padEnd(28)} ${spread(mine.map((c) => c.ms))}`);
  }
  const delay = (d: LoopDelay) => `p50 ${round(d.p50Ms)} ms, p99 ${round(d.p99Ms)} ms, max ${round(d.maxMs)} ms`;
  console.log(
    `  the load generator's own event-loop delay (a time above includes up to this much of its own wait): ` +
      `first ${load.loopDelay.firstSeconds} s ${delay(load.loopDelay.first)}; whole run ${delay(load.loopDelay.whole)}`,
  );
  const errors = new Map<string, number>();
  for (const c of calls.filter((c) => c.status >= 400 || c.status === 0)) {
    const key = `${c.step} ${c.status === 0 ? "no answer" : c.status}: ${c.message ?? ""}`;
    errors.set(key, (errors.get(key) ?? 0) + 1);
  }
  if (errors.size) {
    console.log("errors by status and message:");
    for (const [k, n] of [...errors].sort((a, b) => b[1] - a[1])) console.log(`  ${String(n).padStart(5)}  ${k}`);
  }

  console.log(`\nCPU time per hold (${holds.length} holds posted), from the generator's start to the end of the settling:`);
  const splits: [string, { user: number; system: number } | undefined][] = [
    ...watched.map(([name]): [string, { user: number; system: number } | undefined] => {
      const a = cpuBefore.get(name);
      const b = cpuAfter.get(name);
      return [name, a && b ? { user: b.user - a.user, system: b.system - a.system } : undefined];
    }),
    ["load generator", generatorSplit],
    ["this report", { user: own.user / 1000, system: own.system / 1000 }],
  ];
  const cpuRows = splits.map(([name, split]): [string, number | undefined] => [name, split && split.user + split.system]);
  for (const [name, used] of cpuRows) {
    console.log(`  ${name.padEnd(26)} ${used === undefined ? "unreadable" : `${(used / Math.max(1, holds.length)).toFixed(1).padStart(6)} ms per hold (${(used / 1000).toFixed(1)} s)`}`);
  }
  // The kernel's share: on loopback the sender of each write does the TCP work of both ends, so a share that grows
  // with the statements and answers says round trips cost; a CPU profile cannot tell (it counts the time a process
  // waits for a core inside a write as the write's).
  console.log(
    `  of which in the kernel (system time): ${splits
      .filter(([name, split]) => name !== "this report" && split && split.user + split.system > 0)
      .map(([name, split]) => `${name.replace(/ \(.*\)$/, "")} ${Math.round((100 * split!.system) / (split!.user + split!.system))}%`)
      .join(", ")}`,
  );
  // What the machine allows: every process's CPU for the run over the families that came, against the cores.
  const everyProcessMs = cpuRows.filter(([name]) => name !== "this report").reduce((sum, [, used]) => sum + (used ?? 0), 0);
  const perFamilyMs = everyProcessMs / Math.max(1, results.length);
  const cores = os.cpus().length;
  console.log(`ceiling: ${Math.floor((cores * 1000) / Math.max(0.001, perFamilyMs))} families/s on ${cores} cores at ${perFamilyMs.toFixed(1)} ms of CPU per family`);

  const lines: LockLine[] = servers.flatMap((_, i) => lockLines(path.join(runDir, `instance-${i + 1}.log`)));
  console.log(
    '\nqueries and lock times per request that ran a queued locking transaction (the instances\' "row lock" log lines; ' +
      "a hold locks its event's row, a settlement its payment's and registration's rows, and the event's only for a lapsed hold):",
  );
  const routes = [...new Set(lines.map((l) => l.route))].sort();
  for (const route of routes) {
    const mine = lines.filter((l) => l.route === route);
    const avg = (f: (l: LockLine) => number) => (mine.reduce((s, l) => s + f(l), 0) / mine.length).toFixed(1);
    console.log(`  ${route}: ${mine.length} requests, ${avg((l) => l.transactions)} locking transactions each`);
    console.log(`    queries: ${avg((l) => l.queries.outside)} outside the lock, ${avg((l) => l.queries.inside)} inside (BEGIN and COMMIT counted)`);
    const batches = mine.map((l) => l.batch ?? 1).sort((a, b) => a - b);
    console.log(`    requests decided in the same locking transaction: p50 ${percentile(batches, 50)}, p99 ${percentile(batches, 99)}, max ${batches.at(-1) ?? 0}`);
    console.log(`    queued in the instance: ${spread(mine.map((l) => l.ms.queued))}`);
    console.log(`    waiting for the row lock: ${spread(mine.map((l) => l.ms.lockWait))}`);
    console.log(`    holding it: ${spread(mine.map((l) => l.ms.held))}`);
  }
  const holdLines = lines.filter((l) => /registration|payment-intent/.test(l.route)).length;
  console.log(`  holds that took the lock: ${holdLines} of ${holds.length} posted (the others were answered before it)`);
  const delta = (k: keyof typeof statusBefore) => statusAfter[k] - statusBefore[k];
  const per = (n: number) => (n / Math.max(1, holds.length)).toFixed(1);
  console.log(
    `MySQL's own counters over the run (the whole server): ${delta("Questions")} statements (${per(delta("Questions"))} per hold), ${delta("Com_commit")} commits, ` +
      `${delta("Innodb_row_lock_waits")} row lock waits (${per(delta("Innodb_row_lock_waits"))} per hold) for ${delta("Innodb_row_lock_time")} ms (${per(delta("Innodb_row_lock_time"))} ms per hold), ` +
      `${delta("Innodb_data_fsyncs")} fsyncs`,
  );
  if (lockWaitSummary) {
    const l = lockWaitSummary;
    console.log(`row-lock waits sampled every 50 ms (RUSH_LOCK_WAITS=1): ${l.withWaiter} of ${l.samples} samples found a waiter${l.error ? ` (sampling stopped: ${l.error})` : ""}; by lock (samples):`);
    for (const [lock, n] of l.byLock) console.log(`  ${String(n).padStart(6)}  ${lock}`);
    console.log("  by statement:");
    for (const [pair, n] of l.byStatements) console.log(`  ${String(n).padStart(6)}  ${pair}`);
  }
  if (SLOW_LOG_MS !== undefined) {
    console.log(`MySQL's slow log (statements over ${SLOW_LOG_MS} ms), the costliest:`);
    for (const s of slow) console.log(`  ${String(s.count).padStart(5)} × ${s.sql}: ${ms(s.totalMs)} in all (lock ${ms(s.lockMs)}), max ${ms(s.maxMs)}`);
    if (slow.length === 0) console.log("  none");
  }

  console.log("\nend state (database):");
  const returnOf = (reference: string) => results.find((r) => r.reference === reference)?.calls.filter((c) => c.step === "return").map((c) => (c.status === 0 ? "no answer" : String(c.status)));
  console.log(
    `  at the end of the rush (${settleSeconds.toFixed(1)} s after the last family): ${waiting.length} of ${charges.length} charges by Stripe neither registered nor refunded yet` +
      (waiting.length ? `, e.g. ${waiting.slice(0, 3).map((p) => `${p.detail}, its return answered ${returnOf(p.detail.split(":")[0]!)?.join(", ") || "nothing"}`).join("; ")}` : ""),
  );
  console.log(
    pass
      ? `  after the reconcile pass (the site's job, which every minute asks Stripe about the payments still open 5 minutes after they were made): ` +
          `${pass.asked} open payments asked about, ${pass.settled} settled; ${end.problems.filter((p) => p.rule === "lost").length} charges left neither registered nor refunded`
      : "  after the reconcile pass: not needed, no charge waited for it",
  );
  for (const e of end.events) {
    console.log(`  event ${e.id} ${e.title}: ${e.paidPlaces} paid + ${e.heldPlaces} held = ${e.paidPlaces + e.heldPlaces} of ${e.capacity} places (${e.athleteRows} athletes)`);
  }
  console.log(`  registrations: ${JSON.stringify(end.registrationsByStatus)}; payments: ${JSON.stringify(end.paymentsByStatus)}`);
  console.log(`  ${end.paid} paid registrations (${end.paidWithCode} with ${RUSH_CODE.code}), $${(end.paidCents / 100).toFixed(2)} recorded; ${end.charges} charges by Stripe, $${(end.chargedCents / 100).toFixed(2)}`);
  console.log(`  answers 5xx: ${fiveXX}; no answer: ${noAnswer}`);
  console.log(`  logs: ${path.relative(root, runDir)}/instance-*.log, stripe.log`);

  console.log("  checks:");
  for (const [rule, text] of Object.entries(RULES)) {
    const found = end.problems.filter((p) => p.rule === rule);
    console.log(`    ${found.length ? `${String(found.length).padStart(4)} ✗` : "   0 ✓"}  ${text}${found.length ? `, e.g. ${found.slice(0, 3).map((p) => p.detail).join("; ")}` : ""}`);
  }
  const problems = [...end.problems.map((p) => `${p.rule}: ${p.detail}`), ...(fiveXX ? [`${fiveXX} answers 5xx`] : []), ...(noAnswer ? [`${noAnswer} requests without an answer`] : [])];
  const returns = calls.filter((c) => c.step === "return").map((c) => c.ms).sort((a, b) => a - b);
  const p99Hold = round(percentile(holdMs, 99));
  const p99Return = round(percentile(returns, 99));
  writeResults(root, burst ? "rushBurst" : "rush", {
    date: new Date().toISOString(),
    machine: { cpus: os.cpus().length, loadAverage: loadAfter.map((l) => Math.round(l * 100) / 100) },
    families: FAMILIES,
    seconds: SECONDS,
    seed: SEED,
    outcomes,
    holds: { posted: holds.length, ok: held.length, perSecond: holdWindow ? held.length / holdWindow : 0, peakPerSecond: peak, p50Ms: percentile(holdMs, 50), p99Ms: p99Hold },
    returns: { p50Ms: percentile(returns, 50), p99Ms: p99Return },
    answers: Object.fromEntries(steps.map((step) => [step, calls.filter((c) => c.step === step).length])),
    cpuMsPerHold: Object.fromEntries(cpuRows.map(([name, used]) => [name, used === undefined ? null : used / Math.max(1, holds.length)])),
    systemCpuMs: Object.fromEntries(splits.map(([name, split]) => [name, split ? split.system : null])),
    ceiling: { familiesPerSecond: Math.floor((cores * 1000) / Math.max(0.001, perFamilyMs)), cores, cpuMsPerFamily: perFamilyMs },
    fiveXX,
    noAnswer,
    endState: end,
    atRushEnd: { waiting: waiting.map((p) => p.detail), problems: atRushEnd.problems.length },
    reconcilePass: pass ?? null,
    problems,
  });
  const mark = (ok: boolean) => (ok ? "met" : "MISSED");
  const goals = burst
    ? `p99 hold under ${GOALS.burst.p99HoldMs} ms: ${p99Hold} ms (${mark(p99Hold < GOALS.burst.p99HoldMs)}); at least ${GOALS.burst.peakHoldsPerSecond} holds/s at the peak: ${peak} (${mark(peak >= GOALS.burst.peakHoldsPerSecond)})`
    : `p99 hold under ${GOALS.steady.p99HoldMs} ms: ${p99Hold} ms (${mark(p99Hold < GOALS.steady.p99HoldMs)}); p99 return under ${GOALS.steady.p99ReturnMs} ms: ${p99Return} ms (${mark(p99Return < GOALS.steady.p99ReturnMs)})`;
  console.log(`\ngoals: 0 answers 5xx: ${fiveXX} (${mark(fiveXX === 0)}); 0 lost answers: ${noAnswer} (${mark(noAnswer === 0)}); ${goals}; exact end state: ${mark(end.problems.length === 0)}`);
  if (problems.length) {
    console.error(`\nNOT EXACT: ${problems.length} ${problems.length === 1 ? "problem" : "problems"} (answers 5xx counted as one; all in bench/results.json); exit 1`);
    exitCode = 1;
  } else console.log("\nEnd state exact, no 5xx.");
} finally {
  await Promise.all(servers.map((s) => s.stop()));
  if (stripe) await stopProcess(stripe);
  if (slowLogBefore) {
    await admin.query("SET GLOBAL slow_query_log = ?, long_query_time = ?, log_output = ?", [slowLogBefore.slow_query_log, slowLogBefore.long_query_time, slowLogBefore.log_output]);
  }
  if (process.env.RUSH_KEEP_DATABASE === "1") console.log(`the run's database is kept: ${database} (drop it when done)`);
  else await admin.query(`DROP DATABASE IF EXISTS \`${database}\``);
  await admin.end();
  for await (const keys of redis.scanIterator({ MATCH: `${prefix}*`, COUNT: 1000 })) if (keys.length) await redis.del(keys);
  await redis.close();
}
const profiles = CPU_PROFILE ? ([["instance 1", profileDir], ["the load generator", generatorProfileDir]] as const) : [];
for (const [who, dir] of profiles.filter(([, d]) => fs.existsSync(d))) {
  for (const file of fs.readdirSync(dir).filter((f) => f.endsWith(".cpuprofile"))) {
    const p = profileSummary(path.join(dir, file), root, rushWindow);
    const share = (t: number) => `${(t / 1000).toFixed(2).padStart(6)} s  ${((100 * t) / p.totalMs).toFixed(1).padStart(5)}%`;
    console.log(`\nCPU profile of ${who} during the rush (${path.relative(root, path.join(dir, file))}): ${(p.totalMs / 1000).toFixed(1)} s busy; self time by place:`);
    for (const [place, t] of p.byPlace) console.log(`  ${place.padEnd(40)} ${share(t)}`);
    console.log("the same time by the package or app code that ran it (Node's own and native code counted to its caller):");
    for (const [place, t] of p.byCaller) console.log(`  ${place.padEnd(40)} ${share(t)}`);
    console.log("the costliest functions (self time):");
    for (const [fn, t] of p.byFunction) console.log(`  ${(t / 1000).toFixed(2).padStart(6)} s  ${fn}`);
  }
}
process.exit(exitCode);

/**
 * Distinct free TCP ports on loopback: each asked of the system, all held until every one is known, then released for
 * the processes that will listen on them (released one by one, the system may give the same port twice).
 */
async function freePorts(count: number): Promise<number[]> {
  const net = await import("node:net");
  const servers = await Promise.all(
    Array.from({ length: count }, () =>
      new Promise<import("node:net").Server>((resolve, reject) => {
        const server = net.createServer();
        server.once("error", reject);
        server.listen(0, "127.0.0.1", () => resolve(server));
      }),
    ),
  );
  const ports = servers.map((s) => (s.address() as import("node:net").AddressInfo).port);
  await Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve))));
  return ports;
}
