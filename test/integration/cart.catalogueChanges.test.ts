import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Express } from "express";
import { ADDRESS } from "../support/address.ts";
import { createTestApp, type TestApp } from "../support/app.ts";
import { textOf, visitor } from "../support/http.ts";
import { createApp } from "../../src/app.ts";
import { BUNDLED_CATALOGUE_FILE, loadCatalogueFile } from "../../src/catalogue/bundled.ts";
import type { CatalogueSource } from "../../src/catalogue/source.ts";
import type { Product } from "../../src/shared/catalogue/types.ts";

// The app over a catalogue the test can change, as an operator editing Shopify would between add and checkout.
let t: TestApp;
let app: Express;
let products: Product[];
beforeAll(async () => {
  t = await createTestApp();
  products = loadCatalogueFile(BUNDLED_CATALOGUE_FILE, "Ironside");
  const catalogue: CatalogueSource = {
    listProducts: async () => structuredClone(products),
    findByHandle: async (h) => structuredClone(products.find((p) => p.handle === h) ?? null),
    findById: async (id) => structuredClone(products.find((p) => p.id === id) ?? null),
  };
  app = createApp({ config: t.config, db: t.db, redis: t.redis, logger: t.logger, outbox: t.outbox, catalogue, gateway: t.gateway, shopifyWriteBacks: t.shopifyWriteBacks });
});
afterAll(async () => {
  await t?.close();
});

const variant = (productId: string, variantId: string) => products.find((p) => p.id === productId)!.variants.find((v) => v.id === variantId)!;
const CUSTOMER = { firstName: "Kyle", lastName: "Snyder", email: "kyle@example.com", phone: "" };
type Cart = { cartItems: { id: string; shopifyProductId: string; shopifyVariantId: string; quantity: number; price: string; problem: { kind: string } | null; problemMessage: string | null }[]; subtotal: string; itemCount: number };

describe("cart lines whose product changed since they were added", () => {
  it("shows a changed price, refuses to charge either price silently, and checks out once the visitor accepts it", async () => {
    const v = await visitor(app);
    await v.post("/api/cart/add").send({ shopifyProductId: "1001", shopifyVariantId: "2004", quantity: 1 });
    variant("1001", "2004").price = "36.00";
    try {
      const cart = (await v.get("/api/cart")).body as Cart;
      expect(cart.cartItems[0]).toMatchObject({ price: "36.00", problem: { kind: "price_changed" } });
      expect(cart.cartItems[0]!.problemMessage).toBe("The price of Ironside Heavyweight Tee changed from $32.00 to $36.00. Please review it before paying.");
      const page = await v.get("/cart");
      expect(textOf(page.text)).toContain("changed from $32.00 to $36.00");
      expect(textOf(page.text)).toContain("Accept new price");

      const refused = await v.post("/api/cart/checkout").send({ items: cart.cartItems, customerInfo: CUSTOMER, shippingAddress: ADDRESS });
      expect(refused.status).toBe(409);
      expect(refused.body.error).toContain("changed from $32.00 to $36.00");
      expect(await t.db("orders").where({ customer_email: CUSTOMER.email })).toHaveLength(0);

      const accepted = (await v.patch(`/api/cart/items/${cart.cartItems[0]!.id}`).send({ acceptPrice: true })).body as Cart;
      expect(accepted.cartItems[0]!.problem).toBeNull();
      const ok = await v.post("/api/cart/checkout").send({ items: accepted.cartItems, customerInfo: CUSTOMER, shippingAddress: ADDRESS });
      expect(ok.status).toBe(200);
      expect(ok.body).toMatchObject({ subtotal: "36.00", shipping: "7.95", amount: "43.95" });
    } finally {
      variant("1001", "2004").price = "32.00";
    }
  });

  it("shows a line that left the catalogue or lost its stock, keeps it out of the total and blocks payment until it is fixed", async () => {
    const v = await visitor(app);
    await v.post("/api/cart/add").send({ shopifyProductId: "1002", shopifyVariantId: "2102", quantity: 3 });
    await v.post("/api/cart/add").send({ shopifyProductId: "1003", shopifyVariantId: "2201", quantity: 1 });
    const removed = products.splice(products.findIndex((p) => p.id === "1003"), 1);
    variant("1002", "2102").inventory_quantity = 2;
    try {
      let cart = (await v.get("/api/cart")).body as Cart;
      expect(cart.cartItems.map((i) => i.problem?.kind)).toEqual(["not_enough_stock", "unavailable"]);
      expect(cart.subtotal).toBe("84.00");
      const page = await v.get("/cart");
      expect(textOf(page.text)).toContain("Item no longer available");
      expect(textOf(page.text)).toContain("Only 2 of Ironside Snapback Cap left in stock");
      expect((await v.post("/api/cart/checkout").send({ items: cart.cartItems, customerInfo: CUSTOMER, shippingAddress: ADDRESS })).status).toBe(409);
      expect((await v.patch(`/api/cart/items/${cart.cartItems[0]!.id}`).send({ quantity: 3 })).status).toBe(409);
      await v.patch(`/api/cart/items/${cart.cartItems[0]!.id}`).send({ quantity: 2 });
      await v.delete(`/api/cart/items/${cart.cartItems[1]!.id}`);
      cart = (await v.get("/api/cart")).body as Cart;
      expect(cart.cartItems.every((i) => i.problem === null)).toBe(true);
      const ok = await v.post("/api/cart/checkout").send({ items: cart.cartItems, customerInfo: { ...CUSTOMER, email: "kyle2@example.com" }, shippingAddress: ADDRESS });
      expect(ok.status).toBe(200);
      expect(ok.body).toMatchObject({ subtotal: "56.00", shipping: "7.95", amount: "63.95" });
    } finally {
      products.push(...removed);
      variant("1002", "2102").inventory_quantity = 12;
    }
  });
});
