/**
 * What one settlement costs, counted rather than timed: families hold, their cards are confirmed at the offline
 * Stripe, then each payment is settled through the real routes, one request at a time: the return after paying
 * (POST /api/events/:id/stripe-payment-success) and Stripe's webhook (POST /api/stripe/webhook), in both orders.
 * Per request: statements inside the settling transaction's lock and outside it (the instances' own "row lock" log
 * line, BEGIN and COMMIT counted, as `npm run bench:rush` reads it) and the process's CPU (process.cpuUsage over
 * the settling requests alone: the app, supertest's client and the in-process fake Stripe together).
 *
 *   TEST_BACKEND=mysql TEST_DATABASE_URL=mysql://root@127.0.0.1:3306/test TEST_REDIS_URL=redis://127.0.0.1:6379 \
 *     node --import tsx test/bench/settlements.ts [--families 40]
 * (without TEST_BACKEND: in-memory SQLite).
 */
import { Writable } from "node:stream";
import { createPayingTestApp } from "../support/app.ts";
import { visitor } from "../support/http.ts";
import { createLogger } from "../../src/logger.ts";
import { insertCode } from "../../src/discounts/repository.ts";

const args = process.argv.slice(2);
const familiesArg = args.indexOf("--families");
const FAMILIES = familiesArg >= 0 ? Number(args[familiesArg + 1]) : 40;
/** --show: the statements of each kind and order's first settlement, those inside a transaction marked. */
const SHOW = args.includes("--show");
const CODE = "SETTLE10";

/** The "row lock" lines the app logs (src/db/queryLog.ts), in order. */
const lockLines: { route: string; queries: { outside: number; inside: number } }[] = [];
const logs = new Writable({
  write(chunk: Buffer, _enc, done) {
    for (const line of chunk.toString().split("\n")) {
      if (!line.includes('"row lock"')) continue;
      const l = JSON.parse(line) as { route: string; queries: { outside: number; inside: number } };
      lockLines.push({ route: l.route, queries: l.queries });
    }
    done();
  },
});

const t = await createPayingTestApp({ LOG_LEVEL: "info", TRUST_PROXY_HOPS: "1" }, { logger: createLogger("info", logs) });
t.fake.autoDeliver = false;
// Room for every family (event 2 seats 100).
await t.db("events").where({ id: 2 }).update({ capacity: 100_000 });
await insertCode(t.db, { code: CODE, type: "percent", value: 10, eventId: null, kind: "individual", maxRedemptions: null, startsAt: null, expiresAt: null }, new Date());
// Every statement the app sends but the outbox's own (woken after COMMIT, it sends the queued e-mails on its own
// time; the queued e-mails' inserts are the settlement's) and the kept events' version check (shared by requests).
let statements = 0;
let shown: string[] | undefined;
t.db.on("query", (q: { sql: string; __knexTxId?: string }) => {
  const s = q.sql.trim().toLowerCase();
  if (s.includes("content_versions")) return;
  if (s.includes("email_outbox") && !s.startsWith("insert")) return;
  statements += 1;
  shown?.push(`${q.__knexTxId ? "  in trx " : "         "}${q.sql.slice(0, 150)}`);
});

type Kind = "individual" | "team of 8" | "individual with a code";
const ATHLETE = {
  firstName: "Maya", lastName: "Okafor", email: "maya.okafor@example.com", phone: "(205) 555-0100", grade: "9th", gender: "Female",
  schoolName: "Central High", emergencyContactName: "Ada Okafor", emergencyContactPhone: "205-555-0199", adult: "on", agrees: "on",
};
const COACH = { firstName: "Dana", lastName: "Brooks", email: "coach.brooks@example.com", phone: "(205) 555-0142", teamName: "Steel City WC" };
const teamOf = (n: number) => Array.from({ length: n }, (_, i) => ({ firstName: `Kid${i}`, lastName: "Brooks", age: 12 + (i % 6), email: `kid${i}@example.com`, shirtSize: "Medium", parentName: `Parent ${i}`, parentPhoneNumber: "205-555-0100" }));

let seq = 0;
async function heldAndConfirmed(kind: Kind) {
  const v = await visitor(t.app);
  // Each family its own address (the registration routes limit attempts per address).
  const address = `198.18.${Math.floor(seq / 250)}.${(seq % 250) + 1}`;
  const form = `settle-${++seq}-${Date.now()}`;
  const held =
    kind === "team of 8"
      ? await v.post("/api/team-registration").set("x-forwarded-for", address).send({ eventId: 2, coachInfo: COACH, athletes: teamOf(8), pricePerAthlete: 199, totalAmount: 1592, discountedAmount: 1592, discountCode: null, formSessionId: form })
      : await v.post("/api/events/2/create-payment-intent").set("x-forwarded-for", address).send({ option: "1day", formSessionId: form, ...(kind === "individual with a code" ? { discountCode: CODE } : {}), registrationData: { ...ATHLETE, registrationType: "1day", day1: true } });
  if (held.status !== 200) throw new Error(`hold answered ${held.status}: ${held.text.slice(0, 200)}`);
  const intentId = (held.body.clientSecret as string).split("_secret_")[0]!;
  if (t.fake.confirm(intentId, { number: "4242 4242 4242 4242" }).status !== 200) throw new Error("card not confirmed");
  const event = t.fake.events.find((e) => e.type === "payment_intent.succeeded" && JSON.stringify(e).includes(intentId))!;
  return {
    ret: async () => {
      const res = await v.post("/api/events/2/stripe-payment-success").set("x-forwarded-for", address).send({ paymentIntentId: intentId, ...(kind === "team of 8" ? { option: "team" } : {}) });
      if (res.body.status !== "paid") throw new Error(`return answered ${res.status} ${JSON.stringify(res.body)}`);
    },
    hook: async () => {
      const status = await t.fake.deliver(event);
      if (status !== 200) throw new Error(`webhook answered ${status}`);
    },
  };
}

interface Tally {
  requests: number;
  inside: number;
  outside: number;
  cpuUs: number;
}
const tallies = new Map<string, Tally>();
async function measured(label: string, work: () => Promise<void>) {
  const linesBefore = lockLines.length;
  const statementsBefore = statements;
  const show = SHOW && (!tallies.has(label) || process.env.SHOW_ALL === "1");
  if (show) shown = [];
  const cpu = process.cpuUsage();
  await work();
  const used = process.cpuUsage(cpu);
  if (show) console.log(`${label}:\n${shown!.join("\n")}`);
  shown = undefined;
  // The log line is written when the response finishes; the stream may take a tick more.
  await new Promise((r) => setImmediate(r));
  const total = statements - statementsBefore;
  const line = lockLines.slice(linesBefore).at(-1);
  const tally = tallies.get(label) ?? { requests: 0, inside: 0, outside: 0, cpuUs: 0 };
  tally.requests += 1;
  // The request's own count when it took the lock (its log line); else every statement sent meanwhile (a timer's too).
  tally.inside += line?.queries.inside ?? 0;
  tally.outside += line?.queries.outside ?? total;
  tally.cpuUs += used.user + used.system;
  tallies.set(label, tally);
}

try {
  const kinds: Kind[] = ["individual", "team of 8", "individual with a code"];
  // Warm-up: code paths compiled, connections made.
  for (const kind of kinds) {
    const w = await heldAndConfirmed(kind);
    await w.ret();
    await w.hook();
  }
  for (let i = 0; i < FAMILIES; i++) {
    for (const kind of kinds) {
      const returnFirst = await heldAndConfirmed(kind);
      await measured(`${kind}: return, settles`, returnFirst.ret);
      await measured(`${kind}: webhook after it`, returnFirst.hook);
      const webhookFirst = await heldAndConfirmed(kind);
      await measured(`${kind}: webhook, settles`, webhookFirst.hook);
      await measured(`${kind}: return after it`, webhookFirst.ret);
    }
  }
  console.log(`backend: ${t.backend}; ${FAMILIES} settlements of each kind and order; statements per request (BEGIN and COMMIT counted)`);
  for (const [label, s] of tallies) {
    const per = (n: number) => (n / s.requests).toFixed(1);
    console.log(`  ${label.padEnd(46)} inside the lock ${per(s.inside).padStart(5)}, outside ${per(s.outside).padStart(5)}; CPU ${(s.cpuUs / s.requests / 1000).toFixed(2).padStart(6)} ms`);
  }
} finally {
  await t.close();
}
