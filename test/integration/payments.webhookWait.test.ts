import { afterAll, beforeAll, describe, expect, it } from "vitest";
import request from "supertest";
import { ADDRESS } from "../support/address.ts";
import { backend, createPayingTestApp, type PayingTestApp } from "../support/app.ts";
import { createApp } from "../../src/app.ts";
import { paymentsSettledChannel } from "../../src/payments/settledAnnouncements.ts";
import { createDb } from "../../src/db/knex.ts";
import { visitor } from "../support/http.ts";
import { until } from "../support/until.ts";

/**
 * The payment_intent.succeeded webhook waits for the visitor's return (STRIPE_WEBHOOK_WAIT_MS, src/payments/webhook.ts):
 * the return settles the payment and the webhook, woken when that settlement ends, answers without asking Stripe or
 * taking a lock. Without a return the webhook settles the payment once its wait is over.
 */
const WAIT_MS = 5_000;
let t: PayingTestApp;
/** PaymentIntents the site fetched from Stripe, by id. */
const retrieved: string[] = [];
/** Webhook events whose signature the site checked: from there on, in the same turn of the event loop, a succeeded one waits. */
const verified: string[] = [];

beforeAll(async () => {
  t = await createPayingTestApp({ STRIPE_WEBHOOK_WAIT_MS: String(WAIT_MS) });
  t.fake.autoDeliver = false;
  const retrieve = t.gateway.retrieveIntent.bind(t.gateway);
  t.gateway.retrieveIntent = async (id) => {
    retrieved.push(id);
    return retrieve(id);
  };
  const verify = t.gateway.verifyWebhook.bind(t.gateway);
  t.gateway.verifyWebhook = (raw, signature) => {
    const event = verify(raw, signature);
    verified.push(event.id);
    return event;
  };
});
afterAll(async () => {
  await t?.close();
});

const CUSTOMER = { firstName: "Jordan", lastName: "Burroughs", email: "jordan@example.com", phone: "205-555-0100" };

/** A shopper's order with its PaymentIntent confirmed at Stripe, and the event Stripe would deliver for it. */
async function paidAtStripe() {
  const v = await visitor(t.app);
  await v.post("/api/cart/add").send({ shopifyProductId: "1001", shopifyVariantId: "2001", quantity: 1 });
  const cart = (await v.get("/api/cart")).body as { cartItems: { id: string; shopifyProductId: string; shopifyVariantId: string; quantity: number; price: string }[] };
  const items = cart.cartItems.map((i) => ({ id: i.id, shopifyProductId: i.shopifyProductId, shopifyVariantId: i.shopifyVariantId, quantity: i.quantity, price: Number(i.price) }));
  const res = await v.post("/api/cart/checkout").send({ items, customerInfo: CUSTOMER, shippingAddress: ADDRESS });
  expect(res.status).toBe(200);
  const intentId = (res.body.clientSecret as string).split("_secret_")[0]!;
  const before = t.fake.events.length;
  t.fake.confirm(intentId, { number: "4242424242424242" });
  const succeeded = t.fake.events.slice(before).find((e) => e.type === "payment_intent.succeeded")!;
  return { v, intentId, reference: res.body.orderReference as string, succeeded };
}

const paymentOf = (reference: string) => t.db("payments").where({ kind: "order", reference }).first();

describe("the succeeded webhook waits for the visitor's return", () => {
  it("the return settles the payment during the webhook's wait; the webhook then records the event as processed in one statement, without Stripe or a second settlement", async () => {
    const { v, intentId, reference, succeeded } = await paidAtStripe();
    const sent = Date.now();
    let answeredAt = 0;
    const hook = t.fake.deliver(succeeded).then((status) => ((answeredAt = Date.now()), status));
    await until(() => verified.includes(succeeded.id));
    // Nothing is recorded during the wait: a crash there leaves no answer, and Stripe delivers the event again.
    expect(await t.db("stripe_events").where({ event_id: succeeded.id })).toHaveLength(0);
    const seenBefore = retrieved.length;
    const statements: string[] = [];
    const listener = (q: { sql: string }) => statements.push(q.sql);
    t.db.on("query", listener);
    const ret = await v.post("/api/cart/checkout/complete").send({ paymentIntentId: intentId });
    expect(ret.status).toBe(200);
    expect(await hook).toBe(200);
    t.db.off("query", listener);

    expect(await paymentOf(reference)).toMatchObject({ status: "paid", paid_via: "return" });
    expect((await t.db("orders").where({ reference }).first()).status).toBe("paid");
    expect(await t.db("email_outbox").where({ reference: `order:${reference}` })).toHaveLength(1);
    // The event recorded as processed by one statement: no update of it follows.
    expect(statements.filter((sql) => sql.includes("stripe_events"))).toEqual([expect.stringMatching(/^insert into .stripe_events./)]);
    const recorded = await t.db("stripe_events").where({ event_id: succeeded.id }).first();
    expect(recorded.processed_at).not.toBeNull();
    expect(recorded.last_error).toBeNull();
    // Woken by the return's settlement rather than at the end of its wait.
    expect(answeredAt - sent).toBeLessThan(WAIT_MS);
    // Stripe was asked once, by the return.
    expect(retrieved.slice(seenBefore).filter((id) => id === intentId)).toHaveLength(1);
  });

  it("a webhook delivered after the return settled the payment answers at once, with one statement", async () => {
    const { v, intentId, reference, succeeded } = await paidAtStripe();
    expect((await v.post("/api/cart/checkout/complete").send({ paymentIntentId: intentId })).status).toBe(200);
    const statements: string[] = [];
    const listener = (q: { sql: string }) => statements.push(q.sql);
    t.db.on("query", listener);
    const sent = Date.now();
    expect(await t.fake.deliver(succeeded)).toBe(200);
    const ms = Date.now() - sent;
    t.db.off("query", listener);
    expect(ms).toBeLessThan(WAIT_MS);
    expect(statements.filter((sql) => !sql.includes("content_versions"))).toEqual([expect.stringMatching(/^insert into .stripe_events./)]);
    expect(await paymentOf(reference)).toMatchObject({ status: "paid", paid_via: "return" });
    expect((await t.db("stripe_events").where({ event_id: succeeded.id }).first()).processed_at).not.toBeNull();
  });

  it("an event an earlier, failed delivery recorded is marked processed when the return settles it during the wait", async () => {
    const { v, intentId, succeeded } = await paidAtStripe();
    await t.db("stripe_events").insert({ event_id: succeeded.id, type: succeeded.type, provider_payment_id: intentId, received_at: new Date(), last_error: "an earlier attempt failed" });
    const hook = t.fake.deliver(succeeded);
    await until(() => verified.includes(succeeded.id));
    expect((await v.post("/api/cart/checkout/complete").send({ paymentIntentId: intentId })).status).toBe(200);
    expect(await hook).toBe(200);
    const recorded = await t.db("stripe_events").where({ event_id: succeeded.id }).first();
    expect(recorded.processed_at).not.toBeNull();
    expect(recorded.last_error).toBeNull();
  });

  /** A second instance on the same database; `hearsRedis`: subscribed to the first's announcements. */
  async function acrossInstances(hearsRedis: boolean) {
    const secondDb = createDb(t.config.database, t.logger);
    const second = createApp({ config: t.config, db: secondDb, redis: hearsRedis ? t.redis : undefined, logger: t.logger, outbox: t.outbox, catalogue: t.catalogue, gateway: t.gateway, shopifyWriteBacks: undefined });
    try {
      // Both instances listening before anything is announced (what is published before a subscription is lost).
      const channel = paymentsSettledChannel(t.config.redis?.prefix ?? "");
      if (hearsRedis) await until(async () => Number((await t.redis!.pubSubNumSub(channel))[channel]) >= 2);
      const { v, intentId, reference, succeeded } = await paidAtStripe();
      // Stripe's delivery reaches the second instance; the visitor's browser returns to the first.
      const payload = JSON.stringify(succeeded, null, 2);
      const sent = Date.now();
      // Sent now (a supertest request starts when it is awaited or then'd), answered after the return below.
      const hook = request(second).post("/api/stripe/webhook").set("content-type", "application/json").set("stripe-signature", t.fake.sign(payload)).send(payload).then((r) => ({ status: r.status, ms: Date.now() - sent }));
      await until(() => verified.includes(succeeded.id));
      const seenBefore = retrieved.length;
      const statements: string[] = [];
      const listener = (q: { sql: string }) => statements.push(q.sql);
      secondDb.on("query", listener);
      expect((await v.post("/api/cart/checkout/complete").send({ paymentIntentId: intentId })).status).toBe(200);
      const answer = await hook;
      secondDb.off("query", listener);
      expect(answer.status).toBe(200);

      expect(await paymentOf(reference)).toMatchObject({ status: "paid", paid_via: "return" });
      expect(await t.db("email_outbox").where({ reference: `order:${reference}` })).toHaveLength(1);
      expect((await t.db("stripe_events").where({ event_id: succeeded.id }).first()).processed_at).not.toBeNull();
      expect(retrieved.slice(seenBefore).filter((id) => id === intentId)).toHaveLength(1);
      return { ms: answer.ms, statements: statements.filter((sql) => !sql.includes("content_versions")) };
    } finally {
      await secondDb.destroy();
    }
  }

  it.runIf(backend === "mysql")("across two instances: the return's settlement on one is announced over Redis, and the webhook waiting on the other answers at once, with one statement", async () => {
    const { ms, statements } = await acrossInstances(true);
    expect(ms).toBeLessThan(WAIT_MS);
    expect(statements).toEqual([expect.stringMatching(/^insert into .stripe_events./)]);
  });

  it.runIf(backend === "mysql")("across two instances, the announcement not heard: the webhook waits its whole time, then finds the payment paid without Stripe", async () => {
    const { ms, statements } = await acrossInstances(false);
    expect(ms).toBeGreaterThanOrEqual(WAIT_MS);
    // Recorded, the payment read (paid: settle's early answer), the event marked processed.
    expect(statements).toHaveLength(3);
  });

  it("without a return, the webhook settles the payment itself once its wait is over", async () => {
    const { reference, succeeded } = await paidAtStripe();
    expect(await t.fake.deliver(succeeded)).toBe(200);
    expect(await paymentOf(reference)).toMatchObject({ status: "paid", paid_via: "webhook" });
    expect((await t.db("orders").where({ reference }).first()).status).toBe("paid");
  });
});
