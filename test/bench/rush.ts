/**
 * `npm run bench:rush`: registration opening. Two app instances (src/server.ts processes) share one fresh MySQL
 * database and one Redis prefix; RUSH_FAMILIES families (default 1,000) arrive within RUSH_SECONDS (default 60),
 * most of them early, each a real HTTP client pinned to one instance (see rushFamily.ts). Prints holds per second,
 * hold latency, every answer by status, and the end state read from the database; exits 1 when the end state
 * is not exact or any answer was a 5xx (or no answer at all).
 *
 *   RUSH_FAMILIES=1000 RUSH_SECONDS=60 RUSH_SEED=1 npm run bench:rush
 *   TEST_DATABASE_URL (default mysql://root@127.0.0.1:3306/test: its server is used, a database rush_* is made
 *   and dropped), TEST_REDIS_URL (default redis://127.0.0.1:6379; keys under rush-*: are removed afterwards)
 */
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import mysql from "mysql2/promise";
import { createClient } from "redis";
import { startServer, type RunningServer } from "../support/server.ts";
import { writeResults } from "./site.ts";
import { PUBLIC_URL, RUSH_CODE, runFamily, type Call, type FamilyPlan, type FamilyResult } from "./rushFamily.ts";
import { readEndState, RULES, unsettledCharges, type Charge } from "./rushEndState.ts";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
/** The four seeded events, 200 places each. */
const EVENT_IDS = [1, 2, 3, 4];
const INSTANCES = 2;
/** The mix: shares of families (each drawn on its own). */
const MIX = { team: 0.2, pay: 0.65, doubleSubmit: 0.1, code: 0.1 } as const;
const GOAL = { p99HoldMs: 500 } as const;

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

/** mulberry32: the same seed gives the same families. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function plans(): FamilyPlan[] {
  const r = random(SEED);
  return Array.from({ length: FAMILIES }, (_, i) => {
    const id = i + 1;
    const team = r() < MIX.team;
    return {
      id,
      instance: i % INSTANCES,
      address: `10.${(id >> 16) & 255}.${(id >> 8) & 255}.${id & 255}`,
      // Registration opening: arrivals crowd the first seconds (density falling over the window).
      arriveAtMs: Math.round(SECONDS * 1000 * r() ** 2),
      eventId: EVENT_IDS[Math.floor(r() * EVENT_IDS.length)]!,
      kind: team ? "team" : "individual",
      athletes: team ? 5 + Math.floor(r() * 8) : 1,
      packagePick: Math.floor(r() * 3),
      ending: r() < MIX.pay ? "pay" : "abandon",
      doubleSubmit: r() < MIX.doubleSubmit,
      useCode: r() < MIX.code,
    };
  });
}

const percentile = (sorted: number[], p: number) => (sorted.length ? sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]! : 0);
const round = (n: number) => Math.round(n);

const runId = randomBytes(4).toString("hex");
const database = `rush_${runId}`;
const prefix = `rush-${runId}:`;
const dbServer = new URL(process.env.TEST_DATABASE_URL || "mysql://root@127.0.0.1:3306/test");
dbServer.pathname = "/";
const redisUrl = process.env.TEST_REDIS_URL || "redis://127.0.0.1:6379";
const runDir = path.join(root, "var/bench-rush");
fs.rmSync(runDir, { recursive: true, force: true });
fs.mkdirSync(runDir, { recursive: true });

const redis = createClient({ url: redisUrl });
await redis.connect();
const admin = await mysql.createConnection({ uri: dbServer.toString(), timezone: "Z" });
await admin.query(`CREATE DATABASE \`${database}\` CHARACTER SET utf8mb4`);
const servers: RunningServer[] = [];
let exitCode = 0;
try {
  const secret = randomBytes(32).toString("hex");
  const databaseUrl = new URL(dbServer);
  databaseUrl.pathname = `/${database}`;
  // One after the other: the first runs the migrations.
  for (let i = 0; i < INSTANCES; i++) {
    servers.push(
      await startServer(
        {
          DATABASE_URL: databaseUrl.toString(),
          REDIS_URL: redisUrl,
          REDIS_PREFIX: prefix,
          SESSION_SECRET: secret,
          PUBLIC_URL,
          TRUST_PROXY_HOPS: "1",
          PAGE_CACHE_MS: "3000",
          MAIL_DIR: path.join(runDir, "mail"),
          UPLOAD_DIR: path.join(runDir, "uploads"),
          // Offline test mode: each instance runs its own fake Stripe (production refuses it, hence NODE_ENV=test).
          STRIPE_SECRET_KEY: "",
          STRIPE_PUBLISHABLE_KEY: "",
          STRIPE_WEBHOOK_SECRET: "",
        },
        { logFile: path.join(runDir, `instance-${i + 1}.log`) },
      ),
    );
  }
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
  console.log(
    `bench:rush ${runId}: ${FAMILIES} families within ${SECONDS} s (seed ${SEED}) on ${INSTANCES} instances, events ${EVENT_IDS.join(", ")} (200 places each); load average ${os.loadavg()[0]!.toFixed(1)}\n` +
      `  ${FAMILIES - teams.length} individuals, ${teams.length} teams of 5 to 12 (${teams.reduce((s, f) => s + f.athletes, 0)} athletes); ` +
      `${families.filter((f) => f.ending === "pay").length} mean to pay with 4242 4242 4242 4242, the others abandon after the hold; ` +
      `${families.filter((f) => f.doubleSubmit).length} double-submit; ${families.filter((f) => f.useCode).length} enter ${RUSH_CODE.code} (${RUSH_CODE.percent}% off, ${RUSH_CODE.maxRedemptions} uses)`,
  );

  const started = performance.now();
  const results: FamilyResult[] = await Promise.all(
    families.map((plan) => new Promise<FamilyResult>((resolve) => setTimeout(() => resolve(runFamily(servers[plan.instance]!.url, plan)), plan.arriveAtMs))),
  );
  const runSeconds = (performance.now() - started) / 1000;

  // Let the webhooks and returns still under way settle every charge (at most 30 s).
  const charges: Charge[] = results.flatMap((r) => (r.charged ? [r.charged] : []));
  const settleStarted = performance.now();
  while ((await unsettledCharges(admin, charges)) > 0 && performance.now() - settleStarted < 30_000) await new Promise((r) => setTimeout(r, 500));
  const end = await readEndState(admin, EVENT_IDS, charges, new Date());

  // ---- the report ----
  const calls: Call[] = results.flatMap((r) => r.calls);
  const holds = calls.filter((c) => c.step === "hold");
  const holdMs = holds.map((c) => c.ms).sort((a, b) => a - b);
  const held = holds.filter((c) => c.status === 200);
  // From the first successful hold sent to the last one answered.
  const holdWindow = held.length ? (Math.max(...held.map((c) => c.at + c.ms)) - Math.min(...held.map((c) => c.at))) / 1000 : 0;
  const fiveXX = calls.filter((c) => c.status >= 500).length;
  const noAnswer = calls.filter((c) => c.status === 0).length;

  console.log(`\nran ${runSeconds.toFixed(1)} s; settled ${((performance.now() - settleStarted) / 1000).toFixed(1)} s after`);
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
  console.log("\nanswers by step and status:");
  const byStep = new Map<string, Map<number, number>>();
  for (const c of calls) {
    const m = byStep.get(c.step) ?? new Map<number, number>();
    m.set(c.status, (m.get(c.status) ?? 0) + 1);
    byStep.set(c.step, m);
  }
  for (const [step, m] of byStep) {
    const ms = calls.filter((c) => c.step === step).map((c) => c.ms).sort((a, b) => a - b);
    console.log(`  ${step.padEnd(9)} ${[...m].sort(([a], [b]) => a - b).map(([s, n]) => `${s === 0 ? "no answer" : s}: ${n}`).join(", ")}   (p50 ${round(percentile(ms, 50))} ms, p99 ${round(percentile(ms, 99))} ms)`);
  }
  const errors = new Map<string, number>();
  for (const c of calls.filter((c) => c.status >= 400 || c.status === 0)) {
    const key = `${c.step} ${c.status === 0 ? "no answer" : c.status}: ${c.message ?? ""}`;
    errors.set(key, (errors.get(key) ?? 0) + 1);
  }
  if (errors.size) {
    console.log("errors by status and message:");
    for (const [k, n] of [...errors].sort((a, b) => b[1] - a[1])) console.log(`  ${String(n).padStart(5)}  ${k}`);
  }

  console.log("\nend state (database):");
  for (const e of end.events) {
    console.log(`  event ${e.id} ${e.title}: ${e.paidPlaces} paid + ${e.heldPlaces} held = ${e.paidPlaces + e.heldPlaces} of ${e.capacity} places (${e.athleteRows} athletes)`);
  }
  console.log(`  registrations: ${JSON.stringify(end.registrationsByStatus)}; payments: ${JSON.stringify(end.paymentsByStatus)}`);
  console.log(`  ${end.paid} paid registrations (${end.paidWithCode} with ${RUSH_CODE.code}), $${(end.paidCents / 100).toFixed(2)} recorded; ${end.charges} charges by Stripe, $${(end.chargedCents / 100).toFixed(2)}`);
  console.log(`  answers 5xx: ${fiveXX}; no answer: ${noAnswer}`);
  console.log(`  logs: ${path.relative(root, runDir)}/instance-*.log`);

  console.log("  checks:");
  for (const [rule, text] of Object.entries(RULES)) {
    const found = end.problems.filter((p) => p.rule === rule);
    console.log(`    ${found.length ? `${String(found.length).padStart(4)} ✗` : "   0 ✓"}  ${text}${found.length ? `, e.g. ${found.slice(0, 3).map((p) => p.detail).join("; ")}` : ""}`);
  }
  const problems = [...end.problems.map((p) => `${p.rule}: ${p.detail}`), ...(fiveXX ? [`${fiveXX} answers 5xx`] : []), ...(noAnswer ? [`${noAnswer} requests without an answer`] : [])];
  writeResults(root, "rush", {
    date: new Date().toISOString(),
    machine: { cpus: os.cpus().length, loadAverage: os.loadavg().map((l) => Math.round(l * 100) / 100) },
    families: FAMILIES,
    seconds: SECONDS,
    seed: SEED,
    outcomes,
    holds: { posted: holds.length, ok: held.length, perSecond: holdWindow ? held.length / holdWindow : 0, p50Ms: percentile(holdMs, 50), p99Ms: percentile(holdMs, 99) },
    answers: Object.fromEntries([...byStep].map(([step, m]) => [step, Object.fromEntries(m)])),
    fiveXX,
    endState: end,
    problems,
  });
  const p99 = round(percentile(holdMs, 99));
  const mark = (ok: boolean) => (ok ? "met" : "MISSED");
  console.log(`\ngoals of the code: 0 answers 5xx: ${fiveXX} (${mark(fiveXX === 0)}); p99 hold under ${GOAL.p99HoldMs} ms: ${p99} ms (${mark(p99 < GOAL.p99HoldMs)}); exact end state: ${mark(end.problems.length === 0)}`);
  if (problems.length) {
    console.error(`\nNOT EXACT: ${problems.length} ${problems.length === 1 ? "problem" : "problems"} (answers 5xx counted as one; all in bench/results.json); exit 1`);
    exitCode = 1;
  } else console.log("\nEnd state exact, no 5xx.");
} finally {
  await Promise.all(servers.map((s) => s.stop()));
  await admin.query(`DROP DATABASE IF EXISTS \`${database}\``);
  await admin.end();
  for await (const keys of redis.scanIterator({ MATCH: `${prefix}*`, COUNT: 1000 })) if (keys.length) await redis.del(keys);
  await redis.close();
}
process.exit(exitCode);
