import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { ADDRESS } from "../support/address.ts";
import { createPayingTestApp, type PayingTestApp } from "../support/app.ts";
import { textOf, visitor } from "../support/http.ts";
import type { FakeStripe } from "../../src/payments/offline/fakeStripeServer.ts";
import type { FakeEvent } from "../../src/payments/offline/fakeObjects.ts";
import type { PaymentCore, PaymentKindHandler } from "../../src/payments/core.ts";
import type { PaymentRow } from "../../src/payments/repository.ts";
import { ORDER_KIND, registerOrderPayments } from "../../src/orders/checkout.ts";
import { insertOrder } from "../../src/orders/repository.ts";
import { buildSite } from "../../src/shared/site.ts";
import { until } from "../support/until.ts";

let t: PayingTestApp;
let fake: FakeStripe;

// The real stripe SDK talks to the offline fake; the fake delivers signed webhooks to the listening app.
beforeAll(async () => {
  t = await createPayingTestApp();
  fake = t.fake;
});
afterAll(async () => {
  await t?.close();
});
beforeEach(() => {
  fake.autoDeliver = true;
});

const CUSTOMER = { firstName: "Jordan", lastName: "Burroughs", email: "jordan@example.com", phone: "205-555-0100" };
type Cart = { cartItems: { id: string; shopifyProductId: string; shopifyVariantId: string; quantity: number; price: string }[]; subtotal: string; itemCount: number };

async function shopper() {
  const v = await visitor(t.app);
  await v.post("/api/cart/add").send({ shopifyProductId: "1001", shopifyVariantId: "2001", quantity: 1 }); // tee S $32
  await v.post("/api/cart/add").send({ shopifyProductId: "1001", shopifyVariantId: "2003", quantity: 2 }); // tee L $32
  await v.post("/api/cart/add").send({ shopifyProductId: "1002", shopifyVariantId: "2101", quantity: 1 }); // cap $28
  const cart = (await v.get("/api/cart")).body as Cart;
  return { v, cart };
}

const checkoutBody = (cart: Cart, customerInfo: object = CUSTOMER) => ({
  items: cart.cartItems.map((i) => ({ id: i.id, shopifyProductId: i.shopifyProductId, shopifyVariantId: i.shopifyVariantId, quantity: i.quantity, price: Number(i.price) })),
  customerInfo,
  shippingAddress: ADDRESS,
});

const intentIdOf = (clientSecret: string) => clientSecret.split("_secret_")[0]!;

async function orderFor(reference: string) {
  const order = await t.db("orders").where({ reference }).first();
  const items = await t.db("order_items").where({ order_id: order.id }).orderBy("id");
  const payments = await t.db("payments").where({ kind: "order", reference });
  const emails = await t.db("email_outbox").where({ reference: `order:${reference}` });
  return { order, items, payments, emails };
}

describe("cart checkout", () => {
  it("creates a pending order and one PaymentIntent, then pays it once: return path and webhook", async () => {
    const { v, cart } = await shopper();
    expect(cart.subtotal).toBe("124.00");
    const res = await v.post("/api/cart/checkout").send(checkoutBody(cart));
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ success: true, amount: "124.00" });
    const reference = res.body.orderReference as string;
    const intentId = intentIdOf(res.body.clientSecret);

    let stored = await orderFor(reference);
    expect(stored.order).toMatchObject({ status: "pending_payment", total_cents: 12400, customer_email: "jordan@example.com" });
    expect(stored.items.map((i: { variant_id: string; quantity: number; unit_price_cents: number }) => [i.variant_id, i.quantity, i.unit_price_cents])).toEqual([
      ["2001", 1, 3200],
      ["2003", 2, 3200],
      ["2101", 1, 2800],
    ]);
    expect(stored.payments).toHaveLength(1);
    expect(stored.payments[0]).toMatchObject({ provider_payment_id: intentId, amount_cents: 12400, status: "pending" });
    const intent = fake.intents.get(intentId)!;
    expect(intent).toMatchObject({ amount: 12400, currency: "usd", metadata: { kind: "order", reference } });

    // A second click with the same cart reuses the order and the PaymentIntent.
    const again = await v.post("/api/cart/checkout").send(checkoutBody(cart));
    expect(again.body.orderReference).toBe(reference);
    expect(intentIdOf(again.body.clientSecret)).toBe(intentId);
    expect(await t.db("orders").where({ customer_email: "jordan@example.com", status: "pending_payment" })).toHaveLength(1);

    // Stripe.js confirms the card; the fake sends payment_intent.succeeded to the webhook.
    expect(fake.confirm(intentId, { number: "4242 4242 4242 4242" }).status).toBe(200);
    const done = await v.post("/api/cart/checkout/complete").send({ paymentIntentId: intentId });
    expect(done.status).toBe(200);
    expect(done.body).toMatchObject({ success: true, status: "paid", redirect: "/shop?success=true" });
    await fake.idle();

    stored = await orderFor(reference);
    expect(stored.order.status).toBe("paid");
    expect(stored.payments[0].status).toBe("paid");
    expect(stored.emails).toHaveLength(1);
    expect(stored.emails[0]).toMatchObject({ to_address: "jordan@example.com", kind: "order_confirmation" });
    expect(stored.emails[0].text_body).toContain("$124.00");
    const events = await t.db("stripe_events").where({ provider_payment_id: intentId });
    expect(events.map((e: { type: string }) => e.type)).toEqual(["payment_intent.succeeded"]);
    expect(events[0].processed_at).not.toBeNull();

    // The cart is empty and the next page shows the spec's success toast.
    expect(((await v.get("/api/cart")).body as Cart).itemCount).toBe(0);
    const shop = await v.get("/shop?success=true");
    expect(textOf(shop.text)).toContain("Payment Successful!");
    expect(textOf(shop.text)).toContain("Your order has been placed successfully. You'll receive a confirmation email shortly.");

    // The e-mail goes out through the outbox (woken once the payment committed).
    await t.outbox.drain();
    expect((await t.db("email_outbox").where({ reference: `order:${reference}` }).first()).status).toBe("sent");
  });

  it("a declined card leaves the order unpaid and the cart intact; the same PaymentIntent can then be paid", async () => {
    const { v, cart } = await shopper();
    const res = await v.post("/api/cart/checkout").send(checkoutBody(cart));
    const intentId = intentIdOf(res.body.clientSecret);
    const reference = res.body.orderReference as string;

    const declined = fake.confirm(intentId, { number: "4000000000000002" });
    expect(declined.status).toBe(402);
    expect((declined.body.error as { message: string }).message).toBe("Your card was declined.");
    await fake.idle();
    const complete = await v.post("/api/cart/checkout/complete").send({ paymentIntentId: intentId });
    expect(complete.status).toBe(402);
    expect(complete.body.error).toBe("Your card was declined.");
    let stored = await orderFor(reference);
    expect(stored.order.status).toBe("pending_payment");
    expect(stored.payments[0]).toMatchObject({ status: "failed", last_error: "Your card was declined." });
    expect(stored.emails).toHaveLength(0);
    expect(((await v.get("/api/cart")).body as Cart).itemCount).toBe(4);

    const funds = fake.confirm(intentId, { number: "4000 0000 0000 9995" });
    expect((funds.body.error as { message: string }).message).toBe("Your card has insufficient funds.");

    const retry = await v.post("/api/cart/checkout").send(checkoutBody(cart));
    expect(intentIdOf(retry.body.clientSecret)).toBe(intentId);
    fake.confirm(intentId, { number: "4242424242424242" });
    await fake.idle();
    stored = await orderFor(reference);
    expect(stored.order.status).toBe("paid");
    expect(stored.payments[0].paid_via).toBe("webhook");
    expect(stored.emails).toHaveLength(1);
    // Only the webhook saw it (the browser never returned): whatever page comes next shows an empty cart.
    expect((await v.get("/about")).text).toContain('aria-label="Cart, 0 items"');
    expect(((await v.get("/api/cart")).body as Cart).itemCount).toBe(0);
  });

  it("refuses an empty cart, items that do not match the cart, and missing customer info", async () => {
    const empty = await visitor(t.app);
    const none = await empty.post("/api/cart/checkout").send({ items: [], customerInfo: CUSTOMER, shippingAddress: ADDRESS });
    expect(none.status).toBe(400);
    expect(none.body.error).toBe("Your cart is empty");

    const { v, cart } = await shopper();
    const missing = await v.post("/api/cart/checkout").send(checkoutBody(cart, { firstName: "", lastName: "B", email: "j@example.com" }));
    expect(missing.status).toBe(400);
    expect(missing.body.error).toBe("Please fill in all required fields.");
    const badEmail = await v.post("/api/cart/checkout").send(checkoutBody(cart, { ...CUSTOMER, email: "not-an-email" }));
    expect(badEmail.status).toBe(400);
    expect(badEmail.body.error).toBe("Please enter a valid email address");
    const tampered = checkoutBody(cart);
    tampered.items[0]!.quantity = 50;
    const mismatch = await v.post("/api/cart/checkout").send(tampered);
    expect(mismatch.status).toBe(409);
    expect(mismatch.body.error).toBe("Your cart has changed. Please review your cart and try again.");
    const fewer = await v.post("/api/cart/checkout").send({ ...checkoutBody(cart), items: checkoutBody(cart).items.slice(1) });
    expect(fewer.status).toBe(409);
    const malformed = await v.post("/api/cart/checkout").send({ items: "all of them", customerInfo: CUSTOMER });
    expect(malformed.status).toBe(400);
    expect(await t.db("orders").where({ customer_last_name: "B" })).toHaveLength(0);
  });

  it("a changed cart replaces the pending order and cancels its PaymentIntent", async () => {
    const { v, cart } = await shopper();
    const first = await v.post("/api/cart/checkout").send(checkoutBody(cart));
    await v.patch(`/api/cart/items/${cart.cartItems[0]!.id}`).send({ quantity: 2 });
    const changed = (await v.get("/api/cart")).body as Cart;
    const second = await v.post("/api/cart/checkout").send(checkoutBody(changed));
    expect(second.status).toBe(200);
    expect(second.body.orderReference).not.toBe(first.body.orderReference);
    expect(second.body.amount).toBe("156.00");
    expect((await t.db("orders").where({ reference: first.body.orderReference }).first()).status).toBe("canceled");
    expect(fake.intents.get(intentIdOf(first.body.clientSecret))!.status).toBe("canceled");
  });

  it("the return path and the webhook arriving together mark the order paid once, with one e-mail", async () => {
    fake.autoDeliver = false;
    const { v, cart } = await shopper();
    const res = await v.post("/api/cart/checkout").send(checkoutBody(cart));
    const intentId = intentIdOf(res.body.clientSecret);
    const reference = res.body.orderReference as string;
    const before = fake.events.length;
    fake.confirm(intentId, { number: "4242424242424242" });
    const succeeded = fake.events.slice(before).find((e) => e.type === "payment_intent.succeeded")!;

    const [ret, hook, hook2] = await Promise.all([
      v.post("/api/cart/checkout/complete").send({ paymentIntentId: intentId }),
      fake.deliver(succeeded),
      fake.deliver(succeeded),
    ]);
    expect(ret.status).toBe(200);
    expect(hook).toBe(200);
    expect(hook2).toBe(200);
    const stored = await orderFor(reference);
    expect(stored.order.status).toBe("paid");
    expect(stored.payments[0].status).toBe("paid");
    expect(stored.emails).toHaveLength(1);
    expect(await t.db("stripe_events").where({ event_id: succeeded.id })).toHaveLength(1);
  });

  it("a PaymentIntent that succeeded for another amount than the order is never marked paid: it waits for review", async () => {
    fake.autoDeliver = false;
    const { v, cart } = await shopper();
    const res = await v.post("/api/cart/checkout").send(checkoutBody(cart));
    const intentId = intentIdOf(res.body.clientSecret);
    fake.intents.get(intentId)!.amount = 100; // changed behind our back
    fake.confirm(intentId, { number: "4242424242424242" });
    const ret = await v.post("/api/cart/checkout/complete").send({ paymentIntentId: intentId });
    expect(ret.status).toBe(409);
    const stored = await orderFor(res.body.orderReference);
    expect(stored.order.status).toBe("pending_payment");
    expect(stored.payments[0]).toMatchObject({ status: "needs_review", review_reason: "amount 100 is not the payment's 12400" });
    expect(stored.emails).toHaveLength(0);
  });

  it("refuses to complete someone else's payment", async () => {
    fake.autoDeliver = false;
    const a = await shopper();
    const res = await a.v.post("/api/cart/checkout").send(checkoutBody(a.cart));
    const b = await visitor(t.app);
    const stolen = await b.post("/api/cart/checkout/complete").send({ paymentIntentId: intentIdOf(res.body.clientSecret) });
    expect(stolen.status).toBe(403);
    const bad = await b.post("/api/cart/checkout/complete").send({ paymentIntentId: "not an id" });
    expect(bad.status).toBe(400);
  });
});

describe("POST /api/stripe/webhook", () => {
  async function paidEvent(): Promise<{ event: FakeEvent; reference: string }> {
    fake.autoDeliver = false;
    const { v, cart } = await shopper();
    const res = await v.post("/api/cart/checkout").send(checkoutBody(cart));
    const before = fake.events.length;
    fake.confirm(intentIdOf(res.body.clientSecret), { number: "4242424242424242" });
    return { event: fake.events.slice(before).find((e) => e.type === "payment_intent.succeeded")!, reference: res.body.orderReference };
  }

  it("answers 400 to a bad or missing signature and changes nothing", async () => {
    const { event, reference } = await paidEvent();
    const forged = fake.sign(JSON.stringify({ ...event, id: "evt_forged" }));
    expect(await fake.deliver(event, forged)).toBe(400);
    const unsigned = await fetch(t.webhookUrl, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(event) });
    expect(unsigned.status).toBe(400);
    const stale = fake.sign(JSON.stringify(event, null, 2), Math.floor(Date.now() / 1000) - 3600);
    expect(await fake.deliver(event, stale)).toBe(400);
    expect((await orderFor(reference)).order.status).toBe("pending_payment");
    expect(await t.db("stripe_events").where({ event_id: event.id })).toHaveLength(0);
  });

  it("processes a valid event once and answers a redelivery as a duplicate", async () => {
    const { event, reference } = await paidEvent();
    expect(await fake.deliver(event)).toBe(200);
    expect(await fake.deliver(event)).toBe(200);
    const stored = await orderFor(reference);
    expect(stored.order.status).toBe("paid");
    expect(stored.emails).toHaveLength(1);
    expect(await t.db("stripe_events").where({ event_id: event.id })).toHaveLength(1);
  });

  it("keeps a paid order paid when an older payment_failed event arrives after the success", async () => {
    fake.autoDeliver = false;
    const { v, cart } = await shopper();
    const res = await v.post("/api/cart/checkout").send(checkoutBody(cart));
    const intentId = intentIdOf(res.body.clientSecret);
    const before = fake.events.length;
    fake.confirm(intentId, { number: "4000000000000002" });
    fake.confirm(intentId, { number: "4242424242424242" });
    const [failed, succeeded] = fake.events.slice(before);
    expect(failed!.type).toBe("payment_intent.payment_failed");
    expect(await fake.deliver(succeeded!)).toBe(200);
    expect(await fake.deliver(failed!)).toBe(200);
    const stored = await orderFor(res.body.orderReference);
    expect(stored.order.status).toBe("paid");
    expect(stored.payments[0].status).toBe("paid");
  });

  it("ignores events it does not handle and PaymentIntents it did not create", async () => {
    const { event, reference } = await paidEvent();
    const other = { ...event, id: "evt_other_type", type: "customer.created" };
    expect(await fake.deliver(other)).toBe(200);
    const foreign = { ...event, id: "evt_foreign", data: { object: { ...event.data.object, id: "pi_someone_else" } } };
    expect(await fake.deliver(foreign)).toBe(200);
    expect((await orderFor(reference)).order.status).toBe("pending_payment");
  });

  it("answers 500 when processing fails, so Stripe retries, and succeeds on the retry", async () => {
    const { event, reference } = await paidEvent();
    await t.db.schema.renameTable("email_outbox", "email_outbox_away");
    try {
      expect(await fake.deliver(event)).toBe(500);
    } finally {
      await t.db.schema.renameTable("email_outbox_away", "email_outbox");
    }
    expect((await orderFor(reference)).order.status).toBe("pending_payment");
    const row = await t.db("stripe_events").where({ event_id: event.id }).first();
    expect(row.processed_at).toBeNull();
    expect(row.last_error).toBeTruthy();
    expect(await fake.deliver(event)).toBe(200);
    const stored = await orderFor(reference);
    expect(stored.order.status).toBe("paid");
    expect(stored.emails).toHaveLength(1);
  });

  it("the fake's automatic delivery (with retries) pays an order whose browser never came back", async () => {
    fake.autoDeliver = true;
    const { v, cart } = await shopper();
    const res = await v.post("/api/cart/checkout").send(checkoutBody(cart));
    const intentId = intentIdOf(res.body.clientSecret);
    fake.confirm(intentId, { number: "4242424242424242" });
    await until(async () => (await orderFor(res.body.orderReference)).order.status === "paid");
    await fake.idle();
    const succeeded = fake.events.find((e) => e.type === "payment_intent.succeeded" && e.data.object.id === intentId)!;
    expect(fake.deliveries.filter((d) => d.eventId === succeeded.id && d.status === 200)).toHaveLength(1);
  });
});

describe("the shop's payment handler", () => {
  it("marks an order paid once: a second onPaid for it answers duplicate and queues no second e-mail", async () => {
    let handler: PaymentKindHandler | undefined;
    const registry = { register: (kind: string, h: PaymentKindHandler) => kind === ORDER_KIND && (handler = h) } as unknown as PaymentCore;
    registerOrderPayments({ db: t.db, paymentCore: registry, outbox: t.outbox, logger: t.logger, site: buildSite("Ironside"), shopifyWriteBacks: undefined, shippingFlatRateCents: 795, publicUrl: "http://localhost" });
    const reference = `GUARD${Date.now().toString(36).toUpperCase()}`;
    await t.db.transaction((trx) =>
      insertOrder(trx, {
        reference,
        checkoutKey: "guard-test",
        customer: CUSTOMER,
        address: ADDRESS,
        subtotalCents: 3200,
        shippingCents: 0,
        totalCents: 3200,
        fingerprint: "f",
        lines: [{ productId: "1001", variantId: "2001", productHandle: null, productTitle: "Tee", variantTitle: "S", selectedSize: null, selectedColor: null, unitPriceCents: 3200, quantity: 1, cartLineId: null }],
      }),
    );
    const payment = { kind: ORDER_KIND, reference } as PaymentRow;
    expect(await t.db.transaction((trx) => handler!.onPaid(trx, payment))).toBe("accepted");
    expect(await t.db.transaction((trx) => handler!.onPaid(trx, payment))).toBe("duplicate");
    const stored = await orderFor(reference);
    expect(stored.order.status).toBe("paid");
    expect(stored.emails).toHaveLength(1);
    expect(await t.db.transaction((trx) => handler!.expected!(trx, reference))).toEqual({ amountCents: 3200 });
  });
});
