/**
 * What a paying family's visit costs the site, route by route, counted rather than timed: N families one after
 * another open the form's page, post the hold, open the payment step (a team's checkout page), pay at the offline
 * Stripe, report the payment back (the return) and open the page they land on. For each step: MySQL statements (the
 * bench's counting proxy), Redis commands (the server's `INFO commandstats`) and the site's CPU time (/proc), per
 * family, each step counted with the work it started (an e-mail job, say). `--sql` prints the statements of the last family of each kind, step by step.
 * Production settings on MySQL + Redis (test/bench/site.ts). Give Redis a server of its own (BENCH_REDIS_URL):
 * commandstats count every client of the server.
 *
 *   node --import tsx test/bench/visit.ts [--families 60] [--sql]
 */
import fs from "node:fs";
import path from "node:path";
import mysql from "mysql2/promise";
import { createClient } from "redis";
import { PUBLIC_URL, proxyHeaders, startBenchSite } from "./site.ts";
import { cpuMs, profileSummary } from "./rushMetrics.ts";

const args = process.argv.slice(2);
const familiesArg = args.indexOf("--families");
const FAMILIES = familiesArg >= 0 ? Number(args[familiesArg + 1]) : 60;
const SHOW_SQL = args.includes("--sql");
const PROFILE_DIR = args.includes("--prof") ? path.resolve("var/bench-visit") : undefined;
const EVENT = 2;
/** Every fifth family is a team of TEAM_SIZE; every tenth enters the code. */
const TEAM_SIZE = 5;
const CODE = "VISIT10";
type Step = "page" | "hold" | "checkout" | "return" | "landing";
type Json = Record<string, unknown>;

if (PROFILE_DIR) fs.rmSync(PROFILE_DIR, { recursive: true, force: true });
const site = await startBenchSite({ embedded: false, nodeArgs: PROFILE_DIR ? ["--cpu-prof", `--cpu-prof-dir=${PROFILE_DIR}`] : undefined });
const redis = createClient({ url: process.env.BENCH_REDIS_URL ?? "redis://127.0.0.1:6379" });
await redis.connect();

async function redisCalls(): Promise<number> {
  const text = String(await redis.info("commandstats"));
  let n = 0;
  for (const m of text.matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm)) n += Number(m[2]);
  return n;
}

/** Each family's figures for one route. */
interface Totals {
  statements: number[];
  redis: number[];
  cpuMs: number[];
}
const totals = new Map<string, Totals>();
let window: { fromUs: number; toUs: number } | undefined;
const sqlOf = new Map<string, string[]>();

/** Runs one step of a family's visit and adds what it cost to its route's totals (`kind step`). */
async function counted<T>(kind: string, step: Step, work: () => Promise<T>): Promise<T> {
  const texts = site.statementTexts!;
  // What earlier steps started (e-mail jobs, say) is theirs: the step starts once the database has been quiet a while,
  // and ends once it is quiet again, so what it started itself is counted with it.
  await quiet();
  texts.length = 0;
  const statements = site.statements()!;
  const calls = await redisCalls();
  const cpu = cpuMs(site.pid!)!;
  const out = await work();
  await quiet();
  const t = totals.get(`${kind} ${step}`) ?? { statements: [], redis: [], cpuMs: [] };
  t.cpuMs.push(cpuMs(site.pid!)! - cpu);
  t.statements.push(site.statements()! - statements);
  // The INFO that reads the counters is counted too: one before, one after.
  t.redis.push((await redisCalls()) - calls - 1);
  totals.set(`${kind} ${step}`, t);
  sqlOf.set(`${kind} ${step}`, [...texts]);
  return out;
}

/** Until no statement has reached MySQL for QUIET_MS (the site's timers aside, which run every few seconds at most). */
const QUIET_MS = 150;
async function quiet(): Promise<void> {
  for (let seen = -1; seen !== site.statements(); ) {
    seen = site.statements()!;
    await new Promise((resolve) => setTimeout(resolve, QUIET_MS));
  }
}

class Family {
  private cookies = new Map<string, string>();
  token = "";
  constructor(private address: string) {}
  private headers(extra: Record<string, string> = {}): Record<string, string> {
    return { ...proxyHeaders, "x-forwarded-for": this.address, "accept-encoding": "gzip, deflate, br", cookie: [...this.cookies].map(([k, v]) => `${k}=${v}`).join("; "), ...extra };
  }
  private keep(res: Response) {
    for (const line of res.headers.getSetCookie()) {
      const pair = line.split(";")[0]!;
      this.cookies.set(pair.slice(0, pair.indexOf("=")), pair.slice(pair.indexOf("=") + 1));
    }
  }
  async page(path: string): Promise<string> {
    const res = await fetch(`${site.url}${path}`, { headers: this.headers({ accept: "text/html" }) });
    this.keep(res);
    const html = await res.text();
    if (res.status !== 200) throw new Error(`${path} answered ${res.status}`);
    this.token = /<meta name="csrf-token" content="([^"]*)"/.exec(html)?.[1] ?? this.token;
    return html;
  }
  async post(path: string, body: unknown): Promise<Json> {
    const res = await fetch(`${site.url}${path}`, {
      method: "POST",
      headers: this.headers({ "content-type": "application/json", accept: "application/json", "x-csrf-token": this.token, origin: PUBLIC_URL }),
      body: JSON.stringify(body),
    });
    this.keep(res);
    const json = (await res.json()) as Json;
    if (res.status !== 200) throw new Error(`${path} answered ${res.status}: ${JSON.stringify(json).slice(0, 200)}`);
    return json;
  }
}

async function pay(publishableKey: string, clientSecret: string): Promise<string> {
  const intentId = clientSecret.split("_secret_")[0]!;
  const body = new URLSearchParams({
    key: publishableKey,
    client_secret: clientSecret,
    "payment_method_data[type]": "card",
    "payment_method_data[card][number]": "4242424242424242",
    "payment_method_data[card][exp_month]": "12",
    "payment_method_data[card][exp_year]": "2034",
    "payment_method_data[card][cvc]": "123",
  });
  const res = await fetch(`${site.stripeUrl}/v1/payment_intents/${encodeURIComponent(intentId)}/confirm`, { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" }, body });
  const json = (await res.json()) as Json;
  if (json.status !== "succeeded") throw new Error(`the card was not charged: ${JSON.stringify(json).slice(0, 200)}`);
  return intentId;
}

function propsOf(html: string, widget: string): Json {
  const at = html.indexOf(`data-widget="${widget}"`);
  const m = /<script type="application\/json" id="[^"]*-props">([\s\S]*?)<\/script>/.exec(html.slice(at));
  return JSON.parse(m?.[1] ?? "{}") as Json;
}

async function visit(i: number): Promise<void> {
  const team = i % 5 === 4;
  const kind = team ? "team" : "individual";
  const f = new Family(`198.51.${100 + Math.floor(i / 250)}.${(i % 250) + 1}`);
  const code = i % 10 === 9 ? { discountCode: CODE } : {};
  const html = await counted(kind, "page", () => f.page(team ? `/team-register/${EVENT}` : `/register/${EVENT}`));
  const props = propsOf(html, team ? "TeamForm" : "RegistrationSteps");
  const formSessionId = (props.values as Json | undefined)?.formSessionId;
  let publishableKey = typeof props.publishableKey === "string" ? props.publishableKey : "";
  let clientSecret: string;
  let intentId: string;
  if (team) {
    const price = Number(props.teamPriceCents) / 100;
    await counted(kind, "hold", () =>
      f.post("/api/team-registration", {
        eventId: EVENT,
        formSessionId,
        coachInfo: { firstName: "Coach", lastName: `Visit${i}`, email: `coach${i}@example.com`, phone: "205-555-0102", teamName: `Visit Team ${i}` },
        athletes: Array.from({ length: TEAM_SIZE }, (_, a) => ({ firstName: `A${a}`, lastName: `Visit${i}`, age: 12 + a, email: `a${a}.${i}@example.com`, shirtSize: "Medium", parentName: "Pat Visit", parentPhoneNumber: "205-555-0103" })),
        pricePerAthlete: price,
        totalAmount: price * TEAM_SIZE,
        discountedAmount: price * TEAM_SIZE,
        discountCode: code.discountCode ?? null,
      }),
    );
    const checkout = await counted(kind, "checkout", () => f.page(`/stripe-checkout?eventId=${EVENT}&option=team`));
    publishableKey = /"publishableKey":"(pk_[^"]+)"/.exec(checkout)?.[1] ?? "";
    clientSecret = /"clientSecret":"([^"]+)"/.exec(checkout)?.[1] ?? "";
    intentId = await pay(publishableKey, clientSecret);
    await counted(kind, "return", () => f.post(`/api/events/${EVENT}/stripe-payment-success`, { paymentIntentId: intentId, option: "team" }));
    await counted(kind, "landing", () => f.page(`/stripe-checkout?eventId=${EVENT}&option=team&success=true`));
  } else {
    const held = await counted(kind, "hold", () =>
      f.post(`/api/events/${EVENT}/create-payment-intent`, {
        option: "full",
        formSessionId,
        registrationData: {
          registrationType: "full", firstName: `Visit${i}`, lastName: "Bench", email: `visit${i}@example.com`, phone: "205-555-0100", grade: "10", gender: "Female",
          schoolName: "Bench High", tShirtSize: "Medium", emergencyContactName: "Pat Bench", emergencyContactPhone: "205-555-0101", adult: "on", agrees: "on", ...code,
        },
      }),
    );
    clientSecret = String(held.clientSecret);
    intentId = await pay(publishableKey, clientSecret);
    const back = await counted(kind, "return", () => f.post(`/api/events/${EVENT}/stripe-payment-success`, { paymentIntentId: intentId }));
    if (back.status !== "paid") throw new Error(`the return answered ${JSON.stringify(back).slice(0, 200)}`);
    await counted(kind, "landing", () => f.page(`/event-registration/${EVENT}?paymentSuccess=true&paymentIntentId=${encodeURIComponent(intentId)}`));
  }
}

try {
  await addCode();
  // Two families first (not counted): scripts loaded, connections made, code paths compiled.
  await visit(-1 + 5000).catch((err: Error) => console.error(`warm-up: ${err.message}`));
  await visit(4 + 5000).catch((err: Error) => console.error(`warm-up: ${err.message}`));
  totals.clear();
  const fromUs = Number(process.hrtime.bigint() / 1000n);
  for (let i = 0; i < FAMILIES; i++) await visit(i);
  window = { fromUs, toUs: Number(process.hrtime.bigint() / 1000n) };
  console.log(`${FAMILIES} families, one after another (every fifth a team of ${TEAM_SIZE}, every tenth with a code); per family,`);
  console.log("the median (the route's own count: the site's timers land in a step now and then) and the mean:");
  console.log("  route                  statements         redis          site CPU ms");
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
  const both = (xs: number[]) => `${String(median(xs)).padStart(5)} ${mean(xs).toFixed(2).padStart(7)}`;
  const sum = new Map<string, { statements: number; redis: number; cpuMs: number }>();
  for (const [route, t] of totals) {
    console.log(`  ${route.padEnd(22)} ${both(t.statements)}   ${both(t.redis)}   ${both(t.cpuMs)}`);
    const kind = route.split(" ")[0]!;
    const v = sum.get(kind) ?? { statements: 0, redis: 0, cpuMs: 0 };
    v.statements += mean(t.statements);
    v.redis += mean(t.redis);
    v.cpuMs += mean(t.cpuMs);
    sum.set(kind, v);
  }
  for (const [kind, v] of sum) console.log(`  ${`${kind} visit (means)`.padEnd(22)} ${v.statements.toFixed(2).padStart(13)}   ${v.redis.toFixed(2).padStart(13)}   ${v.cpuMs.toFixed(2).padStart(13)}`);
  if (SHOW_SQL) {
    for (const [route, texts] of sqlOf) {
      console.log(`\n${route} (the last family's ${texts.length} statements):`);
      for (const t of texts) console.log(`  ${t.replace(/[\x00-\x1f]/g, " ").slice(0, 150)}`);
    }
  }
} finally {
  await redis.close();
  await site.stop();
}
if (PROFILE_DIR && window) {
  const file = fs.readdirSync(PROFILE_DIR).find((f) => f.endsWith(".cpuprofile"))!;
  const p = profileSummary(path.join(PROFILE_DIR, file), process.cwd(), window);
  const share = (t: number) => `${(t / FAMILIES).toFixed(2).padStart(6)} ms/family ${((100 * t) / p.totalMs).toFixed(1).padStart(5)}%`;
  console.log(`\nthe site's CPU profile over the counted visits: ${(p.totalMs / FAMILIES).toFixed(1)} ms busy per family; by the package or app code that ran it:`);
  for (const [place, t] of p.byCaller.slice(0, 16)) console.log(`  ${place.padEnd(32)} ${share(t)}`);
  console.log("the costliest functions (self time):");
  for (const [fn, t] of p.byFunction.slice(0, 16)) console.log(`  ${share(t)}  ${fn}`);
}

/** The code every tenth family enters (10% off, no limit reached), written straight into the site's database. */
async function addCode(): Promise<void> {
  const admin = await mysql.createConnection(`${(process.env.BENCH_DATABASE_URL ?? "mysql://root@127.0.0.1:3306").replace(/\/$/, "")}/${site.database}`);
  await admin.query("INSERT INTO discount_codes (code, discount_type, value, event_id, kind, max_redemptions, active, created_at) VALUES (?, 'percent', 10, NULL, 'both', 1000, 1, NOW())", [CODE]);
  await admin.end();
}
