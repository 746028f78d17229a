import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, type TestApp } from "../support/app.ts";
import { textOf, visitor } from "../support/http.ts";

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => {
  await t?.close();
});

// From the bundled catalogue: the tee (Size / Color variants, M/Black has 3 in stock), the cap, the event registration.
const TEE = { shopifyProductId: "1001", shopifyVariantId: "2001" }; // S / Black, $32.00
const TEE_M = { shopifyProductId: "1001", shopifyVariantId: "2002" }; // M / Black, 3 in stock
const CAP = { shopifyProductId: "1002", shopifyVariantId: "2101" }; // Black, $28.00
const EVENT = { shopifyProductId: "1005", shopifyVariantId: "2401" };
const TEAM_PACK = { shopifyProductId: "1004", shopifyVariantId: "2301" }; // $0.00: contact for pricing

type Cart = { success: boolean; cartItems: { id: string; price: string; quantity: number; productTitle: string; variantTitle: string; selectedSize: string | null; selectedColor: string | null }[]; subtotal: string; itemCount: number };

describe("cart API", () => {
  it("starts empty with the spec's shape", async () => {
    const v = await visitor(t.app);
    const res = await v.get("/api/cart");
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true, cartItems: [], subtotal: "0.00", itemCount: 0 });
  });

  it("adds at the catalogue price and ignores a tampered price, titles and image", async () => {
    const v = await visitor(t.app);
    const res = await v.post("/api/cart/add").send({ ...TEE, quantity: 2, price: 0.01, productTitle: "Free stuff", productImage: "https://evil.example/x.png", variantTitle: "Gold" });
    expect(res.status).toBe(200);
    const cart = res.body as Cart;
    expect(cart.itemCount).toBe(2);
    expect(cart.subtotal).toBe("64.00");
    expect(cart.cartItems[0]).toMatchObject({ price: "32.00", quantity: 2, productTitle: "Ironside Heavyweight Tee", variantTitle: "S / Black", selectedSize: "S", selectedColor: "Black" });
    expect(JSON.stringify(cart)).not.toContain("evil.example");
    // the header badge counts it on the next page
    const page = await v.get("/cart");
    expect(page.text).toMatch(/data-cart-badge="desktop"[^>]*>2</);
  });

  it("merges the same product and variant, appends another, and sums subtotal and count", async () => {
    const v = await visitor(t.app);
    await v.post("/api/cart/add").send({ ...TEE, quantity: 1 });
    await v.post("/api/cart/add").send({ ...TEE, quantity: 2 });
    const res = await v.post("/api/cart/add").send({ ...CAP, quantity: 1 });
    const cart = res.body as Cart;
    expect(cart.cartItems.map((i) => i.quantity)).toEqual([3, 1]);
    expect(cart.itemCount).toBe(4);
    expect(cart.subtotal).toBe("124.00");
  });

  it("refuses bad payloads with 400 and a clear message, changing nothing", async () => {
    const v = await visitor(t.app);
    await v.post("/api/cart/add").send({ ...CAP, quantity: 1 });
    const cases: [unknown, string][] = [
      [{ shopifyVariantId: "2001", quantity: 1 }, "Product is required"],
      [{ ...TEE, quantity: 0 }, "Quantity must be at least 1"],
      [{ ...TEE, quantity: 2.5 }, "Quantity must be a whole number"],
      [{ ...TEE, quantity: "lots" }, "Quantity must be a number"],
      [{ ...TEE, quantity: 1000 }, "Quantity can be at most 99"],
    ];
    for (const [body, message] of cases) {
      const res = await v.post("/api/cart/add").send(body as object);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error).toBe(message);
    }
    const malformed = await v.post("/api/cart/add").set("content-type", "application/json").send("{not json");
    expect(malformed.status).toBe(400);
    expect(malformed.body.error).toBe("The request body is not valid JSON.");
    const cart = (await v.get("/api/cart")).body as Cart;
    expect(cart.itemCount).toBe(1);
  });

  it("refuses events, unknown products and variants, price-on-request items and quantities past the stock", async () => {
    const v = await visitor(t.app);
    const event = await v.post("/api/cart/add").send({ ...EVENT, quantity: 1 });
    expect(event.status).toBe(400);
    expect(event.body.error).toBe("This item cannot be added to cart");
    const unknown = await v.post("/api/cart/add").send({ shopifyProductId: "999999", shopifyVariantId: "1", quantity: 1 });
    expect(unknown.status).toBe(404);
    expect(unknown.body.error).toBe("This product is no longer available");
    const badVariant = await v.post("/api/cart/add").send({ shopifyProductId: "1001", shopifyVariantId: "2101", quantity: 1 });
    expect(badVariant.status).toBe(400);
    expect(badVariant.body.error).toBe("Please select all required options");
    const free = await v.post("/api/cart/add").send({ ...TEAM_PACK, quantity: 1 });
    expect(free.status).toBe(400);
    const tooMany = await v.post("/api/cart/add").send({ ...TEE_M, quantity: 4 });
    expect(tooMany.status).toBe(409);
    expect(tooMany.body.error).toBe("Only 3 left in stock");
    expect(((await v.get("/api/cart")).body as Cart).itemCount).toBe(0);
  });

  it("updates, drops at 0, removes and clears through PATCH and DELETE", async () => {
    const v = await visitor(t.app);
    await v.post("/api/cart/add").send({ ...TEE, quantity: 1 });
    const added = (await v.post("/api/cart/add").send({ ...CAP, quantity: 1 })).body as Cart;
    const [tee, cap] = added.cartItems;
    const patched = await v.patch(`/api/cart/items/${tee!.id}`).send({ quantity: 5 });
    expect(patched.status).toBe(200);
    expect((patched.body as Cart).itemCount).toBe(6);
    expect((patched.body as Cart).subtotal).toBe("188.00");
    const overStock = await v.patch(`/api/cart/items/${tee!.id}`).send({ quantity: 26 });
    expect(overStock.status).toBe(409);
    expect(overStock.body.error).toBe("Only 25 left in stock");
    const negative = await v.patch(`/api/cart/items/${tee!.id}`).send({ quantity: -1 });
    expect(negative.status).toBe(400);
    const zero = await v.patch(`/api/cart/items/${cap!.id}`).send({ quantity: 0 });
    expect((zero.body as Cart).cartItems.map((i) => i.id)).toEqual([tee!.id]);
    const missing = await v.delete("/api/cart/items/li_nope");
    expect(missing.status).toBe(404);
    expect(missing.body.error).toBe("That item is no longer in your cart");
    const removed = await v.delete(`/api/cart/items/${tee!.id}`);
    expect((removed.body as Cart).itemCount).toBe(0);
    await v.post("/api/cart/add").send({ ...CAP, quantity: 2 });
    const cleared = await v.delete("/api/cart");
    expect(cleared.body).toEqual({ success: true, cartItems: [], subtotal: "0.00", itemCount: 0 });
  });

  it("refuses every write without the CSRF token", async () => {
    const v = await visitor(t.app);
    await v.post("/api/cart/add").send({ ...CAP, quantity: 1 });
    const id = ((await v.get("/api/cart")).body as Cart).cartItems[0]!.id;
    const writes = [
      v.agent.post("/api/cart/add").send({ ...TEE, quantity: 1 }),
      v.agent.patch(`/api/cart/items/${id}`).send({ quantity: 3 }),
      v.agent.delete(`/api/cart/items/${id}`),
      v.agent.delete("/api/cart"),
      v.agent.post("/api/cart/checkout").send({ items: [], customerInfo: {} }),
      v.agent.post("/cart/add").type("form").send({ productId: "1001", variantId: "2001", quantity: "1" }),
    ];
    for (const res of await Promise.all(writes)) expect(res.status).toBe(403);
    expect(((await v.get("/api/cart")).body as Cart).cartItems).toMatchObject([{ id, quantity: 1 }]);
  });
});

describe("cart page and form posts without JavaScript", () => {
  it("shows the empty cart as the spec says, with no JavaScript", async () => {
    const v = await visitor(t.app);
    const res = await v.get("/cart");
    expect(res.status).toBe(200);
    const text = textOf(res.text);
    expect(text).toContain("Your cart is empty");
    expect(text).toContain("Add some items to get started!");
    expect(res.text).toMatch(/<a[^>]*href="\/shop"[^>]*>Continue Shopping<\/a>/);
    expect(res.text).not.toContain("<script src");
    expect(res.text).not.toContain('type="module"');
  });

  it("adds from the shop's form, then changes, removes and clears with redirects and toasts", async () => {
    const v = await visitor(t.app);
    // supertest serves each request on a new port, so the page's host is pinned for the Referer check
    const add = await v.form("/cart/add", { productId: "1001", variantId: "2001", quantity: "2" }).set("host", "shop.test").set("referer", "http://shop.test/shop");
    expect(add.status).toBe(303);
    expect(add.headers.location).toBe("/shop");
    const shop = await v.get("/shop");
    expect(textOf(shop.text)).toContain("Ironside Heavyweight Tee added to cart!");
    await v.form("/cart/add", { productId: "1002", variantId: "2101", quantity: "1" });

    let page = await v.get("/cart");
    let text = textOf(page.text);
    expect(text).toContain("Ironside Heavyweight Tee");
    expect(text).toContain("Size: S · Color: Black");
    expect(text).toContain("Calculated at checkout");
    expect(text).toContain("$92.00");
    expect(page.text).toContain("/__offline-stripe/stripe.js");
    const ids = [...page.text.matchAll(/data-line-id="([^"]+)"/g)].map((m) => m[1]!);
    expect(ids).toHaveLength(2);

    const up = await v.form(`/cart/items/${ids[0]}/update`, { quantity: "3" });
    expect(up.status).toBe(303);
    expect(up.headers.location).toBe("/cart");
    page = await v.get("/cart");
    expect(textOf(page.text)).toContain("$124.00");

    // minus at 1 removes
    const minus = await v.form(`/cart/items/${ids[1]}/update`, { quantity: "0" });
    expect(minus.status).toBe(303);
    page = await v.get("/cart");
    text = textOf(page.text);
    expect(text).toContain("Item Removed");
    expect(text).toContain("Item has been removed from your cart");
    expect(text).not.toContain("Snapback Cap");

    const bad = await v.form(`/cart/items/${ids[0]}/update`, { quantity: "30" });
    expect(bad.status).toBe(303);
    page = await v.get("/cart");
    expect(textOf(page.text)).toContain("Only 25 left in stock");
    // The variant is said once: labelled size and colour, not also 'S / Black'.
    expect(page.text).toContain('<p class="cart-line-variant">Size: S · Color: Black</p>');
    expect(textOf(page.text)).not.toContain("S / Black");

    await v.form(`/cart/items/${ids[0]}/remove`, {});
    page = await v.get("/cart");
    expect(textOf(page.text)).toContain("Your cart is empty");
  });

  it("checks the customer and address without JavaScript: each field's message, the missing-field message once, kept values; then says card payment needs JavaScript", async () => {
    const v = await visitor(t.app);
    await v.form("/cart/add", { productId: "1002", variantId: "2101", quantity: "1" });
    const ordersBefore = await t.db("orders").count({ n: "*" }).first();
    const address = (a: Record<string, string>) => Object.fromEntries(Object.entries(a).map(([k, val]) => [`shipping[${k}]`, val]));
    const invalid = await v.form("/cart/checkout", {
      firstName: "", lastName: "Mat", email: "x@example.com",
      ...address({ name: "Jordan Mat", line1: "", line2: "Apt 4", city: "Birmingham", state: "", zip: "3520" }),
    });
    expect(invalid.status).toBe(400);
    const text = textOf(invalid.text);
    expect(text.split("Please fill in all required fields.").length - 1).toBe(1);
    expect(text).toContain("Enter your first name");
    expect(text).toContain("Enter the street address");
    expect(text).toContain("Choose a state");
    expect(text).toContain("Enter a 5-digit ZIP code (or ZIP+4)");
    expect(invalid.text).toContain('value="Apt 4"');
    expect(invalid.text).toContain('value="3520"');
    // Shipping is not known until the address is: the spec's 'Calculated at checkout'.
    expect(invalid.text).toContain('<dd data-testid="shipping">Calculated at checkout</dd>');
    expect(await t.db("orders").count({ n: "*" }).first()).toEqual(ordersBefore);

    const valid = await v.form("/cart/checkout", {
      firstName: "Jordan", lastName: "Mat", email: "jordan@example.com", phone: "",
      ...address({ name: "Jordan Mat", line1: "2100 1st Avenue North", line2: "", city: "Birmingham", state: "AL", zip: "35203" }),
    });
    expect(valid.status).toBe(200);
    expect(textOf(valid.text)).toContain("Card payment needs JavaScript");
    expect(valid.text).toContain('value="Jordan"');
    expect(valid.text).toContain('value="2100 1st Avenue North"');
    // A $28 cap: the flat rate, and the total with it.
    expect(valid.text).toContain('<dd data-testid="shipping">$7.95</dd>');
    expect(valid.text).toContain('<dd data-testid="total">$35.95</dd>');
    expect(await t.db("orders").count({ n: "*" }).first()).toEqual(ordersBefore);
  });
});
