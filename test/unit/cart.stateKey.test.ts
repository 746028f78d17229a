import { describe, expect, it } from "vitest";
import { cartStateKey } from "../../src/cart/cart.ts";
import type { SessionCartItem } from "../../src/shared/cart/rules.ts";
import { deepFreeze } from "../../src/cache/ttl.ts";
import { BUNDLED_CATALOGUE_FILE, loadCatalogueFile } from "../../src/catalogue/bundled.ts";
import type { CatalogueSource } from "../../src/catalogue/source.ts";
import type { Product } from "../../src/shared/catalogue/types.ts";

/** The key a kept cart page is found by (src/cart/cart.ts): it changes whenever what the page shows may change. */
const tee = () => loadCatalogueFile(BUNDLED_CATALOGUE_FILE, "Ironside").find((p) => p.id === "1001")!;
const source = (current: () => Product): CatalogueSource => ({
  listProducts: async () => [current()],
  findByHandle: async () => current(),
  findById: async (id) => (id === current().id ? current() : null),
});
const line: SessionCartItem = { id: "li_1", productId: "1001", variantId: "2001", selectedSize: null, quantity: 1, priceCents: 3200, addedAt: 1, updatedAt: 1 };

describe("cartStateKey", () => {
  it("is the same for the same lines and the same frozen product, and changes with a line or a new product", async () => {
    let product = deepFreeze(tee());
    const catalogue = source(() => product);
    const key = await cartStateKey(catalogue, [line]);
    expect(await cartStateKey(catalogue, [line])).toBe(key);
    expect(await cartStateKey(catalogue, [{ ...line, quantity: 2, updatedAt: 2 }])).not.toBe(key);
    // Shopify's cache gives a new frozen object once it reads the product again, here with a new price.
    const next = tee();
    next.variants[0]!.price = "36.00";
    product = deepFreeze(next);
    expect(await cartStateKey(catalogue, [line])).not.toBe(key);
  });

  it("reads a product that is not deeply frozen by its content every time, so a change made in place is seen", async () => {
    const product = tee();
    const catalogue = source(() => product);
    const plain = await cartStateKey(catalogue, [line]);
    product.variants[0]!.price = "36.00";
    expect(await cartStateKey(catalogue, [line])).not.toBe(plain);

    const shallow = Object.freeze(tee());
    const shallowCatalogue = source(() => shallow);
    const before = await cartStateKey(shallowCatalogue, [line]);
    shallow.variants[0]!.available = false;
    expect(await cartStateKey(shallowCatalogue, [line])).not.toBe(before);
  });

  it("names a product that left the catalogue", async () => {
    const key = await cartStateKey(source(() => deepFreeze(tee())), [line]);
    expect(await cartStateKey(source(() => ({ ...tee(), id: "other" })), [line])).not.toBe(key);
  });
});
