import request from "supertest";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { ADDRESS } from "../support/address.ts";
import { backend, createPayingTestApp, type PayingTestApp } from "../support/app.ts";
import { textOf, visitor } from "../support/http.ts";
import { createApp } from "../../src/app.ts";
import { createDb } from "../../src/db/knex.ts";
import type { FakeStripe } from "../../src/payments/offline/fakeStripeServer.ts";

let t: PayingTestApp;
let fake: FakeStripe;

beforeAll(async () => {
  t = await createPayingTestApp();
  fake = t.fake;
});
afterAll(async () => {
  await t?.close();
});
beforeEach(() => {
  fake.autoDeliver = false;
});

const CUSTOMER = { firstName: "Helen", lastName: "Maroulis", email: "helen@example.com", phone: "" };
type Line = { id: string; shopifyProductId: string; shopifyVariantId: string; quantity: number; price: string };
type Cart = { cartItems: Line[]; subtotal: string; itemCount: number };
type Visitor = Awaited<ReturnType<typeof visitor>>;

const TEE_S = { shopifyProductId: "1001", shopifyVariantId: "2001" };
const TEE_L = { shopifyProductId: "1001", shopifyVariantId: "2003" };
const CAP = { shopifyProductId: "1002", shopifyVariantId: "2101" };

const cartOf = async (v: Visitor) => (await v.get("/api/cart")).body as Cart;
const checkoutBody = (cart: Cart) => ({
  items: cart.cartItems.map((i) => ({ id: i.id, shopifyProductId: i.shopifyProductId, shopifyVariantId: i.shopifyVariantId, quantity: i.quantity })),
  customerInfo: CUSTOMER,
  shippingAddress: ADDRESS,
});
const intentIdOf = (clientSecret: string) => clientSecret.split("_secret_")[0]!;
const sidOf = (res: { headers: Record<string, unknown> }) => {
  const cookies = (res.headers["set-cookie"] as string[] | undefined) ?? [];
  return cookies.map((c) => /^sid=([^;]*)/.exec(c)?.[1]).find(Boolean);
};
const intentsFor = (reference: string) => [...fake.intents.values()].filter((i) => i.metadata.reference === reference);

async function shopper(lines: { shopifyProductId: string; shopifyVariantId: string; quantity: number }[]) {
  const v = await visitor(t.app);
  let sid: string | undefined;
  for (const l of lines) {
    const res = await v.post("/api/cart/add").send(l);
    expect(res.status).toBe(200);
    sid = sidOf(res) ?? sid;
  }
  return { v, cart: await cartOf(v), sid: sid! };
}

describe("checkout races", () => {
  it("two checkouts at once from one session give one order and one PaymentIntent, paid once; both returns are accepted", async () => {
    const { v, cart } = await shopper([{ ...TEE_S, quantity: 1 }, { ...CAP, quantity: 1 }]);
    const [a, b] = await Promise.all([v.post("/api/cart/checkout").send(checkoutBody(cart)), v.post("/api/cart/checkout").send(checkoutBody(cart))]);
    expect([a.status, b.status]).toEqual([200, 200]);
    expect(a.body.orderReference).toBe(b.body.orderReference);
    const reference = a.body.orderReference as string;
    expect(intentIdOf(a.body.clientSecret)).toBe(intentIdOf(b.body.clientSecret));
    expect(await t.db("orders").where({ customer_email: CUSTOMER.email, status: "pending_payment" })).toHaveLength(1);
    expect(await t.db("payments").where({ kind: "order", reference })).toHaveLength(1);
    expect(intentsFor(reference)).toHaveLength(1);

    const intentId = intentIdOf(b.body.clientSecret);
    const before = fake.events.length;
    fake.confirm(intentId, { number: "4242424242424242" });
    const succeeded = fake.events.slice(before).find((e) => e.type === "payment_intent.succeeded")!;
    // The browser of each request comes back (and the webhook arrives, twice): all accepted, paid once.
    const [r1, r2, h1, h2] = await Promise.all([
      v.post("/api/cart/checkout/complete").send({ paymentIntentId: intentIdOf(a.body.clientSecret) }),
      v.post("/api/cart/checkout/complete").send({ paymentIntentId: intentId }),
      fake.deliver(succeeded),
      fake.deliver(succeeded),
    ]);
    expect([r1.status, r2.status, h1, h2]).toEqual([200, 200, 200, 200]);
    expect(r2.body).toMatchObject({ success: true, status: "paid", orderReference: reference });
    expect((await t.db("orders").where({ reference }).first()).status).toBe("paid");
    expect(await t.db("payments").where({ kind: "order", reference, status: "paid" })).toHaveLength(1);
    expect(await t.db("email_outbox").where({ reference: `order:${reference}` })).toHaveLength(1);
    expect((await cartOf(v)).itemCount).toBe(0);
  });

  // Needs a shared database and session store: MySQL + Redis (in-memory SQLite is one process's).
  it.skipIf(backend !== "mysql")("two app instances (own database pools, shared Redis sessions) serialise one session's checkouts", async () => {
    const otherDb = createDb(t.config.database, t.logger);
    try {
      const other = createApp({ ...t, db: otherDb });
      const { v, cart, sid } = await shopper([{ ...TEE_L, quantity: 2 }]);
      const send = (app: typeof t.app) => request(app).post("/api/cart/checkout").set("cookie", `sid=${sid}; vid=${v.agent.jar.getCookie("vid", { domain: "127.0.0.1", path: "/", secure: false, script: false })?.value}`).set("x-csrf-token", v.token).send(checkoutBody(cart));
      const answers = await Promise.all([send(t.app), send(other), send(t.app), send(other)]);
      expect(answers.map((r) => r.status)).toEqual([200, 200, 200, 200]);
      const references = new Set(answers.map((r) => r.body.orderReference as string));
      expect(references.size).toBe(1);
      const [reference] = [...references];
      expect(await t.db("orders").where({ checkout_key: (await t.db("orders").where({ reference }).first()).checkout_key })).toHaveLength(1);
      expect(await t.db("payments").where({ kind: "order", reference })).toHaveLength(1);
      expect(intentsFor(reference!)).toHaveLength(1);
    } finally {
      await otherDb.destroy();
    }
  });

  it("an item added after the PaymentIntent was made stays in the cart when the payment completes; so does a raised quantity", async () => {
    const { v, cart } = await shopper([{ ...TEE_S, quantity: 1 }, { ...TEE_L, quantity: 1 }]);
    const res = await v.post("/api/cart/checkout").send(checkoutBody(cart));
    expect(res.status).toBe(200);
    // Another tab: a cap is added and the large tee raised to 3, while this tab pays the order as it was.
    expect((await v.post("/api/cart/add").send({ ...CAP, quantity: 1 })).status).toBe(200);
    const large = cart.cartItems.find((i) => i.shopifyVariantId === TEE_L.shopifyVariantId)!;
    expect((await v.patch(`/api/cart/items/${large.id}`).send({ quantity: 3 })).status).toBe(200);
    const intentId = intentIdOf(res.body.clientSecret);
    fake.confirm(intentId, { number: "4242424242424242" });
    const done = await v.post("/api/cart/checkout/complete").send({ paymentIntentId: intentId });
    expect(done.body).toMatchObject({ status: "paid", itemCount: 3 });
    const order = await t.db("orders").where({ reference: res.body.orderReference }).first();
    expect(order).toMatchObject({ status: "paid", subtotal_cents: 6400, shipping_cents: 795, total_cents: 7195 });
    const left = await cartOf(v);
    expect(left.cartItems.map((i) => [i.shopifyVariantId, i.quantity])).toEqual([
      [TEE_L.shopifyVariantId, 2],
      [CAP.shopifyVariantId, 1],
    ]);
  });

  it("the same holds when only the webhook saw the payment: the next page removes just the paid lines", async () => {
    fake.autoDeliver = true;
    const { v, cart } = await shopper([{ ...TEE_S, quantity: 2 }]);
    const res = await v.post("/api/cart/checkout").send(checkoutBody(cart));
    expect((await v.post("/api/cart/add").send({ ...CAP, quantity: 1 })).status).toBe(200);
    fake.confirm(intentIdOf(res.body.clientSecret), { number: "4242424242424242" });
    await fake.idle();
    expect((await t.db("orders").where({ reference: res.body.orderReference }).first()).status).toBe("paid");
    expect((await v.get("/about")).text).toContain('aria-label="Cart, 1 item"');
    expect((await cartOf(v)).cartItems.map((i) => [i.shopifyVariantId, i.quantity])).toEqual([[CAP.shopifyVariantId, 1]]);
  });

  it("a card charged before the cart changed: the new checkout says so, the paid lines leave the cart, and the earlier return is accepted", async () => {
    const { v, cart } = await shopper([{ ...TEE_S, quantity: 1 }]);
    const first = await v.post("/api/cart/checkout").send(checkoutBody(cart));
    const firstIntent = intentIdOf(first.body.clientSecret);
    fake.confirm(firstIntent, { number: "4242424242424242" }); // charged; the browser has not come back yet
    // Meanwhile another tab changes the cart and starts a new checkout: the first PaymentIntent cannot be canceled.
    expect((await v.post("/api/cart/add").send({ ...CAP, quantity: 1 })).status).toBe(200);
    const second = await v.post("/api/cart/checkout").send(checkoutBody(await cartOf(v)));
    expect(second.status).toBe(409);
    expect(second.body).toMatchObject({ error: "Your earlier payment went through, so the items it paid for have left your cart. Please review your cart.", orderReference: first.body.orderReference });
    expect(fake.intents.get(firstIntent)!.status).toBe("succeeded");
    expect((await t.db("orders").where({ reference: first.body.orderReference }).first()).status).toBe("paid");
    expect(await t.db("orders").where({ checkout_key: (await t.db("orders").where({ reference: first.body.orderReference }).first()).checkout_key })).toHaveLength(1);
    expect((await cartOf(v)).cartItems.map((i) => i.shopifyVariantId)).toEqual([CAP.shopifyVariantId]);
    expect(second.body.redirect).toBe("/cart"); // the card form shows the cart as it is now, with the toast
    expect(textOf((await v.get("/cart")).text)).toContain("Payment Successful! Your earlier payment went through");

    // The first tab's browser comes back: its payment is this session's, so it is accepted (not a 403).
    const done = await v.post("/api/cart/checkout/complete").send({ paymentIntentId: firstIntent });
    expect(done.status).toBe(200);
    expect(done.body).toMatchObject({ status: "paid", orderReference: first.body.orderReference });
    expect(await t.db("email_outbox").where({ reference: `order:${first.body.orderReference}` })).toHaveLength(1);

    // The cap is bought in a checkout of its own.
    const third = await v.post("/api/cart/checkout").send(checkoutBody(await cartOf(v)));
    expect(third.status).toBe(200);
    expect(third.body).toMatchObject({ subtotal: "28.00", shipping: "7.95", amount: "35.95" });

    // Another visitor, with a checkout of their own, cannot complete this session's payments.
    const { v: stranger, cart: theirs } = await shopper([{ ...TEE_L, quantity: 1 }]);
    expect((await stranger.post("/api/cart/checkout").send(checkoutBody(theirs))).status).toBe(200);
    const stolen = await stranger.post("/api/cart/checkout/complete").send({ paymentIntentId: intentIdOf(third.body.clientSecret) });
    expect(stolen.status).toBe(403);
  });
});

describe("checkout after the card was charged elsewhere", () => {
  it("the same cart checked out again after its PaymentIntent succeeded: no second charge, the paid order is settled and its lines leave the cart", async () => {
    const { v, cart } = await shopper([{ ...TEE_S, quantity: 1 }]);
    const first = await v.post("/api/cart/checkout").send(checkoutBody(cart));
    const intentId = intentIdOf(first.body.clientSecret);
    fake.confirm(intentId, { number: "4242424242424242" }); // paid in one tab; no return, no webhook yet
    const again = await v.post("/api/cart/checkout").send(checkoutBody(cart)); // the pay button in another tab
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({ orderReference: first.body.orderReference, redirect: "/cart", itemCount: 0 });
    expect((await t.db("orders").where({ reference: first.body.orderReference }).first()).status).toBe("paid");
    expect(intentsFor(first.body.orderReference)).toHaveLength(1);
    expect(await t.db("email_outbox").where({ reference: `order:${first.body.orderReference}` })).toHaveLength(1);
    expect((await cartOf(v)).itemCount).toBe(0);
  });
});

describe("session id renewal (a planted cookie does not follow the buyer)", () => {
  it("a checkout start and a payment each give a new session id; the cart and the CSRF token are kept; the old id is gone", async () => {
    const { v, cart, sid: planted } = await shopper([{ ...TEE_S, quantity: 1 }, { ...CAP, quantity: 2 }]);

    const started = await v.post("/api/cart/checkout").send(checkoutBody(cart));
    expect(started.status).toBe(200);
    const afterCheckout = sidOf(started);
    expect(afterCheckout).toBeTruthy();
    expect(afterCheckout).not.toBe(planted);
    expect((await cartOf(v)).itemCount).toBe(3); // kept under the new id
    // The planted cookie now names no session: no cart, no checkout.
    const attacker = await request(t.app).get("/api/cart").set("cookie", `sid=${planted}`);
    expect(attacker.body.itemCount).toBe(0);

    const intentId = intentIdOf(started.body.clientSecret);
    fake.confirm(intentId, { number: "4242424242424242" });
    const done = await v.post("/api/cart/checkout/complete").send({ paymentIntentId: intentId }); // same CSRF token
    expect(done.status).toBe(200);
    const afterPayment = sidOf(done);
    expect(afterPayment).toBeTruthy();
    expect(afterPayment).not.toBe(afterCheckout);
    const stale = await request(t.app).get("/api/cart").set("cookie", `sid=${afterCheckout}`);
    expect(stale.body.itemCount).toBe(0);
    // The visitor's session goes on: the toast, and a cart that works.
    expect((await v.get("/shop?success=true")).text).toContain("Payment Successful!");
    expect((await v.post("/api/cart/add").send({ ...CAP, quantity: 1 })).status).toBe(200);
  });
});
