import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ADDRESS } from "../support/address.ts";
import { createTestApp, type TestApp } from "../support/app.ts";
import { visitor } from "../support/http.ts";
import { startFakeShopify, type FakeShopify } from "../fakes/shopify.ts";
import { pino } from "pino";
import { createDb } from "../../src/db/knex.ts";
import { MAX_ATTEMPTS } from "../../src/db/jobQueue.ts";
import { createShopifyWriteBacks } from "../../src/orders/shopifyWriteBack.ts";
import { untilRead as until } from "../support/until.ts";

let t: TestApp;
let shopify: FakeShopify;
beforeAll(async () => {
  shopify = await startFakeShopify();
  t = await createTestApp(shopify.env());
  t.gateway.offline!.autoDeliver = false;
});
afterAll(async () => {
  await t?.close();
  await shopify?.stop();
});

const CUSTOMER = { firstName: "Cael", lastName: "Sanderson", email: "cael@example.com", phone: "" };

async function paidOrder(): Promise<string> {
  const v = await visitor(t.app);
  await v.post("/api/cart/add").send({ shopifyProductId: "gid://shopify/Product/1001", shopifyVariantId: "gid://shopify/ProductVariant/2003", quantity: 2, price: 0.01 });
  await v.post("/api/cart/add").send({ shopifyProductId: "gid://shopify/Product/1002", shopifyVariantId: "gid://shopify/ProductVariant/2101", quantity: 1 });
  const cart = (await v.get("/api/cart")).body as { cartItems: { id: string; shopifyProductId: string; shopifyVariantId: string; quantity: number }[] };
  const res = await v.post("/api/cart/checkout").send({ items: cart.cartItems, customerInfo: CUSTOMER, shippingAddress: ADDRESS });
  expect(res.status).toBe(200);
  const intentId = (res.body.clientSecret as string).split("_secret_")[0]!;
  t.gateway.offline!.confirm(intentId, { number: "4242424242424242" });
  const done = await v.post("/api/cart/checkout/complete").send({ paymentIntentId: intentId });
  expect(done.body.status).toBe("paid");
  return res.body.orderReference as string;
}

type OrderRow = { id: number; status: string; shopify_sync_status: string; shopify_order_id: string | null; shopify_error: string | null };
type WriteBackRow = { id: number; status: string; attempts: number; last_error: string | null; shopify_order_id: string | null };

const orderRow = (reference: string) => t.db("orders").where({ reference }).first() as Promise<OrderRow>;
async function writeBackOf(reference: string): Promise<WriteBackRow> {
  const order = await orderRow(reference);
  return t.db("shopify_writebacks").where({ order_id: order.id }).first();
}
const sentFor = (reference: string) => shopify.orders.filter((o) => o.input.sourceIdentifier === reference);
/** The retry is due now instead of after its backoff. */
const makeDue = (reference: string) =>
  t.db("shopify_writebacks").whereIn("order_id", t.db("orders").where({ reference }).select("id")).update({ next_attempt_at: new Date(Date.now() - 1000) });

describe("Shopify Admin write-back of paid orders", () => {
  it("creates the paid order in Shopify once, with its lines, prices, payment and a stock decrement", async () => {
    const reference = await paidOrder();
    const row = await until(() => orderRow(reference), (r) => r.shopify_sync_status !== "pending");
    expect(row.shopify_sync_status).toBe("synced");
    expect(sentFor(reference)).toHaveLength(1);
    const sent = shopify.orders.find((o) => o.id === row.shopify_order_id)!;
    const input = sent.input as { email: string; financialStatus: string; sourceIdentifier: string; lineItems: { variantId: string; quantity: number; priceSet: { shopMoney: { amount: string } } }[]; transactions: { amountSet: { shopMoney: { amount: string } } }[] };
    expect(input).toMatchObject({ email: "cael@example.com", financialStatus: "PAID", sourceIdentifier: reference });
    expect(input.lineItems.map((l) => [l.variantId, l.quantity, l.priceSet.shopMoney.amount])).toEqual([
      ["gid://shopify/ProductVariant/2003", 2, "32.00"],
      ["gid://shopify/ProductVariant/2101", 1, "28.00"],
    ]);
    expect(input.transactions[0]!.amountSet.shopMoney.amount).toBe("92.00");
    // The parcel's address and the shipping charged (free over $75) go with it.
    expect(sent.input).toMatchObject({
      shippingAddress: { firstName: "Jordan", lastName: "Burroughs", address1: ADDRESS.line1, address2: ADDRESS.line2, city: ADDRESS.city, provinceCode: "AL", zip: "35203", countryCode: "US" },
      shippingLines: [{ title: "Free shipping (orders over $75)", priceSet: { shopMoney: { amount: "0.00", currencyCode: "USD" } } }],
    });
    // Shopify's default (BYPASS) leaves its stock untouched: the request must ask for the decrement.
    const call = shopify.calls.find((c) => c.api === "admin" && (c.variables.order as { sourceIdentifier?: string } | undefined)?.sourceIdentifier === reference)!;
    expect(call.variables.options).toMatchObject({ inventoryBehaviour: "DECREMENT_OBEYING_POLICY", sendReceipt: false });
    // The order is marked synced before its job is marked sent (two statements): wait for both.
    const job = await until(() => writeBackOf(reference), (j) => j.status !== "sending");
    expect(job).toMatchObject({ status: "sent", attempts: 1, shopify_order_id: row.shopify_order_id });
    // Nothing is due any more: another pass writes nothing.
    await t.shopifyWriteBacks!.drain();
    expect(sentFor(reference)).toHaveLength(1);
    // A worker that wrote the order and died before marking the job done: its stale claim is taken over, without a second order.
    await t.db("shopify_writebacks").where({ id: job.id }).update({ status: "sending", claimed_at: new Date(Date.now() - 10 * 60_000) });
    expect(await t.shopifyWriteBacks!.drain()).toBe(1);
    expect(sentFor(reference)).toHaveLength(1);
    expect(await writeBackOf(reference)).toMatchObject({ status: "sent", attempts: 2 });
  });

  it("a Shopify outage keeps the order paid and the write-back queued; it is retried with backoff and written once", async () => {
    shopify.setMode("down");
    let reference: string;
    try {
      reference = await paidOrder(); // the catalogue is still cached; only the Admin API call fails
      const job = await until(() => writeBackOf(reference), (j) => j.attempts >= 1 && j.status === "pending");
      expect(job.status).toBe("pending");
      expect(job.attempts).toBe(1);
      expect(job.last_error).toMatch(/503|Service Unavailable/i);
      // Not due yet: the backoff holds it.
      expect(await t.shopifyWriteBacks!.drain()).toBe(0);
      await makeDue(reference);
      expect(await t.shopifyWriteBacks!.drain()).toBe(0);
      expect((await writeBackOf(reference)).attempts).toBe(2);
    } finally {
      shopify.setMode("up");
    }
    const order = await orderRow(reference);
    expect(order).toMatchObject({ status: "paid", shopify_sync_status: "pending" });
    expect(order.shopify_error).toBeTruthy();
    expect(sentFor(reference)).toHaveLength(0);

    await makeDue(reference);
    expect(await t.shopifyWriteBacks!.drain()).toBe(1);
    expect(await t.shopifyWriteBacks!.drain()).toBe(0);
    expect(sentFor(reference)).toHaveLength(1);
    expect(await writeBackOf(reference)).toMatchObject({ status: "sent", attempts: 3, last_error: null });
    expect(await orderRow(reference)).toMatchObject({ shopify_sync_status: "synced", shopify_error: null, shopify_order_id: sentFor(reference)[0]!.id });
  });

  it("gives up after the last attempt: the row says failed with its error, the order too, and an error is logged", async () => {
    const lines: { level: number; msg: string; queue?: string }[] = [];
    const logger = pino({ level: "info" }, { write: (s: string) => void lines.push(JSON.parse(s)) });
    const queue = createShopifyWriteBacks({ db: t.db, shopify: t.config.shopify, logger })!;
    shopify.setMode("down");
    let reference: string;
    try {
      reference = await paidOrder();
      await until(() => writeBackOf(reference), (j) => j.attempts >= 1 && j.status === "pending");
      await t.db("shopify_writebacks").where({ id: (await writeBackOf(reference)).id }).update({ attempts: MAX_ATTEMPTS - 1, next_attempt_at: new Date(Date.now() - 1000) });
      expect(await queue.drain()).toBe(0);
    } finally {
      shopify.setMode("up");
    }
    expect(await writeBackOf(reference)).toMatchObject({ status: "failed", attempts: MAX_ATTEMPTS });
    expect((await writeBackOf(reference)).last_error).toBeTruthy();
    expect(await orderRow(reference)).toMatchObject({ status: "paid", shopify_sync_status: "failed" });
    expect(lines.some((l) => l.level === 50 && l.queue === "shopify write-back")).toBe(true);
    // Failed for good: no pass picks it up again.
    expect(await queue.drain()).toBe(0);
    expect(sentFor(reference)).toHaveLength(0);
  });

  it("two app instances working the queue at once write each order once", async () => {
    shopify.setMode("down");
    const references: string[] = [];
    try {
      for (let i = 0; i < 3; i++) references.push(await paidOrder());
      for (const r of references) await until(() => writeBackOf(r), (j) => j.attempts >= 1 && j.status === "pending");
    } finally {
      shopify.setMode("up");
    }
    for (const r of references) await makeDue(r);
    const other = createDb(t.config.database, t.logger);
    try {
      // On SQLite the in-memory database is one connection: both workers share it, as two processes share the file.
      const otherDb = t.backend === "mysql" ? other : t.db;
      const a = createShopifyWriteBacks({ db: t.db, shopify: t.config.shopify, logger: t.logger })!;
      const b = createShopifyWriteBacks({ db: otherDb, shopify: t.config.shopify, logger: t.logger })!;
      const [doneA, doneB] = await Promise.all([a.drain(), b.drain()]);
      expect(doneA + doneB).toBe(3);
    } finally {
      await other.destroy();
    }
    for (const r of references) {
      expect(sentFor(r)).toHaveLength(1);
      expect((await writeBackOf(r)).status).toBe("sent");
    }
  });
});
