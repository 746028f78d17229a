import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ADDRESS } from "../support/address.ts";
import { createPayingTestApp, type PayingTestApp } from "../support/app.ts";
import { textOf, visitor } from "../support/http.ts";

// A paid order clears its lines from the visitor's cart: on the browser's return call, and lazily (the next time the
// session's cart is read) when only the webhook settled it.
let t: PayingTestApp;
beforeAll(async () => {
  t = await createPayingTestApp();
});
afterAll(async () => {
  await t?.close();
});

const CUSTOMER = { firstName: "Jordan", lastName: "Burroughs", email: "jordan@example.com", phone: "205-555-0100" };
type Cart = { cartItems: { id: string; shopifyProductId: string; shopifyVariantId: string; quantity: number; price: string }[]; itemCount: number };

/** A visitor with two tees in the cart and a started checkout; the card is then confirmed (the webhook settles it). */
async function paidByCard() {
  const v = await visitor(t.app);
  await v.post("/api/cart/add").send({ shopifyProductId: "1001", shopifyVariantId: "2001", quantity: 2 });
  const cart = (await v.get("/api/cart")).body as Cart;
  const started = await v.post("/api/cart/checkout").send({
    items: cart.cartItems.map((i) => ({ id: i.id, shopifyProductId: i.shopifyProductId, shopifyVariantId: i.shopifyVariantId, quantity: i.quantity, price: Number(i.price) })),
    customerInfo: CUSTOMER,
    shippingAddress: ADDRESS,
  });
  expect(started.status).toBe(200);
  const paymentIntentId = (started.body.clientSecret as string).split("_secret_")[0]!;
  t.fake.confirm(paymentIntentId, { number: "4242424242424242" });
  await t.fake.idle();
  const reference = started.body.orderReference as string;
  expect((await t.db("orders").where({ reference }).first()).status).toBe("paid");
  return { v, paymentIntentId, reference };
}

describe("settling a paid order for the visitor's session", () => {
  it("the return call empties the cart and names the order on the shop's confirmation panel", async () => {
    const { v, paymentIntentId, reference } = await paidByCard();
    const complete = await v.post("/api/cart/checkout/complete").send({ paymentIntentId });
    expect(complete.body).toMatchObject({ success: true, status: "paid", orderReference: reference, itemCount: 0 });
    expect(((await v.get("/api/cart")).body as Cart).itemCount).toBe(0);
    const shop = textOf((await v.get("/shop?success=true")).text);
    expect(shop).toContain("Payment Successful!");
    expect(shop).toContain(`Order ${reference} is confirmed`);
  });

  it("settled by the webhook first, the next cart change finds the paid lines gone (no page was read between)", async () => {
    const { v } = await paidByCard();
    const added = await v.post("/api/cart/add").send({ shopifyProductId: "1002", shopifyVariantId: "2101", quantity: 1 });
    expect(added.status).toBe(200);
    expect((added.body as Cart).cartItems.map((i) => [i.shopifyVariantId, i.quantity])).toEqual([["2101", 1]]);
  });

  it("settled by the webhook first, the next page's header and the cart API show the cart emptied", async () => {
    const { v, reference } = await paidByCard();
    expect((await v.get("/contact")).text).toContain('aria-label="Cart, 0 items"');
    expect(((await v.get("/api/cart")).body as Cart).itemCount).toBe(0);
    // The settlement also names the order for the confirmation panel, as the return call would.
    expect(textOf((await v.get("/shop?success=true")).text)).toContain(`Order ${reference} is confirmed`);
  });
});
