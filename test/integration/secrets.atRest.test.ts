import fs from "node:fs";
import { Writable } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import request from "supertest";
import { createPayingTestApp, type PayingTestApp } from "../support/app.ts";
import { ADDRESS } from "../support/address.ts";
import { textOf, visitor } from "../support/http.ts";
import { createLogger } from "../../src/logger.ts";
import type { JobQueue } from "../../src/db/jobQueue.ts";
import { sentText } from "../support/mail.ts";

/**
 * Every flow that e-mails a link (confirmation and "Lost your confirmation?" manage links, a team's family links,
 * the waiting list's leave and offer links, an order's status link) is driven through the routes, each link opened
 * and refused once (a request without its CSRF token, a page that fails). Then each live token, read from the
 * messages as sent, is looked for in every log line and every column of every table: it is nowhere.
 */
let t: PayingTestApp;
const logLines: string[] = [];
const EVENT = 2;

beforeAll(async () => {
  const logger = createLogger("debug", new Writable({ write: (chunk: Buffer, _e, done) => (logLines.push(chunk.toString()), done()) }));
  t = await createPayingTestApp({ TRUST_PROXY_HOPS: "1" }, { logger });
  t.fake.autoDeliver = true;
});
afterAll(async () => {
  await t?.close();
});

let seq = 0;
const ip = () => `198.51.100.${(++seq % 250) + 1}`;
const formId = () => `secrets-form-${++seq}-${Date.now()}`;
const intentIdOf = (clientSecret: string) => clientSecret.split("_secret_")[0]!;

async function newVisitor() {
  const v = await visitor(t.app);
  const addr = ip();
  return { ...v, get: (url: string) => v.get(url).set("x-forwarded-for", addr), post: (url: string) => v.post(url).set("x-forwarded-for", addr), form: (url: string, f: Record<string, string>) => v.form(url, f).set("x-forwarded-for", addr) };
}
type V = Awaited<ReturnType<typeof newVisitor>>;

async function pay(v: V, clientSecret: string, option?: string) {
  const intentId = intentIdOf(clientSecret);
  expect(t.fake.confirm(intentId, { number: "4242 4242 4242 4242" }).status).toBe(200);
  expect((await v.post(`/api/events/${EVENT}/stripe-payment-success`).send({ paymentIntentId: intentId, ...(option ? { option } : {}) })).body.status).toBe("paid");
  return intentId;
}

const ATHLETE = {
  firstName: "Maya", lastName: "Okafor", phone: "(205) 555-0100", grade: "9th", gender: "Female",
  schoolName: "Central High", emergencyContactName: "Ada Okafor", emergencyContactPhone: "205-555-0199", adult: "on", agrees: "on",
};

async function individual(email: string) {
  const v = await newVisitor();
  const res = await v.post(`/api/events/${EVENT}/create-payment-intent`).send({ option: "full", formSessionId: formId(), registrationData: { ...ATHLETE, email, registrationType: "full" } });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return pay(v, res.body.clientSecret);
}

async function team(tag: string, size: number) {
  const v = await newVisitor();
  const athletes = Array.from({ length: size }, (_, i) => ({ firstName: `Kid${i + 1}`, lastName: "Brooks", age: 12, email: `kid${i + 1}.${tag}@example.com`, shirtSize: "Small", parentName: `Parent ${i + 1}`, parentPhoneNumber: "205-555-0100" }));
  const res = await v.post("/api/team-registration").send({ eventId: EVENT, coachInfo: { firstName: "Dana", lastName: "Brooks", email: `coach.${tag}@example.com`, phone: "(205) 555-0142", teamName: "Steel City WC" }, athletes, formSessionId: formId() });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return pay(v, res.body.clientSecret, "team");
}

async function order() {
  const v = await newVisitor();
  await v.post("/api/cart/add").send({ shopifyProductId: "1001", shopifyVariantId: "2001", quantity: 1 });
  const cart = (await v.get("/api/cart")).body as { cartItems: { id: string; shopifyProductId: string; shopifyVariantId: string; quantity: number; price: string }[] };
  const res = await v.post("/api/cart/checkout").send({
    items: cart.cartItems.map((i) => ({ id: i.id, shopifyProductId: i.shopifyProductId, shopifyVariantId: i.shopifyVariantId, quantity: i.quantity, price: Number(i.price) })),
    customerInfo: { firstName: "Quinn", lastName: "Ray", email: "quinn.ray@example.com", phone: "205-555-0111" },
    shippingAddress: ADDRESS,
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  const intentId = intentIdOf(res.body.clientSecret);
  t.fake.confirm(intentId, { number: "4242 4242 4242 4242" });
  expect((await v.post("/api/cart/checkout/complete").send({ paymentIntentId: intentId })).body.status).toBe("paid");
}

/** The link paths of every message the outbox has sent (quoted-printable soft breaks joined). */
function sentLinks(): string[] {
  const mails = fs.existsSync(t.mailDir) ? fs.readdirSync(t.mailDir).map((f) => fs.readFileSync(`${t.mailDir}/${f}`, "utf8").replace(/=\r?\n/g, "")) : [];
  return [...new Set(mails.flatMap((m) => [...m.matchAll(/https?:\/\/[^\s/"]+(\/(?:my-registration|orders|waiting-list\/[a-z-]+)\/[A-Za-z0-9_-]+)/g)].map((x) => x[1]!)))];
}

async function everyTable(): Promise<Record<string, unknown[]>> {
  const mysql = t.backend === "mysql";
  const listed: unknown = await t.db.raw(mysql ? "select table_name as name from information_schema.tables where table_schema = database()" : "select name from sqlite_master where type in ('table', 'view')");
  const names = ((mysql ? (listed as unknown[])[0] : listed) as { name: string }[]).map((r) => r.name);
  const all: Record<string, unknown[]> = {};
  for (const name of names) all[name] = await t.db(name).select();
  return all;
}

describe("no live link token in a log line or a table", () => {
  it("after every link-bearing flow, each token still opens its page and is found nowhere else", async () => {
    await t.db("events").where({ id: EVENT }).update({ capacity: 8 });
    const first = await individual("maya.one@example.com");
    await individual("maya.two@example.com");
    await team("secrets", 6);
    const page = textOf((await (await newVisitor()).get(`/register/${EVENT}`)).text);
    expect(page).toContain("Sold Out");
    // The waiting list: a family joins (its leave link), a place frees, the family is offered it (its offer link).
    const family = await newVisitor();
    const joined = await family.form(`/waiting-list/${EVENT}`, { firstName: "Lena", lastName: "Park", email: "lena.park@example.com", phone: "(205) 555-0111", kind: "individual", places: "1", registrationType: "full" });
    expect(joined.status).toBe(200);
    const [asked] = await t.db("email_outbox").where({ kind: "waiting_list_confirm" });
    const confirm = /https?:\/\/[^\s]+(\/waiting-list\/confirm\/[A-Za-z0-9_-]+)/.exec(sentText(t.mailDir, asked))![1]!;
    expect((await family.form(confirm, {})).status).toBe(200);
    await t.gateway.refundIntent(first, { idempotencyKey: `secrets-refund-${first}`, reason: "canceled by the family" });
    await t.fake.idle();
    await (t.app.locals.offerQueue as JobQueue).drain();
    // "Lost your confirmation?" (sent after the answer) and an order's status link.
    const lost = await newVisitor();
    expect((await lost.form(`/events/${EVENT}/lost-confirmation`, { email: "maya.two@example.com" })).status).toBe(303);
    await order();
    for (let i = 0; i < 50 && !(await t.db("email_outbox").where({ kind: "registration_manage_link" }).first()); i++) await new Promise((r) => setTimeout(r, 20));
    await t.outbox.drain();

    const links = sentLinks();
    const kinds = (prefix: string) => links.filter((l) => l.startsWith(prefix)).length;
    expect(kinds("/my-registration/"), links.join("\n")).toBeGreaterThanOrEqual(2 + 1 + 6 + 1);
    expect(kinds("/orders/")).toBe(1);
    expect(kinds("/waiting-list/leave/")).toBe(1);
    expect(kinds("/waiting-list/offer/")).toBe(1);
    expect(kinds("/waiting-list/confirm/")).toBe(1);
    expect(await t.db("email_outbox").whereNot({ status: "sent" })).toEqual([]);

    // Each link opens its page (live), and a post without its CSRF token is refused and logged.
    for (const link of links) {
      const opened = await request(t.app).get(link).set("x-forwarded-for", ip());
      expect(opened.status, link).toBe(200);
      expect((await request(t.app).post(`${link}/details`).set("x-forwarded-for", ip()).type("form").send({})).status, link).toBeGreaterThanOrEqual(400);
    }

    const tokens = links.map((l) => l.split("/").pop()!);
    const logs = logLines.join("\n");
    expect(logs).toContain('"msg":"request refused"');
    const tables = await everyTable();
    for (const token of tokens) {
      expect(logs.includes(token), `token ${token} in the log`).toBe(false);
      for (const [name, rows] of Object.entries(tables)) expect(JSON.stringify(rows).includes(token), `token ${token} in ${name}`).toBe(false);
    }
    // What an operator needs of a sent e-mail stays: kind, recipient, subject, times, status.
    const sent = await t.db("email_outbox").where({ kind: "waiting_list_offer" }).first();
    expect(sent).toMatchObject({ to_address: "lena.park@example.com", status: "sent" });
    expect(sent.text_body).toContain("/waiting-list/offer/link-removed-after-sending");
  });
});

describe("a 'Registered before?' link", () => {
  it("is found in no log line and no table, before and after it is opened", async () => {
    const asking = await newVisitor();
    expect((await asking.form(`/events/${EVENT}/returning`, { email: "maya.one@example.com", from: "register" })).status).toBe(303);
    for (let i = 0; i < 100 && !(await t.db("email_outbox").where({ kind: "returning_link" }).first()); i++) await new Promise((r) => setTimeout(r, 20));
    await t.outbox.drain();
    const [mail] = await t.db("email_outbox").where({ kind: "returning_link" });
    const token = /\/returning\/([A-Za-z0-9_-]{43})/.exec(sentText(t.mailDir, mail))![1]!;
    const opened = await (await newVisitor()).get(`/returning/${token}`);
    expect(opened.status).toBe(303);
    const logs = logLines.join("\n");
    expect(logs.includes(token)).toBe(false);
    for (const [name, rows] of Object.entries(await everyTable())) expect(JSON.stringify(rows).includes(token), `token in ${name}`).toBe(false);
  });
});

describe("a team's invite link, at rest and in the logs", () => {
  it("is stored only as its hash and never logged, whether a family's post goes through or is refused", async () => {
    await t.db("events").where({ id: EVENT }).update({ capacity: 200 });
    const coach = await newVisitor();
    const page = await coach.get(`/team-register/${EVENT}`);
    const formSessionId = /name="formSessionId" value="([^"]+)"/.exec(page.text)![1]!;
    expect((await coach.form(`/team-register/${EVENT}`, { formSessionId, "coachInfo[firstName]": "Dana", "coachInfo[lastName]": "Okafor", intent: "invite" })).status).toBe(303);
    const link = /\/team-invite\/[A-Za-z0-9_-]{43}/.exec((await coach.get(`/team-register/${EVENT}`)).text)![0];
    const family = await newVisitor();
    expect((await family.get(link)).status).toBe(200);
    const row = { "athlete[firstName]": "Sam", "athlete[lastName]": "Lee", "athlete[age]": "14", "athlete[email]": "sam.lee@example.com", "athlete[shirtSize]": "Large", "athlete[parentName]": "Pat Lee", "athlete[parentPhoneNumber]": "2055550100" };
    expect((await family.form(link, row)).status).toBe(303);
    expect((await request(t.app).post(link).set("x-forwarded-for", ip()).type("form").send(row)).status).toBe(403);
    const token = link.split("/").pop()!;
    expect(logLines.join("\n")).toContain("/team-invite/[redacted]");
    expect(logLines.join("\n").includes(token)).toBe(false);
    for (const [name, rows] of Object.entries(await everyTable())) expect(JSON.stringify(rows).includes(token), `token in ${name}`).toBe(false);
  });
});

describe("e-mails sent before the outbox removed their links", () => {
  it("lose them to the migration: the link's secret, by its route, whatever its length", async () => {
    const { up } = await import("../../migrations/20261128000300_sent_email_links.ts");
    const now = new Date();
    const row = { kind: "waiting_list_offer", to_address: "old@example.com", subject: "Old", status: "sent", attempts: 1, next_attempt_at: now, created_at: now, sent_at: now };
    const [sentId] = await t.db("email_outbox").insert({ ...row, text_body: "Take it: https://shop.example/waiting-list/offer/k3J9x0QpL2mN8vB4c7D1e6F5g0H2i9J8 now", html_body: '<a href="https://shop.example/orders/abc123">x</a>' });
    const [pendingId] = await t.db("email_outbox").insert({ ...row, status: "pending", text_body: "https://shop.example/my-registration/pendingToken", html_body: null });
    await up(t.db);
    expect(await t.db("email_outbox").where({ id: sentId }).first()).toMatchObject({
      text_body: "Take it: https://shop.example/waiting-list/offer/link-removed-after-sending now",
      html_body: '<a href="https://shop.example/orders/link-removed-after-sending">x</a>',
    });
    // Not sent yet: the recipient still needs it.
    expect((await t.db("email_outbox").where({ id: pendingId }).first()).text_body).toBe("https://shop.example/my-registration/pendingToken");
  });
});
