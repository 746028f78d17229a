/**
 * `npm run test:cluster`: compose.yaml's topology without Docker. Debian's nginx runs deploy/nginx.conf on loopback in
 * front of two production app processes (src/server.ts, NODE_ENV=production) started at the same moment on an empty
 * MySQL database and one Redis prefix, with one Stripe (the offline fake's API, as STRIPE_API_URL), one Shopify (the
 * test fake) and one SMTP server shared by both, as real ones would be. It shows, through the proxy or on each
 * instance: both become ready; both serve; a cart is one cart on both; a place held on one counts on the other; a page
 * kept by one forgets a write made on the other within PAGE_CACHE_MS + the events cache; e-mails, Shopify write-backs
 * and the hold sweep run each job once; killing one instance mid-request loses nothing and nginx serves on.
 * Prints what it showed with timings; any broken claim exits 1.
 *
 *   TEST_DATABASE_URL (default mysql://root@127.0.0.1:3306/test: its server is used, a fresh database is made and
 *   dropped), TEST_REDIS_URL (default redis://127.0.0.1:6379; keys under a fresh prefix are removed afterwards)
 */
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import knexFactory, { type Knex } from "knex";
import { spawnServer, type RunningServer, type StartingServer } from "../support/server.ts";
import { clearPrefix, createMysqlDatabase } from "../support/databases.ts";
import { startSmtpServer } from "../support/smtp.ts";
import { ADDRESS } from "../support/address.ts";
import { textOf } from "../support/http.ts";
import { startFakeShopify } from "../fakes/shopify.ts";
import { PUBLIC_URL, runFamily, type FamilyPlan } from "../bench/rushFamily.ts";
import { startFakeStripe } from "../../src/payments/offline/fakeStripeServer.ts";
import { enqueueEmail } from "../../src/email/outbox.ts";
import { EVENT_CACHE_MS } from "../../src/events/cache.ts";
import { closeRedis, connectRedis } from "../../src/redis.ts";
import { createLogger } from "../../src/logger.ts";
import { freePort, startNginx, type RunningNginx } from "./nginx.ts";
import { Visitor } from "./visitor.ts";
import { toText } from "../../src/shared/toText.ts";

process.env.TEST_DATABASE_URL ||= "mysql://root@127.0.0.1:3306/test";
const redisUrl = process.env.TEST_REDIS_URL || "redis://127.0.0.1:6379";

const PAGE_CACHE_MS = 3000;
/** The README's bound: a page kept for PAGE_CACHE_MS may have been rendered from event data kept EVENT_CACHE_MS. */
const STALE_BOUND_MS = PAGE_CACHE_MS + EVENT_CACHE_MS;
/** How often the kept page is asked for again while waiting for it to change. */
const POLL_MS = 100;
/** src/server.ts sweeps lapsed holds every minute from its start. */
const SWEEP_EVERY_MS = 60_000;
const BACKLOG_EMAILS = 40;
const PAID_ORDERS = 3;
const EVENT_ID = 1;
const CARD = "4242424242424242";
const CUSTOMER = { firstName: "Cael", lastName: "Sanderson", email: "cael@example.com", phone: "" };

class BrokenClaim extends Error {}
function check(ok: boolean, claim: string): asserts ok {
  if (!ok) throw new BrokenClaim(claim);
}
/** Times are from this process's start (performance.now()'s origin). */
const seconds = (from = 0) => `${((performance.now() - from) / 1000).toFixed(1)} s`;
const shown: string[] = [];
function showed(text: string): void {
  shown.push(text);
  console.log(`  ✓ ${text}`);
}
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
async function until<T>(read: () => Promise<T>, done: (v: T) => boolean, ms: number): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await read();
    if (done(v) || Date.now() > end) return v;
    await sleep(250);
  }
}

// ---------- the machine: database, Redis prefix, Stripe, Shopify, SMTP, nginx ----------
const runDir = fs.mkdtempSync(path.join(os.tmpdir(), "cluster-"));
const prefix = `cluster-${randomBytes(4).toString("hex")}:`;
const database = await createMysqlDatabase();
const db: Knex = knexFactory({ client: "mysql2", connection: { uri: database.url, timezone: "Z" } as never, pool: { min: 0, max: 2 } });
const stripe = await startFakeStripe();
const STRIPE_URL = `http://${stripe.host}:${stripe.port}`;
const shopify = await startFakeShopify();
const smtp = await startSmtpServer();
const ports = [await freePort(), await freePort()];
/** Each instance's METRICS_PORT: reached directly, as Prometheus does; nginx knows only the site's ports. */
const metricsPorts = [await freePort(), await freePort()];
const instanceAddress = ports.map((p) => `127.0.0.1:${p}`);
let nginx: RunningNginx | undefined;
const starting: StartingServer[] = [];
let exitCode = 0;

const env = (i: number): Record<string, string> => ({
  NODE_ENV: "production",
  HOST: "127.0.0.1",
  PORT: String(ports[i]),
  SESSION_SECRET: "cluster-session-secret-shared-by-every-instance-0123456789",
  DATABASE_URL: database.url,
  REDIS_URL: redisUrl,
  REDIS_PREFIX: prefix,
  PUBLIC_URL,
  TRUST_PROXY_HOPS: "1",
  STRIPE_SECRET_KEY: stripe.secretKey,
  STRIPE_PUBLISHABLE_KEY: stripe.publishableKey,
  STRIPE_WEBHOOK_SECRET: stripe.webhookSecret,
  STRIPE_API_URL: STRIPE_URL,
  SMTP_URL: smtp.url,
  ...shopify.env(),
  PAGE_CACHE_MS: String(PAGE_CACHE_MS),
  MAIL_DIR: path.join(runDir, "mail"),
  METRICS_PORT: String(metricsPorts[i]),
});
/** compose.local.yaml's settings for the app, read from the file itself (the trial runs what the file says). */
function localTrialSettings(): Record<string, string> {
  const text = fs.readFileSync(path.join(import.meta.dirname, "../../compose.local.yaml"), "utf8");
  return Object.fromEntries([...text.matchAll(/^ {6}([A-Z][A-Z0-9_]*): "?([^"\n]*)"?$/gm)].map((m) => [m[1]!, m[2]!]));
}

let trialNginx: RunningNginx | undefined;
async function showLocalTrial(): Promise<void> {
  const settings = localTrialSettings();
  check(settings.LOCAL_HTTP_TRIAL === "1" && settings.PUBLIC_URL === "http://localhost", `compose.local.yaml sets LOCAL_HTTP_TRIAL=1 and PUBLIC_URL=http://localhost (got ${JSON.stringify(settings)})`);
  const [appPort, proxyPort] = [await freePort(), await freePort()];
  const publicUrl = `http://localhost:${proxyPort}`;
  const trialEnv = { ...env(0), ...settings, PORT: String(appPort), PUBLIC_URL: publicUrl };
  const refused = spawnServer({ ...trialEnv, PUBLIC_URL: "https://shop.example" });
  starting.push(refused);
  const refusal = await refused.listening.then(
    () => "",
    (err: Error) => err.message,
  );
  check(/exited with 1/.test(refusal) && refusal.includes("LOCAL_HTTP_TRIAL=1 is only for a trial on this machine"), `LOCAL_HTTP_TRIAL=1 with a real PUBLIC_URL is refused at start (got ${refusal.slice(0, 300)})`);
  const trial = spawnServer(trialEnv);
  starting.push(trial);
  const app = await trial.listening;
  trialNginx = await startNginx([`127.0.0.1:${appPort}`], { https: false, port: proxyPort });
  const visitor = new Visitor(trialNginx.url, publicUrl);
  const shop = await visitor.open("/shop");
  const added = await visitor.post("/api/cart/add", { shopifyProductId: "gid://shopify/Product/1001", shopifyVariantId: "gid://shopify/ProductVariant/2003", quantity: 1 });
  const cookies = added.headers.getSetCookie().concat(shop.headers.getSetCookie());
  check(added.status === 200, `over plain HTTP, a cart add answers 200 (got ${added.status}: ${added.text.slice(0, 200)})`);
  check(cookies.length > 0 && cookies.every((c) => !/;\s*secure/i.test(c)), `its cookies come without Secure (got ${cookies.join(" | ")})`);
  const cart = await visitor.get("/api/cart");
  const items = (cart.json.cartItems as unknown[] | undefined) ?? [];
  check(items.length === 1, `the cart keeps the item over plain HTTP (got ${cart.text.slice(0, 200)})`);
  await trialNginx.stop();
  trialNginx = undefined;
  await app.stop();
  showed(`compose.local.yaml's plain-HTTP trial: a production instance with LOCAL_HTTP_TRIAL=1 behind nginx on ${publicUrl} keeps a cart (cookies without Secure); the same with PUBLIC_URL=https://shop.example refuses to start`);
}

const logFile = (i: number) => path.join(runDir, `instance-${i + 1}.log`);
const logLines = (i: number) =>
  fs
    .readFileSync(logFile(i), "utf8")
    .split("\n")
    .filter((l) => l.startsWith("{"))
    .map((l) => JSON.parse(l) as Record<string, unknown>);

try {
  nginx = await startNginx(instanceAddress);
  const proxy = nginx.url;
  // Stripe's webhooks reach the site as Stripe's would: through the proxy.
  stripe.setWebhookUrl(`${proxy}/api/stripe/webhook`);
  console.log(`test:cluster: nginx ${proxy} in front of instances A ${instanceAddress[0]} and B ${instanceAddress[1]} (NODE_ENV=production), MySQL database ${new URL(database.url).pathname.slice(1)}, Redis prefix ${prefix}`);

  // ---------- 1. both start at the same moment on the empty database, and become ready ----------
  const startAt = performance.now();
  for (let i = 0; i < 2; i++) starting.push(spawnServer(env(i), { logFile: logFile(i) }));
  const servers: RunningServer[] = await Promise.all(starting.map((s) => s.listening));
  const listeningAt = performance.now();
  const [A, B] = servers as [RunningServer, RunningServer];
  const ready = await Promise.all(servers.map((s) => until(() => fetch(`${s.url}/readyz`).then((r) => r.status), (status) => status === 200, 20_000)));
  check(ready.every((s) => s === 200), `both instances answer /readyz 200 (got ${ready.join(", ")})`);
  const viaProxy = await fetch(`${proxy}/readyz`);
  check(viaProxy.status === 200, `/readyz through nginx answers 200 (got ${viaProxy.status})`);
  const waited = [0, 1].filter((i) => logLines(i).some((l) => String(l.msg).startsWith("another instance is migrating")));
  const migrations = await db("knex_migrations").count<{ n: number }[]>({ n: "*" });
  showed(
    `both instances started at once on an empty database became ready in ${seconds(startAt)} (${Number(migrations[0]!.n)} migrations run once; ` +
      `${waited.length ? `${waited.map((i) => "AB"[i]).join(", ")} logged "another instance is migrating" and waited` : "neither had to wait"})`,
  );

  // Test data: event 1 has 2 places; a backlog of e-mails both instances' queues find on their next pass.
  await db("events").where({ id: EVENT_ID }).update({ capacity: 2 });
  for (let i = 1; i <= BACKLOG_EMAILS; i++) {
    await enqueueEmail(db, { kind: "cluster-backlog", to: `backlog${i}@example.com`, subject: `Cluster backlog ${i}`, text: `Backlog e-mail ${i}` });
  }

  // ---------- 2. both serve; nginx spreads requests over both ----------
  for (const [i, s] of servers.entries()) {
    const r = await fetch(`${s.url}/events`, { headers: { "x-forwarded-proto": "https" } });
    check(r.status === 200 && (await r.text()).includes("</html>"), `instance ${"AB"[i]} serves /events (got ${r.status})`);
  }
  const logBefore = nginx.accessLog().length;
  const spread = await Promise.all(Array.from({ length: 10 }, () => fetch(`${proxy}/`).then((r) => r.status)));
  check(spread.every((s) => s === 200), `10 pages through nginx answer 200 (got ${spread.join(", ")})`);
  const upstreams = new Set(nginx.accessLog().slice(logBefore).map((l) => /upstream=(\S+)/.exec(l)?.[1]));
  check(instanceAddress.every((a) => upstreams.has(a)), `nginx sent requests to both instances (its log: ${[...upstreams].join(", ")})`);
  showed("both instances serve pages directly, and nginx spreads pages over both");

  // ---------- 3. one cart on both instances; paid orders through the proxy ----------
  const shopper = new Visitor(proxy);
  await shopper.open("/shop");
  const added = await shopper.post("/api/cart/add", { shopifyProductId: "gid://shopify/Product/1001", shopifyVariantId: "gid://shopify/ProductVariant/2003", quantity: 2 });
  check(added.status === 200, `a cart add through nginx answers 200 (got ${added.status}: ${added.text.slice(0, 200)})`);
  for (const [i, s] of servers.entries()) {
    const cart = await shopper.get("/api/cart", s.url);
    const items = (cart.json.cartItems as { shopifyVariantId: string; quantity: number }[] | undefined) ?? [];
    check(items.length === 1 && items[0]!.quantity === 2, `the cart made through nginx is seen on instance ${"AB"[i]} with the same cookie (got ${cart.text.slice(0, 200)})`);
  }
  showed("a cart made through nginx is the same cart on A and on B (one session cookie, sessions in Redis)");

  const orders: string[] = [];
  for (let n = 0; n < PAID_ORDERS; n++) {
    const buyer = n === 0 ? shopper : new Visitor(proxy);
    if (n > 0) {
      await buyer.open("/shop");
      await buyer.post("/api/cart/add", { shopifyProductId: "gid://shopify/Product/1002", shopifyVariantId: "gid://shopify/ProductVariant/2101", quantity: 1 });
    }
    const cart = await buyer.get("/api/cart");
    const checkout = await buyer.post("/api/cart/checkout", { items: cart.json.cartItems, customerInfo: CUSTOMER, shippingAddress: ADDRESS });
    check(checkout.status === 200, `checkout ${n + 1} through nginx answers 200 (got ${checkout.status}: ${checkout.text.slice(0, 200)})`);
    const intentId = String(checkout.json.clientSecret).split("_secret_")[0]!;
    const confirmed = stripe.confirm(intentId, { number: CARD });
    check(confirmed.body.status === "succeeded", `Stripe takes payment ${n + 1}`);
    const done = await buyer.post("/api/cart/checkout/complete", { paymentIntentId: intentId });
    check(done.status === 200 && done.json.status === "paid", `checkout ${n + 1} completes as paid through nginx (got ${done.status}: ${done.text.slice(0, 200)})`);
    orders.push(String(checkout.json.orderReference));
  }
  showed(`${PAID_ORDERS} shop orders paid through nginx, each step landing on whichever instance nginx chose`);

  // ---------- 4. a place held on one counts on the other; a page kept by one forgets the other's write ----------
  const family = (id: number): FamilyPlan => ({
    id,
    instance: 0,
    address: `10.0.0.${id}`,
    arriveAtMs: 0,
    eventId: EVENT_ID,
    kind: "individual",
    athletes: 1,
    packagePick: 0,
    ending: "abandon",
    doubleSubmit: false,
    useCode: false,
  });
  const eventPage = async (base: string) => {
    const r = await fetch(`${base}/events/${EVENT_ID}`, { headers: { "x-forwarded-proto": "https" } });
    const text = textOf(await r.text());
    return { kept: r.headers.get("age") !== null, left: /(\d+) of 2 places left/.exec(text)?.[1] ?? (/Sold out/.test(text) ? "0" : "?") };
  };
  await eventPage(A.url);
  const kept = await eventPage(A.url);
  check(kept.kept && kept.left === "2", `A keeps /events/${EVENT_ID} showing 2 of 2 places left (kept: ${kept.kept}, left: ${kept.left})`);

  const writeSent = performance.now();
  const first = await runFamily(B.url, STRIPE_URL, family(1));
  check(first.outcome === "abandoned", `a family holds a place on B (got ${first.outcome}: ${JSON.stringify(first.calls.at(-1))})`);
  let staleReads = 0;
  let seen = await eventPage(A.url);
  while (seen.left !== "1" && performance.now() - writeSent < STALE_BOUND_MS + 2000) {
    staleReads += 1;
    await sleep(POLL_MS);
    seen = await eventPage(A.url);
  }
  const forgotMs = performance.now() - writeSent;
  check(seen.left === "1", `A's page shows 1 place left after B's hold (still ${seen.left} after ${Math.round(forgotMs)} ms)`);
  check(forgotMs <= STALE_BOUND_MS + POLL_MS, `A's kept page forgot B's write within ${STALE_BOUND_MS} ms (took ${Math.round(forgotMs)} ms)`);
  showed(`A's kept page showed B's hold ${Math.round(forgotMs)} ms after B was asked (bound ${STALE_BOUND_MS} ms = PAGE_CACHE_MS ${PAGE_CACHE_MS} + events cache ${EVENT_CACHE_MS}; ${staleReads} stale reads before)`);

  // The last place: a family on A and a family on B ask for it at the same moment; one holds it, the other is refused.
  const race = await Promise.all([runFamily(A.url, STRIPE_URL, family(2)), runFamily(B.url, STRIPE_URL, family(3))]);
  const outcomes = race.map((r) => r.outcome);
  check(outcomes.filter((o) => o === "abandoned").length === 1 && outcomes.filter((o) => o === "sold out").length === 1, `of two families racing for the last place on A and B, one holds it and one is refused (got ${outcomes.join(", ")})`);
  const held = await db("registrations").where({ event_id: EVENT_ID, status: "pending_payment" }).select("reference", "places");
  check(held.length === 2 && held.every((r) => Number(r.places) === 1), `the database holds exactly 2 places for event ${EVENT_ID} (got ${JSON.stringify(held)})`);
  const loser = race.find((r) => r.outcome === "sold out")!;
  const refusedByDecision = loser.calls.some((c) => c.step === "hold" && c.status === 409);
  showed(
    `event ${EVENT_ID} (2 places): one held on B, then families on A and B raced for the last place: ${"AB"[race.indexOf(loser) === 0 ? 1 : 0]} held it, ` +
      `${"AB"[race.indexOf(loser)]} was refused (${refusedByDecision ? "its hold answered 409 sold out" : "its page already said sold out"})`,
  );

  // The two holds lapse (as 30 minutes would); each instance's sweep finds them at its next minute.
  const lapsed = held.map((r) => String(r.reference));
  await db("registrations").whereIn("reference", lapsed).update({ reserved_until: new Date(Date.now() - 60_000) });

  // ---------- 5. e-mails, Shopify write-backs and the sweep: each job once across both ----------
  const sweepDue = listeningAt + SWEEP_EVERY_MS;
  console.log(`  … waiting for the queues and for both instances' hold sweep (due ${((sweepDue - performance.now()) / 1000).toFixed(0)} s from now)`);
  const settled = await until(
    async () => ({
      emails: await db("email_outbox").whereNot({ status: "sent" }).count<{ n: number }[]>({ n: "*" }),
      writeBacks: await db("shopify_writebacks").whereNot({ status: "sent" }).count<{ n: number }[]>({ n: "*" }),
      expired: await db("registrations").whereIn("reference", lapsed).where({ status: "expired" }).count<{ n: number }[]>({ n: "*" }),
    }),
    (v) => Number(v.emails[0]!.n) === 0 && Number(v.writeBacks[0]!.n) === 0 && Number(v.expired[0]!.n) === lapsed.length,
    Math.max(0, sweepDue - performance.now()) + 8000,
  );
  check(Number(settled.expired[0]!.n) === lapsed.length, `both lapsed holds expired by the sweep (${Number(settled.expired[0]!.n)} of ${lapsed.length})`);

  const emails = await db("email_outbox").select("id", "subject", "status", "attempts");
  check(emails.every((e) => e.status === "sent"), `every e-mail is sent (${emails.filter((e) => e.status !== "sent").length} of ${emails.length} not)`);
  check(emails.every((e) => Number(e.attempts) === 1), `every e-mail was claimed once (attempts: ${[...new Set(emails.map((e) => e.attempts))].join(", ")})`);
  check(smtp.received.length === emails.length, `the SMTP server received ${emails.length} messages, one per e-mail (got ${smtp.received.length})`);
  for (let i = 1; i <= BACKLOG_EMAILS; i++) {
    const got = smtp.received.filter((m) => m.raw.includes(`Subject: Cluster backlog ${i}\r\n`)).length;
    check(got === 1, `backlog e-mail ${i} was delivered once (got ${got})`);
  }
  const sentBy = [0, 1].map((i) => new Set(logLines(i).filter((l) => l.msg === "email sent").map((l) => Number(l.emailId))));
  const both = [...sentBy[0]!].filter((id) => sentBy[1]!.has(id));
  check(both.length === 0, `no e-mail is sent by both instances (both logged ${both.join(", ")})`);
  showed(`${emails.length} e-mails (${BACKLOG_EMAILS} queued at once, the rest from orders) each sent once: A sent ${sentBy[0]!.size}, B ${sentBy[1]!.size}; SMTP received ${smtp.received.length}`);

  const writeBacks = await db("shopify_writebacks").select("status", "attempts");
  check(writeBacks.length === orders.length && writeBacks.every((w) => w.status === "sent" && Number(w.attempts) === 1), `each paid order's write-back ran once (${JSON.stringify(writeBacks)})`);
  for (const reference of orders) {
    const created = shopify.orders.filter((o) => o.input.sourceIdentifier === reference).length;
    check(created === 1, `order ${reference} was created in Shopify once (got ${created})`);
  }
  const wroteBy = [0, 1].map((i) => logLines(i).filter((l) => l.msg === "order written to Shopify").length);
  showed(`${orders.length} paid orders each written to Shopify once (A wrote ${wroteBy[0]}, B ${wroteBy[1]})`);

  const canceled = [...stripe.intents.values()].filter((pi) => pi.status === "canceled");
  check(canceled.length === lapsed.length, `the lapsed holds' PaymentIntents are canceled at Stripe (${canceled.length} of ${lapsed.length})`);
  const cancelEvents = stripe.events.filter((e) => e.type === "payment_intent.canceled").length;
  const sweepWarnings = [0, 1].map((i) => logLines(i).filter((l) => String(l.msg).startsWith("could not cancel an expired hold")).length);
  showed(
    `both instances swept at their minute (${seconds(listeningAt)} after listening): the 2 lapsed holds expired once each, their PaymentIntents canceled ` +
      `(${cancelEvents} cancel calls reached Stripe; ${sweepWarnings[0]! + sweepWarnings[1]!} cancels of an already canceled one logged)`,
  );

  // ---------- 5b. each instance's metrics on its own port; none through nginx ----------
  const sweptLine = /^ironside_job_last_success_timestamp_seconds\{task="sweep"\} \d/m;
  const scrapeBoth = () => Promise.all(metricsPorts.map((p) => fetch(`http://127.0.0.1:${p}/metrics`).then(async (r) => ({ status: r.status, text: await r.text() }))));
  // The sweep that expired the holds may be one instance's: the other's, due at the same minute, may still be running.
  const scraped = await until(scrapeBoth, (both) => both.every((s) => s.status === 200 && sweptLine.test(s.text)), 20_000);
  check(scraped.every((s) => s.status === 200), `each instance answers /metrics on its METRICS_PORT (got ${scraped.map((s) => s.status).join(", ")})`);
  const sample = (text: string, line: RegExp) => Number(line.exec(text)?.[1] ?? 0);
  const heldOn = scraped.map((s) => sample(s.text, /^ironside_holds_total\{outcome="held"\} (\S+)$/m));
  check(heldOn[0]! + heldOn[1]! === held.length, `the instances' held counters add up to the ${held.length} places held (A ${heldOn[0]}, B ${heldOn[1]})`);
  check(scraped.every((s) => sweptLine.test(s.text)), "each instance's gauge tells its own last sweep");
  const viaNginx = await fetch(`${proxy}/metrics`);
  const onSitePort = await Promise.all(servers.map((s) => fetch(`${s.url}/metrics`).then((r) => r.status)));
  check(viaNginx.status === 404 && onSitePort.every((s) => s === 404), `/metrics is 404 through nginx and on the site's ports (got ${viaNginx.status}, ${onSitePort.join(", ")})`);
  showed(`each instance serves its own /metrics on its METRICS_PORT (holds held: A ${heldOn[0]}, B ${heldOn[1]}; each its last sweep); through nginx /metrics is 404`);

  // ---------- 6. A is killed mid-request: nothing is lost, nginx serves on from B ----------
  const writer = new Visitor(proxy);
  await writer.open("/contact");
  const pages = ["/", "/events", "/shop", `/events/${EVENT_ID}`, "/about", "/contact"];
  const killLogFrom = nginx.accessLog().length;
  let answered = 0;
  let killedAt = 0;
  const killAfter = 15;
  const onAnswer = () => {
    answered += 1;
    if (answered === killAfter) {
      killedAt = performance.now();
      A.child.kill("SIGKILL");
    }
  };
  const getAll = Array.from({ length: 150 }, (_, i) =>
    fetch(`${proxy}${pages[i % pages.length]}?n=${i}`)
      .then(async (r) => ({ status: r.status, complete: (await r.text()).trimEnd().endsWith("</html>") }))
      .catch((err: Error) => ({ status: 0, complete: false, error: toText(err.cause ?? err.message) }))
      .finally(onAnswer),
  );
  const messages = Array.from({ length: 10 }, (_, i) => ({ name: "Pat Cluster", email: "pat@example.com", subject: `Cluster kill ${i}`, message: `Sent while an instance dies (${i}).` }));
  const postAll = messages.map((m) => writer.post("/api/contact", m).then((r) => r.status, () => 0));
  const [gets, posts] = await Promise.all([Promise.all(getAll), Promise.all(postAll)]);
  check(killedAt > 0, "A was killed while requests were under way");
  const lostGets = gets.filter((g) => g.status !== 200 || !g.complete).length;
  check(lostGets === 0, `every GET under way when A died was answered whole (${lostGets} of ${gets.length} not: ${JSON.stringify(gets.filter((g) => g.status !== 200 || !g.complete).slice(0, 5))})`);
  check(posts.every((s) => s === 201 || s === 502), `each contact post answered 201 or the proxy's 502 (got ${posts.join(", ")})`);
  for (const [i, m] of messages.entries()) {
    const stored = await db("contact_messages").where({ subject: m.subject }).count<{ n: number }[]>({ n: "*" });
    const queued = await db("email_outbox").where({ subject: `Contact form: ${m.subject}` }).count<{ n: number }[]>({ n: "*" });
    const [s, q] = [Number(stored[0]!.n), Number(queued[0]!.n)];
    check(s === q && s <= 1, `contact message ${i} is whole or absent: ${s} stored, ${q} e-mails queued`);
    check(posts[i] !== 201 || s === 1, `contact message ${i} answered 201 is stored`);
  }
  const killLog = nginx.accessLog().slice(killLogFrom);
  const retried = killLog.filter((l) => new RegExp(`upstream=${instanceAddress[0]}, ${instanceAddress[1]}`).test(l)).length;
  check(retried > 0, `nginx retried on B at least one request A was answering when it died (its log shows ${retried})`);
  const after = await Promise.all(Array.from({ length: 20 }, (_, i) => fetch(`${proxy}${pages[i % pages.length]}`).then((r) => r.status, () => 0)));
  check(after.every((s) => s === 200), `nginx keeps serving after A died (got ${after.join(", ")})`);
  const stillReady = await fetch(`${proxy}/readyz`);
  check(stillReady.status === 200, `/readyz through nginx answers 200 from B (got ${stillReady.status})`);
  const posted = posts.filter((s) => s === 201).length;
  showed(
    `A killed (SIGKILL) with ${gets.length - killAfter} GETs and some of 10 posts under way: all ${gets.length} GETs answered 200 whole (${retried} retried on B by nginx), ` +
      `${posted} posts answered 201 and stored, ${posts.length - posted} answered 502 with their message and e-mail whole or absent; then 20 of 20 pages served by B`,
  );

  // ---------- 7. the plain-HTTP trial (compose.local.yaml): works on localhost, refused for a real address ----------
  await showLocalTrial();

  console.log(`\ntest:cluster: ${shown.length} claims shown in ${seconds()}.`);
} catch (err) {
  exitCode = 1;
  await trialNginx?.stop().catch(() => undefined);
  if (err instanceof BrokenClaim) console.error(`\nBROKEN CLAIM: ${err.message}`);
  else console.error(`\ntest:cluster failed: ${(err as Error).stack ?? String(err)}`);
  console.error(`after ${seconds()}; instance logs and nginx's kept in ${runDir}`);
  if (nginx) fs.cpSync(nginx.dir, path.join(runDir, "nginx"), { recursive: true });
} finally {
  const cleanup = performance.now();
  await Promise.all(
    starting.map((s) => (s.child.exitCode === null && s.child.signalCode === null ? new Promise((r) => (s.child.once("exit", r), s.child.kill("SIGTERM"))) : Promise.resolve())),
  );
  await nginx?.stop();
  await db.destroy();
  await database.drop();
  await stripe.close();
  await shopify.stop();
  await smtp.close();
  const redis = await connectRedis(redisUrl, createLogger("silent"));
  await clearPrefix(redis, prefix);
  await closeRedis(redis);
  if (exitCode === 0) fs.rmSync(runDir, { recursive: true, force: true });
  console.log(`cleanup ${seconds(cleanup)}`);
}
process.exit(exitCode);
