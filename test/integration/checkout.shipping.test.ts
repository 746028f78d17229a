import fs from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ADDRESS } from "../support/address.ts";
import { createTestApp, type TestApp } from "../support/app.ts";
import { textOf, visitor } from "../support/http.ts";
import { fixtureProducts, startFakeShopify, type FakeShopify } from "../fakes/shopify.ts";

// A catalogue with items priced right at the free-shipping line: $75.00 pays shipping, $75.01 ships free.
let shopify: FakeShopify;
let t: TestApp;
const FLAT = 795;

function withPrices() {
  const products = fixtureProducts();
  const tee = products.find((p) => p.handle === "heavyweight-tee")!;
  tee.variants.nodes[0]!.price = { amount: "75.0", currencyCode: "USD" };
  tee.variants.nodes[1]!.price = { amount: "75.01", currencyCode: "USD" };
  return products;
}

beforeAll(async () => {
  shopify = await startFakeShopify({ products: withPrices() });
  t = await createTestApp({ ...shopify.env(), SHIPPING_FLAT_RATE_CENTS: String(FLAT) });
});
afterAll(async () => {
  await t?.close();
  await shopify?.stop();
});

const CUSTOMER = { firstName: "Helen", lastName: "Maroulis", email: "helen@example.com", phone: "" };
type Cart = { cartItems: { id: string; shopifyProductId: string; shopifyVariantId: string; quantity: number; price: string }[]; subtotal: string };

async function shopper(variantIndex: number, quantity = 1) {
  const v = await visitor(t.app);
  const tee = shopify.products.find((p) => p.handle === "heavyweight-tee")!;
  const variant = tee.variants.nodes[variantIndex]!;
  const added = await v.post("/api/cart/add").send({ shopifyProductId: tee.id, shopifyVariantId: variant.id, quantity });
  expect(added.status).toBe(200);
  const cart = (await v.get("/api/cart")).body as Cart;
  return { v, cart };
}

const body = (cart: Cart, extra: Record<string, unknown> = {}) => ({
  items: cart.cartItems.map((i) => ({ id: i.id, shopifyProductId: i.shopifyProductId, shopifyVariantId: i.shopifyVariantId, quantity: i.quantity, price: Number(i.price) })),
  customerInfo: CUSTOMER,
  shippingAddress: ADDRESS,
  ...extra,
});

const intentIdOf = (clientSecret: string) => clientSecret.split("_secret_")[0]!;
const intentAmount = (id: string) => t.gateway.offline!.intents.get(id)!.amount;

describe("shipping at checkout", () => {
  it("charges the flat rate at $75.00: the order and the PaymentIntent hold subtotal + shipping", async () => {
    const { v, cart } = await shopper(0);
    expect(cart.subtotal).toBe("75.00");
    const res = await v.post("/api/cart/checkout").send(body(cart));
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ subtotal: "75.00", shipping: "7.95", amount: "82.95" });
    const order = await t.db("orders").where({ reference: res.body.orderReference }).first();
    expect(order).toMatchObject({
      subtotal_cents: 7500, shipping_cents: FLAT, total_cents: 7500 + FLAT,
      ship_name: ADDRESS.name, ship_line1: ADDRESS.line1, ship_line2: ADDRESS.line2, ship_city: ADDRESS.city, ship_state: "AL", ship_zip: "35203",
    });
    expect(intentAmount(intentIdOf(res.body.clientSecret))).toBe(7500 + FLAT);
    expect((await t.db("payments").where({ reference: res.body.orderReference }).first()).amount_cents).toBe(7500 + FLAT);
  });

  it("ships free at $75.01", async () => {
    const { v, cart } = await shopper(1);
    const res = await v.post("/api/cart/checkout").send(body(cart));
    expect(res.body).toMatchObject({ subtotal: "75.01", shipping: "0.00", amount: "75.01" });
    expect(intentAmount(intentIdOf(res.body.clientSecret))).toBe(7501);
  });

  it("ignores a shipping amount or total sent by the browser", async () => {
    const { v, cart } = await shopper(0);
    const res = await v.post("/api/cart/checkout").send(body(cart, { shipping: "0.00", shippingCents: 0, amount: "0.50", total: 1 }));
    expect(res.status).toBe(200);
    expect(res.body.amount).toBe("82.95");
    expect(intentAmount(intentIdOf(res.body.clientSecret))).toBe(7500 + FLAT);
  });

  it("refuses an address missing a field with its message, and writes nothing", async () => {
    const { v, cart } = await shopper(0);
    const counts = async () => ({ orders: (await t.db("orders").count({ n: "*" }))[0]!.n, payments: (await t.db("payments").count({ n: "*" }))[0]!.n });
    const before = await counts();
    const missing = await v.post("/api/cart/checkout").send(body(cart, { shippingAddress: { ...ADDRESS, city: "" } }));
    expect(missing.status).toBe(400);
    expect(missing.body.error).toBe("Please fill in all required fields.");
    expect(missing.body.fieldErrors["shippingAddress.city"]).toBe("Enter the city");
    const badZip = await v.post("/api/cart/checkout").send(body(cart, { shippingAddress: { ...ADDRESS, zip: "1234" } }));
    expect(badZip.status).toBe(400);
    expect(badZip.body.error).toBe("Enter a 5-digit ZIP code (or ZIP+4)");
    const none = await v.post("/api/cart/checkout").send({ ...body(cart), shippingAddress: undefined });
    expect(none.status).toBe(400);
    expect(await counts()).toEqual(before);
  });
});

describe("after paying", () => {
  it("shows the confirmation panel to this visitor only, e-mails the address, total and a status link that works", async () => {
    const { v, cart } = await shopper(0);
    const res = await v.post("/api/cart/checkout").send(body(cart));
    const reference = res.body.orderReference as string;
    const intentId = intentIdOf(res.body.clientSecret);

    // Before paying, ?success=true shows no panel: the query string proves nothing.
    expect((await v.get("/shop?success=true")).text).not.toContain("order-confirmation");

    t.gateway.offline!.confirm(intentId, { number: "4242424242424242" });
    const done = await v.post("/api/cart/checkout/complete").send({ paymentIntentId: intentId });
    expect(done.body).toMatchObject({ status: "paid", redirect: "/shop?success=true" });

    const page = await v.get("/shop?success=true");
    const text = textOf(page.text);
    expect(text).toContain(`Order ${reference} is confirmed`);
    expect(text).toContain("helen@example.com");
    expect(text).toContain("Ironside Heavyweight Tee");
    expect(text).toContain("Shipping $7.95");
    expect(text).toContain("Total $82.95");
    for (const line of ["Jordan Burroughs", "2100 1st Avenue North", "Suite 300", "Birmingham, AL 35203"]) expect(text).toContain(line);
    // Without ?success=true, and for another visitor, no panel.
    expect((await v.get("/shop")).text).not.toContain("order-confirmation");
    const stranger = await visitor(t.app);
    expect((await stranger.get("/shop?success=true")).text).not.toContain("order-confirmation");

    // The payment woke the outbox; its pass may still be sending on a loaded machine, and drain() waits for it.
    await t.outbox.drain();
    const email = await t.db("email_outbox").where({ reference: `order:${reference}` }).first();
    expect(email.to_address).toBe("helen@example.com");
    for (const line of ["Shipping: $7.95", "Total paid: $82.95", "Shipping to:", "Jordan Burroughs", "2100 1st Avenue North", "Suite 300", "Birmingham, AL 35203"]) {
      expect(email.text_body).toContain(line);
    }
    // Once sent, the outbox keeps the e-mail without its link's secret: the link is read from the message sent.
    expect(email.status).toBe("sent");
    expect(email.text_body).toMatch(/Your order's status: http:\/\/\S+\/orders\/link-removed-after-sending\n/);
    const sent = fs.readdirSync(t.mailDir).map((f) => fs.readFileSync(`${t.mailDir}/${f}`, "utf8").replace(/=\r?\n/g, "")).find((m) => m.includes(reference))!;
    const link = /Your order's status: (\S+)/.exec(sent)![1]!;
    const path = new URL(link).pathname;
    expect(path).toMatch(/^\/orders\/[A-Za-z0-9_-]{43}$/);
    // Only the token's hash is stored.
    const order = await t.db("orders").where({ reference }).first();
    expect(order.status_token_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(JSON.stringify(order)).not.toContain(path.slice(8));

    const status = await stranger.get(path);
    expect(status.status).toBe(200);
    const statusText = textOf(status.text);
    expect(statusText).toContain(`Order ${reference}`);
    expect(statusText).toContain("Paid: being prepared");
    expect(statusText).toContain("$82.95");
    expect(statusText).toContain("Shipping to Birmingham, AL");
    for (const personal of ["helen@example.com", "Jordan Burroughs", "2100 1st Avenue North", "Maroulis"]) expect(statusText).not.toContain(personal);
    expect(status.text).toContain('<meta name="robots" content="noindex"/>');

    // A wrong or malformed token is an ordinary 404.
    expect((await stranger.get(`/orders/${"A".repeat(43)}`)).status).toBe(404);
    expect((await stranger.get("/orders/abc")).status).toBe(404);
  });

  it("three $32 tees ($96) ship free: the order, e-mail and panel show the same total", async () => {
    const v = await visitor(t.app);
    const tee = shopify.products.find((p) => p.handle === "heavyweight-tee")!;
    await v.post("/api/cart/add").send({ shopifyProductId: tee.id, shopifyVariantId: tee.variants.nodes[2]!.id, quantity: 3 });
    const cart = (await v.get("/api/cart")).body as Cart;
    expect(cart.subtotal).toBe("96.00");
    const res = await v.post("/api/cart/checkout").send(body(cart));
    expect(res.body).toMatchObject({ shipping: "0.00", amount: "96.00" });
    t.gateway.offline!.confirm(intentIdOf(res.body.clientSecret), { number: "4242424242424242" });
    await v.post("/api/cart/checkout/complete").send({ paymentIntentId: intentIdOf(res.body.clientSecret) });
    const text = textOf((await v.get("/shop?success=true")).text);
    expect(text).toContain("Shipping Free");
    expect(text).toContain("Total $96.00");
    const email = await t.db("email_outbox").where({ reference: `order:${res.body.orderReference}` }).first();
    expect(email.text_body).toContain("Shipping: Free");
    expect(email.text_body).toContain("Total paid: $96.00");
  });
});
