/**
 * The load generator's own CPU per family, without the rush: the generator of `npm run bench:rush`
 * (test/bench/rushLoad.ts) runs the rush's families against a stub (rushGenStub.ts) that answers with the site's and
 * fake Stripe's recorded answers, so that only the generator's work is counted; an earlier version of the
 * generator (`--before <git ref>`, default main) runs the same families, the two alternating, and each run's CPU
 * (user + system, from /proc, the process's whole life as the bench counts it) is printed per family.
 *
 *   node --import tsx test/bench/rushGenMeasure.ts [--families 1000] [--seconds 30] [--seed 1] [--rounds 3]
 *     [--before main | --no-before] [--record]
 *
 * The answers are recorded once (var/bench-gen/recorded.json; `--record` records them again): the production build,
 * one instance in production mode on a fresh MySQL database (TEST_DATABASE_URL) and Redis prefix (TEST_REDIS_URL),
 * the fake Stripe, and one individual and one team family of the rush sent through a recording proxy.
 */
import { randomBytes } from "node:crypto";
import { execFileSync, spawn } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { fileURLToPath } from "node:url";
import mysql from "mysql2/promise";
import { createClient } from "redis";
import { startServer } from "../support/server.ts";
import { startFakeStripe } from "../../src/payments/offline/fakeStripeServer.ts";
import { PUBLIC_URL, RUSH_CODE, runFamily, type FamilyPlan, type FamilyResult } from "./rushFamily.ts";
import type { LoadInput } from "./rushLoad.ts";
import { cpuMs } from "./rushMetrics.ts";
import { familyPlans } from "./rushPlans.ts";
import { buildGenerator } from "./rushGenBuild.ts";
import { stepOf, type Recorded, type RecordedAnswer, type StubStep } from "./rushGenStub.ts";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const workDir = path.join(root, "var/bench-gen");
const recordedFile = path.join(workDir, "recorded.json");

const args = process.argv.slice(2);
const option = (name: string, fallback: string) => {
  const at = args.indexOf(`--${name}`);
  return at >= 0 && args[at + 1] ? args[at + 1]! : fallback;
};
const FAMILIES = Number(option("families", "1000"));
const SECONDS = Number(option("seconds", "30"));
const SEED = Number(option("seed", "1"));
const ROUNDS = Number(option("rounds", "3"));
const BEFORE = args.includes("--no-before") ? undefined : option("before", "main");

/** What the busy site took to answer in the rush (about), so that as many connections stay open as there. */
const DELAY_MS: Recorded["delayMs"] = {
  "page-individual": 200,
  "page-team": 200,
  "hold-individual": 800,
  "hold-team": 800,
  checkout: 200,
  confirm: 20,
  return: 400,
  "landing-individual": 100,
  "landing-team": 100,
};

fs.mkdirSync(workDir, { recursive: true });
if (args.includes("--record") || !fs.existsSync(recordedFile)) await record();

/** One generator to measure: its rushLoad.ts and the node arguments it runs with. */
interface Generator {
  name: string;
  script: string;
  nodeArgs: string[];
}
const generators: Generator[] = [];
if (BEFORE) {
  // The earlier version's bench and shared modules, in the same layout (its imports are relative).
  const dir = path.join(workDir, "before");
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(dir, { recursive: true });
  execFileSync("sh", ["-c", `git archive "$1" test/bench src/shared | tar -x -C "$2"`, "sh", BEFORE, dir], { cwd: root });
  // It runs as the bench ran it before the generator was compiled before the run: through tsx.
  generators.push({ name: `before (${BEFORE})`, script: path.join(dir, "test/bench/rushLoad.ts"), nodeArgs: ["--import", "tsx"] });
}
// As the bench runs it: compiled first.
generators.push({ name: "this tree", script: buildGenerator(workDir), nodeArgs: [] });
const stub = spawn(process.execPath, ["test/bench/rushGenStub.ts", recordedFile], { cwd: root, stdio: ["ignore", "pipe", "inherit"] });
const stubUrl = await new Promise<string>((resolve, reject) => {
  stub.stdout.once("data", (chunk: Buffer) => {
    const m = /listening on (\S+)/.exec(chunk.toString());
    if (m) resolve(m[1]!);
    else reject(new Error(`the stub said: ${chunk.toString()}`));
  });
  stub.once("exit", (code) => reject(new Error(`the stub exited with ${code}`)));
});
const plans = familyPlans({ families: FAMILIES, seconds: SECONDS, seed: SEED, instances: 2 });
const inputFile = path.join(workDir, "load-input.json");
fs.writeFileSync(inputFile, JSON.stringify({ instances: [stubUrl, stubUrl], stripeUrl: stubUrl, plans } satisfies LoadInput));
console.log(`the generator's CPU per family: ${FAMILIES} families of the rush (seed ${SEED}) within ${SECONDS} s against the recorded answers, ${ROUNDS} rounds`);

const figures = new Map<string, number[]>(generators.map((g) => [g.name, []]));
try {
  for (let round = 1; round <= ROUNDS; round++) {
    for (const g of generators) {
      const { cpu, outcomes, seconds } = await runGenerator(g);
      figures.get(g.name)!.push(cpu / FAMILIES);
      console.log(
        `  round ${round} ${g.name.padEnd(22)} ${(cpu / FAMILIES).toFixed(2)} ms per family (${(cpu / 1000).toFixed(2)} s in ${seconds.toFixed(1)} s; ${Object.entries(outcomes).map(([k, v]) => `${v} ${k}`).join(", ")})`,
      );
    }
  }
} finally {
  stub.kill("SIGTERM");
}
for (const [name, values] of figures) {
  const sorted = [...values].sort((a, b) => a - b);
  console.log(`${name}: ${sorted.map((v) => v.toFixed(2)).join(", ")} ms per family (median ${sorted[Math.floor(sorted.length / 2)]!.toFixed(2)})`);
}

async function runGenerator(g: Generator): Promise<{ cpu: number; outcomes: Record<string, number>; seconds: number }> {
  const resultFile = path.join(workDir, "load-results.json");
  fs.rmSync(resultFile, { force: true });
  const child = spawn(process.execPath, [...g.nodeArgs, g.script, inputFile, resultFile], { cwd: root, stdio: ["ignore", "inherit", "inherit"] });
  let cpu = 0;
  const poll = setInterval(() => {
    const now = child.pid ? cpuMs(child.pid) : undefined;
    if (now !== undefined) cpu = now;
  }, 20);
  const code = await new Promise<number | null>((resolve) => child.once("exit", resolve));
  clearInterval(poll);
  if (code !== 0) throw new Error(`${g.name}: the generator exited with ${code}`);
  const load = JSON.parse(fs.readFileSync(resultFile, "utf8")) as { seconds: number; results: FamilyResult[] };
  const outcomes: Record<string, number> = {};
  for (const r of load.results) outcomes[r.outcome] = (outcomes[r.outcome] ?? 0) + 1;
  return { cpu, outcomes, seconds: load.seconds };
}

/** Records the answers of the site (production mode, MySQL + Redis) and of the fake Stripe to one family of each kind. */
async function record(): Promise<void> {
  console.log("recording the site's answers (production build, one instance, fake Stripe)...");
  execFileSync(process.execPath, ["esbuild.config.mjs"], { cwd: root, env: { ...process.env, NODE_ENV: "production" }, stdio: "pipe" });
  const runId = randomBytes(4).toString("hex");
  const database = `rushgen_${runId}`;
  const prefix = `rushgen-${runId}:`;
  const dbServer = new URL(process.env.TEST_DATABASE_URL || "mysql://root@127.0.0.1:3306/test");
  dbServer.pathname = "/";
  const redisUrl = process.env.TEST_REDIS_URL || "redis://127.0.0.1:6379";
  const admin = await mysql.createConnection({ uri: dbServer.toString(), timezone: "Z" });
  await admin.query(`CREATE DATABASE \`${database}\` CHARACTER SET utf8mb4`);
  const stripe = await startFakeStripe();
  const answers: Recorded["answers"] = {};
  let proxy: http.Server | undefined;
  let instance: Awaited<ReturnType<typeof startServer>> | undefined;
  try {
    const databaseUrl = new URL(dbServer);
    databaseUrl.pathname = `/${database}`;
    instance = await startServer(
      {
        NODE_ENV: "production",
        DATABASE_URL: databaseUrl.toString(),
        REDIS_URL: redisUrl,
        REDIS_PREFIX: prefix,
        SESSION_SECRET: randomBytes(32).toString("hex"),
        PUBLIC_URL,
        TRUST_PROXY_HOPS: "1",
        PAGE_CACHE_MS: "3000",
        MAIL_FILES_IN_PRODUCTION: "1",
        MAIL_DIR: path.join(workDir, "mail"),
        UPLOAD_DIR: path.join(workDir, "uploads"),
        STRIPE_SECRET_KEY: stripe.secretKey,
        STRIPE_PUBLISHABLE_KEY: stripe.publishableKey,
        STRIPE_WEBHOOK_SECRET: stripe.webhookSecret,
        STRIPE_API_URL: `http://${stripe.host}:${stripe.port}`,
      },
      { logFile: path.join(workDir, "instance.log") },
    );
    stripe.setWebhookUrl(`${instance.url}/api/stripe/webhook`);
    await admin.query(`USE \`${database}\``);
    await admin.query("INSERT INTO discount_codes (code, discount_type, value, event_id, kind, max_redemptions, active, created_at) VALUES (?, 'percent', ?, NULL, 'both', ?, 1, ?)", [
      RUSH_CODE.code,
      RUSH_CODE.percent,
      RUSH_CODE.maxRedemptions,
      new Date(),
    ]);
    const site = new URL(instance.url);
    proxy = http.createServer((req, res) => {
      const toStripe = req.url!.startsWith("/v1/");
      const upstream = http.request({ host: toStripe ? stripe.host : site.hostname, port: toStripe ? stripe.port : site.port, path: req.url, method: req.method, headers: req.headers }, (up) => {
        const chunks: Buffer[] = [];
        up.on("data", (c: Buffer) => chunks.push(c));
        up.once("end", () => {
          const body = Buffer.concat(chunks);
          const step = stepOf(req.method!, req.url!);
          const headers: RecordedAnswer["headers"] = {};
          for (const [k, v] of Object.entries(up.headers)) if (v !== undefined && !["date", "connection", "keep-alive", "content-length"].includes(k)) headers[k] = v;
          if (step && up.statusCode === 200 && !answers[step]) answers[step] = { status: 200, headers, body: body.toString("base64") };
          res.writeHead(up.statusCode!, headers).end(body);
        });
      });
      req.pipe(upstream);
    });
    await new Promise<void>((resolve) => proxy!.listen(0, "127.0.0.1", resolve));
    const proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
    const family = (id: number, kind: FamilyPlan["kind"]): FamilyPlan => ({
      id,
      instance: 0,
      address: `10.0.0.${id}`,
      arriveAtMs: 0,
      eventId: 2,
      kind,
      athletes: kind === "team" ? 8 : 1,
      packagePick: 0,
      ending: "pay",
      doubleSubmit: false,
      useCode: false,
    });
    for (const plan of [family(1, "individual"), family(2, "team")]) {
      const result = await runFamily(proxyUrl, proxyUrl, plan);
      if (result.outcome !== "paid") throw new Error(`the ${plan.kind} family to record ended ${result.outcome}: ${JSON.stringify(result.calls)}`);
    }
    const missing = (Object.keys(DELAY_MS) as StubStep[]).filter((s) => !answers[s]);
    if (missing.length) throw new Error(`not recorded: ${missing.join(", ")}`);
    fs.writeFileSync(recordedFile, JSON.stringify({ answers, delayMs: DELAY_MS } satisfies Recorded));
    console.log(`recorded ${Object.keys(answers).length} answers to ${path.relative(root, recordedFile)}`);
  } finally {
    proxy?.close();
    await instance?.stop();
    await stripe.close();
    await admin.query(`DROP DATABASE IF EXISTS \`${database}\``);
    await admin.end();
    const redis = createClient({ url: redisUrl });
    await redis.connect();
    for await (const keys of redis.scanIterator({ MATCH: `${prefix}*`, COUNT: 1000 })) if (keys.length) await redis.del(keys);
    await redis.close();
  }
}
