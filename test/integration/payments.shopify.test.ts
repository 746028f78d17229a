import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, type TestApp } from "../support/app.ts";
import { visitor } from "../support/http.ts";
import { startFakeShopify, type FakeShopify } from "../fakes/shopify.ts";

let t: TestApp;
let shopify: FakeShopify;
beforeAll(async () => {
  shopify = await startFakeShopify();
  t = await createTestApp(shopify.env());
  t.payments.offline!.autoDeliver = false;
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
  const res = await v.post("/api/cart/checkout").send({ items: cart.cartItems, customerInfo: CUSTOMER });
  expect(res.status).toBe(200);
  const intentId = (res.body.clientSecret as string).split("_secret_")[0]!;
  t.payments.offline!.confirm(intentId, { number: "4242424242424242" });
  const done = await v.post("/api/cart/checkout/complete").send({ paymentIntentId: intentId });
  expect(done.body.status).toBe("paid");
  return res.body.orderReference as string;
}

async function syncStatus(reference: string): Promise<{ shopify_sync_status: string; shopify_order_id: string | null; shopify_error: string | null }> {
  const end = Date.now() + 5000;
  for (;;) {
    const row = await t.db("orders").where({ reference }).first();
    if (row.shopify_sync_status !== "pending" || Date.now() > end) return row;
    await new Promise((r) => setTimeout(r, 25));
  }
}

describe("Shopify Admin write-back of paid orders", () => {
  it("creates the paid order in Shopify with its lines, prices and payment", async () => {
    const reference = await paidOrder();
    const row = await syncStatus(reference);
    expect(row.shopify_sync_status).toBe("synced");
    const sent = shopify.orders.find((o) => o.id === row.shopify_order_id)!;
    expect(sent).toBeTruthy();
    const input = sent.input as { email: string; financialStatus: string; sourceIdentifier: string; lineItems: { variantId: string; quantity: number; priceSet: { shopMoney: { amount: string } } }[]; transactions: { amountSet: { shopMoney: { amount: string } } }[] };
    expect(input).toMatchObject({ email: "cael@example.com", financialStatus: "PAID", sourceIdentifier: reference });
    expect(input.lineItems.map((l) => [l.variantId, l.quantity, l.priceSet.shopMoney.amount])).toEqual([
      ["gid://shopify/ProductVariant/2003", 2, "32.00"],
      ["gid://shopify/ProductVariant/2101", 1, "28.00"],
    ]);
    expect(input.transactions[0]!.amountSet.shopMoney.amount).toBe("92.00");
  });

  it("keeps the order paid and records the error when Shopify is down", async () => {
    const before = shopify.orders.length;
    shopify.setMode("down");
    let reference: string;
    let row: Awaited<ReturnType<typeof syncStatus>>;
    try {
      reference = await paidOrder(); // the catalogue is still cached; only the Admin API call fails
      row = await syncStatus(reference);
    } finally {
      shopify.setMode("up");
    }
    expect(row.shopify_sync_status).toBe("failed");
    expect(row.shopify_error).toBeTruthy();
    expect((await t.db("orders").where({ reference }).first()).status).toBe("paid");
    expect(shopify.orders.length).toBe(before);
  });
});
