import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { ADDRESS } from "../support/address.ts";
import { createPayingTestApp, type PayingTestApp } from "../support/app.ts";
import { visitor } from "../support/http.ts";
import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { createApp } from "../../src/app.ts";
import { createStripeGateway } from "../../src/payments/gateway.ts";
import { startFakeStripe, type FakeStripe } from "../../src/payments/offline/fakeStripeServer.ts";

/**
 * Nothing charged is left unsettled: a card confirmed at Stripe whose browser return never came and whose webhook
 * never arrived (an outage, a crash) is settled by the reconciliation job, for shop orders and registrations alike,
 * once, whichever instance runs it.
 */
let t: PayingTestApp;
let fake: FakeStripe;
beforeAll(async () => {
  t = await createPayingTestApp({ TRUST_PROXY_HOPS: "1" });
  fake = t.fake;
});
afterAll(async () => {
  await t?.close();
});
beforeEach(() => {
  // The webhook is lost: events are recorded at the fake, never sent.
  fake.autoDeliver = false;
});

const reconcile = (app = t.app) => (app.locals.reconcilePayments as () => Promise<number>)();
const intentIdOf = (clientSecret: string) => clientSecret.split("_secret_")[0]!;
/** The payment was made this long ago (the job leaves fresh ones to the return and the webhook). */
const age = (reference: string, minutes: number) => t.db("payments").where({ reference }).update({ created_at: new Date(Date.now() - minutes * 60_000) });

async function chargedOrder(app = t.app, stripe = fake): Promise<string> {
  const v = await visitor(app);
  expect((await v.post("/api/cart/add").send({ shopifyProductId: "1002", shopifyVariantId: "2101", quantity: 1 })).status).toBe(200);
  const cart = (await v.get("/api/cart")).body as { cartItems: { id: string; shopifyProductId: string; shopifyVariantId: string; quantity: number }[] };
  const res = await v.post("/api/cart/checkout").send({
    items: cart.cartItems.map((i) => ({ id: i.id, shopifyProductId: i.shopifyProductId, shopifyVariantId: i.shopifyVariantId, quantity: i.quantity })),
    customerInfo: { firstName: "Helen", lastName: "Maroulis", email: "helen@example.com", phone: "" },
    shippingAddress: ADDRESS,
  });
  expect(res.status).toBe(200);
  const intentId = intentIdOf(res.body.clientSecret);
  expect(stripe.confirm(intentId, { number: "4242424242424242" }).status).toBe(200);
  return stripe.intents.get(intentId)!.metadata.reference!;
}

async function chargedRegistration(app = t.app, stripe = fake): Promise<string> {
  const v = await visitor(app);
  const res = await v.post("/api/events/1/create-payment-intent").set("x-forwarded-for", "198.51.100.200").send({
    option: "full",
    formSessionId: `reconcile-form-${Date.now()}-${Math.random().toString(36).slice(2)}`,
    registrationData: {
      registrationType: "full", firstName: "Sam", lastName: "Lost", email: "sam.lost@example.com", phone: "(205) 555-0100", grade: "10th", gender: "Male",
      schoolName: "Central High", emergencyContactName: "Pat Lost", emergencyContactPhone: "205-555-0199", adult: "on", agrees: "on",
    },
  });
  expect(res.status).toBe(200);
  expect(stripe.confirm(intentIdOf(res.body.clientSecret), { number: "4242424242424242" }).status).toBe(200);
  return res.body.registrationId as string;
}

/** An app instance talking to its own offline fake (as server.ts builds it), with the fake's state kept in `stateFile`. */
async function instance(stateFile: string, webhookRetryScale: number) {
  const own = await startFakeStripe({ stateFile, webhookRetryScale });
  const gateway = createStripeGateway({ secretKey: own.secretKey, publishableKey: own.publishableKey, webhookSecret: own.webhookSecret, mode: "offline", offline: own, api: { host: own.host, port: own.port, protocol: "http" } });
  return { fake: own, app: createApp({ ...t, gateway }) };
}

describe("the app killed right after the card confirmations, then restarted (the fake keeps its state, as Stripe would)", () => {
  it("settles the shop order and the registration once each, with one e-mail each, from the webhooks Stripe sends again", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "restart-stripe-"));
    const stateFile = path.join(dir, "offline-stripe.json");
    const before = await instance(stateFile, 1);
    // The process dies before any webhook is answered: the first delivery finds nobody listening.
    before.fake.setWebhookUrl("http://127.0.0.1:9/api/stripe/webhook");
    const order = await chargedOrder(before.app, before.fake);
    const registration = await chargedRegistration(before.app, before.fake);
    await new Promise((r) => setTimeout(r, 200));
    await before.fake.close();
    expect(await t.db("payments").where({ reference: order }).first()).toMatchObject({ status: "pending" });

    const after = await instance(stateFile, 1 / 60_000);
    const server = after.app.listen(0, "127.0.0.1");
    try {
      await new Promise((r) => server.once("listening", r));
      after.fake.setWebhookUrl(`http://127.0.0.1:${(server.address() as AddressInfo).port}/api/stripe/webhook`);
      await after.fake.idle();
      expect(await t.db("orders").where({ reference: order }).first()).toMatchObject({ status: "paid" });
      expect(await t.db("registrations").where({ reference: registration }).first()).toMatchObject({ status: "paid" });
      expect(await t.db("email_outbox").where({ reference: `order:${order}` })).toHaveLength(1);
      expect(await t.db("email_outbox").where({ reference: `registration:${registration}` })).toHaveLength(1);
      // The reconciliation job finds the intents after the restart too (no "No such payment_intent"), and has nothing left to do.
      await age(order, 6);
      await age(registration, 6);
      expect(await reconcile(after.app)).toBe(0);
    } finally {
      await new Promise((r) => server.close(r));
      await after.fake.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("reconciling open payments", () => {
  it("settles a charged shop order and a charged registration that neither the return nor the webhook settled, each with one e-mail", async () => {
    const order = await chargedOrder();
    const registration = await chargedRegistration();
    // Too fresh: the return and the webhook still have their chance.
    expect(await reconcile()).toBe(0);
    await age(order, 6);
    await age(registration, 6);
    expect(await reconcile()).toBe(2);
    expect(await t.db("orders").where({ reference: order }).first()).toMatchObject({ status: "paid" });
    expect(await t.db("registrations").where({ reference: registration }).first()).toMatchObject({ status: "paid" });
    expect(await reconcile()).toBe(0);
    expect(await t.db("email_outbox").where({ reference: `order:${order}` })).toHaveLength(1);
    expect(await t.db("email_outbox").where({ reference: `registration:${registration}` })).toHaveLength(1);
  });

  it("two instances reconciling at once settle a payment once", async () => {
    const order = await chargedOrder();
    await age(order, 6);
    const other = createApp({ ...t });
    const settled = await Promise.all([reconcile(), reconcile(other), reconcile(), reconcile(other)]);
    expect(settled.reduce((a, b) => a + b, 0)).toBe(1);
    expect(await t.db("email_outbox").where({ reference: `order:${order}` })).toHaveLength(1);
    expect(await t.db("payments").where({ reference: order }).first()).toMatchObject({ status: "paid", reconcile_checks: 1 });
  });

  it("leaves a card form nobody confirmed open, and asks about it again only later", async () => {
    const v = await visitor(t.app);
    await v.post("/api/cart/add").send({ shopifyProductId: "1002", shopifyVariantId: "2101", quantity: 1 });
    const cart = (await v.get("/api/cart")).body as { cartItems: { id: string; shopifyProductId: string; shopifyVariantId: string; quantity: number }[] };
    const res = await v.post("/api/cart/checkout").send({
      items: cart.cartItems.map((i) => ({ id: i.id, shopifyProductId: i.shopifyProductId, shopifyVariantId: i.shopifyVariantId, quantity: i.quantity })),
      customerInfo: { firstName: "Open", lastName: "Form", email: "open.form@example.com", phone: "" },
      shippingAddress: ADDRESS,
    });
    const reference = fake.intents.get(intentIdOf(res.body.clientSecret))!.metadata.reference!;
    await age(reference, 6);
    expect(await reconcile()).toBe(0);
    const after = await t.db("payments").where({ reference }).first();
    expect(after).toMatchObject({ status: "pending", reconcile_checks: 1 });
    expect(await reconcile()).toBe(0);
    expect((await t.db("payments").where({ reference }).first()).reconcile_checks).toBe(1);
  });
});

describe("a charge an overloaded opening day left open (issue 40: its return and its webhook's delivery answered 503)", () => {
  it("is settled by the job once it is over 5 minutes old, with one e-mail; Stripe's later retry of the webhook changes nothing", async () => {
    const registration = await chargedRegistration();
    const intentId = (await t.db("payments").where({ reference: registration }).first()).provider_payment_id as string;
    const succeeded = fake.events.find((e) => e.type === "payment_intent.succeeded" && (e.data.object as { id: string }).id === intentId)!;
    // The overloaded instance: its database pool timed out, the webhook answered 503 (the browser's return too: never settled).
    const busy = http.createServer((_req, res) => res.writeHead(503).end()).listen(0, "127.0.0.1");
    await new Promise((r) => busy.once("listening", r));
    try {
      fake.setWebhookUrl(`http://127.0.0.1:${(busy.address() as AddressInfo).port}/api/stripe/webhook`);
      expect(await fake.deliver(succeeded)).toBe(503);
    } finally {
      fake.setWebhookUrl(t.webhookUrl);
      await new Promise((r) => busy.close(r));
    }
    expect(await t.db("payments").where({ reference: registration }).first()).toMatchObject({ status: "pending" });
    expect(await reconcile()).toBe(0);
    await age(registration, 6);
    expect(await reconcile()).toBe(1);
    expect(await t.db("registrations").where({ reference: registration }).first()).toMatchObject({ status: "paid" });
    expect(await t.db("payments").where({ reference: registration }).first()).toMatchObject({ status: "paid" });
    // Stripe's retry (a minute after the failed delivery, then 5 min, 30 min ... for three days) reaches a settled payment.
    expect(await fake.deliver(succeeded)).toBe(200);
    expect(await t.db("payments").where({ reference: registration }).first()).toMatchObject({ status: "paid" });
    expect(await t.db("email_outbox").where({ reference: `registration:${registration}` })).toHaveLength(1);
  });
});
