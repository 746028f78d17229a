import { describe, expect, it } from "vitest";
import fc from "fast-check";
import {
  isChoiceSoldOut,
  addedDescription,
  addToCartProblem,
  buildCartItem,
  DEFAULT_SIZES,
  fallbackSizes,
  filterRetail,
  firstAvailableVariant,
  imageSrc,
  initialSelection,
  isEventProduct,
  isRetailProduct,
  isVariantAvailable,
  maxQuantity,
  priceLabel,
  productPath,
  resolveVariant,
  savingsCents,
  selectionFromQuery,
  shippingNote,
  shipsStartingNote,
  shortDescription,
  showsAirDryNote,
  stripTags,
  variantImageIndex,
} from "../../src/shared/catalogue/rules.ts";
import { CART_MESSAGES } from "../../src/shared/cart/texts.ts";
import { parsePriceCents } from "../../src/shared/money.ts";
import type { Product, Variant } from "../../src/shared/catalogue/types.ts";
import { formatPrice } from "../../src/shared/money.ts";

function variant(over: Partial<Variant> = {}): Variant {
  return { id: "v1", title: "Default Title", price: "10.00", compare_at_price: null, option1: null, option2: null, option3: null, ...over };
}

function product(over: Partial<Product> = {}): Product {
  return {
    id: "p1",
    handle: "thing",
    title: "Thing",
    body_html: "",
    product_type: "",
    vendor: "Ironside",
    tags: [],
    images: [],
    options: [],
    variants: [variant()],
    ...over,
  };
}

const tee = product({
  id: "1001",
  handle: "heavyweight-tee",
  title: "Ironside Heavyweight Tee",
  product_type: "Shirts",
  images: [{ src: "/img/black.svg" }, { src: "/img/red.svg" }, { src: "/img/back.svg" }],
  options: [
    { name: "Size", values: ["S", "M"] },
    { name: "Color", values: ["Black", "Red"] },
  ],
  variants: [
    variant({ id: "sb", title: "S / Black", option1: "S", option2: "Black", image: { src: "/img/black.svg" } }),
    variant({ id: "mb", title: "M / Black", option1: "M", option2: "Black", price: "12.00", image: { src: "/img/black.svg" } }),
    variant({ id: "sr", title: "S / Red", option1: "S", option2: "Red", compare_at_price: "15.00", image: { src: "/img/red.svg" } }),
    variant({ id: "mr", title: "M / Red", option1: "M", option2: "Red", available: false, featured_image: { src: "/img/elsewhere.svg" } }),
  ],
});

describe("parsePriceCents", () => {
  it.each([
    ["30", 3000],
    ["30.5", 3050],
    ["30.00", 3000],
    ["$28.00", 2800],
    ["$ 1,234.56", 123456],
    ["0", 0],
    ["1.005", 101],
    ["1.004", 100],
    [" 7.1 ", 710],
  ])("reads %s as %i cents", (input, cents) => expect(parsePriceCents(input)).toBe(cents));

  it("reads numbers as dollars", () => {
    expect(parsePriceCents(19.99)).toBe(1999);
  });

  it.each(["", "abc", "-5", "1.2.3", "$", null, undefined])("refuses %s", (input) => {
    expect(() => parsePriceCents(input)).toThrow(RangeError);
  });

  it("round-trips every cents amount through the 2-decimal text", () => {
    fc.assert(fc.property(fc.integer({ min: 0, max: 10_000_000 }), (cents) => parsePriceCents((cents / 100).toFixed(2)) === cents));
  });
});

describe("formatPrice and priceLabel", () => {
  it("shows 2 decimals with a dollar sign", () => {
    expect(formatPrice(3200)).toBe("$32.00");
    expect(formatPrice(5)).toBe("$0.05");
    expect(formatPrice(123456)).toBe("$1,234.56");
  });
  it("says 'Contact for pricing' for a price of 0", () => {
    expect(priceLabel(0)).toBe("Contact for pricing");
    expect(priceLabel(2800)).toBe("$28.00");
  });
});

describe("isVariantAvailable", () => {
  it("is available unless available is false or stock is 0 or below", () => {
    expect(isVariantAvailable(variant())).toBe(true);
    expect(isVariantAvailable(variant({ available: true, inventory_quantity: 3 }))).toBe(true);
    expect(isVariantAvailable(variant({ inventory_quantity: null }))).toBe(true);
    expect(isVariantAvailable(variant({ available: false }))).toBe(false);
    expect(isVariantAvailable(variant({ available: true, inventory_quantity: 0 }))).toBe(false);
    expect(isVariantAvailable(variant({ inventory_quantity: -2 }))).toBe(false);
  });
});

describe("variant resolution", () => {
  it("starts from the first variant's option values", () => {
    expect(initialSelection(tee)).toEqual({ Size: "S", Color: "Black" });
    expect(initialSelection(product({ variants: [] }))).toEqual({});
  });

  it("finds the variant whose values all match, in option order", () => {
    expect(resolveVariant(tee, { Size: "M", Color: "Red" })?.id).toBe("mr");
    expect(resolveVariant(tee, { Color: "Red", Size: "S" })?.id).toBe("sr");
  });

  it("marks a choice sold out when no in-stock variant has it with the other chosen values", () => {
    const p = product({
      options: [{ name: "Size", values: ["S", "M", "L"] }, { name: "Color", values: ["Black", "Red"] }],
      variants: [
        variant({ id: "sb", option1: "S", option2: "Black", inventory_quantity: 0 }),
        variant({ id: "sr", option1: "S", option2: "Red", inventory_quantity: 2 }),
        variant({ id: "mb", option1: "M", option2: "Black", available: false }),
        variant({ id: "lb", option1: "L", option2: "Black", inventory_quantity: null }),
      ],
    });
    expect(isChoiceSoldOut(p, { Size: "M", Color: "Black" }, "Size", "S")).toBe(true);
    expect(isChoiceSoldOut(p, { Size: "M", Color: "Black" }, "Size", "M")).toBe(true);
    expect(isChoiceSoldOut(p, { Size: "M", Color: "Black" }, "Size", "L")).toBe(false);
    expect(isChoiceSoldOut(p, { Size: "S", Color: "Black" }, "Color", "Red")).toBe(false);
    expect(isChoiceSoldOut(p, { Size: "L", Color: "Black" }, "Color", "Red")).toBe(true);
  });

  it("falls back to the first variant when nothing matches or a value is missing", () => {
    expect(resolveVariant(tee, { Size: "XL", Color: "Red" })?.id).toBe("sb");
    expect(resolveVariant(tee, { Size: "M" })?.id).toBe("sb");
  });

  it("is null only for a product without variants", () => {
    expect(resolveVariant(product({ variants: [] }), {})).toBeNull();
  });

  it("always returns one of the product's variants", () => {
    fc.assert(
      fc.property(fc.constantFrom("S", "M", "L", ""), fc.constantFrom("Black", "Red", "Blue"), (size, color) =>
        tee.variants.includes(resolveVariant(tee, { Size: size, Color: color })!),
      ),
    );
  });

  it("reads a selection from the query string, keeping only real values", () => {
    expect(selectionFromQuery(tee, { Size: "M", Color: "Red" })).toEqual({ Size: "M", Color: "Red" });
    expect(selectionFromQuery(tee, { Size: "XXXL", Color: ["Red", "Black"], image: "2" })).toEqual({ Size: "S", Color: "Red" });
    expect(selectionFromQuery(tee, { Size: { $ne: 1 } })).toEqual({ Size: "S", Color: "Black" });
  });

  it("finds the gallery picture of a variant only when it is among the product's images", () => {
    expect(variantImageIndex(tee, tee.variants[2]!)).toBe(1);
    expect(variantImageIndex(tee, tee.variants[3]!)).toBeNull();
    expect(variantImageIndex(tee, null)).toBeNull();
  });

  it("gives a card the first available variant", () => {
    expect(firstAvailableVariant(tee)?.id).toBe("sb");
    expect(firstAvailableVariant(product({ variants: [variant({ available: false })] }))).toBeNull();
  });

  it("limits quantity to the tracked stock", () => {
    expect(maxQuantity(variant({ inventory_quantity: 3 }))).toBe(3);
    expect(maxQuantity(variant())).toBeUndefined();
    expect(maxQuantity(variant({ inventory_quantity: -1 }))).toBe(0);
  });
});

describe("savings", () => {
  it("is compare-at minus price only when compare-at is higher", () => {
    expect(savingsCents(variant({ price: "32.00", compare_at_price: "38.00" }))).toBe(600);
    expect(savingsCents(variant({ price: "$28.00", compare_at_price: "$32.00" }))).toBe(400);
    expect(savingsCents(variant({ price: "32.00", compare_at_price: "32.00" }))).toBe(0);
    expect(savingsCents(variant({ price: "31.00", compare_at_price: "32.00" }))).toBe(0);
    expect(savingsCents(variant({ price: "32.00", compare_at_price: "20.00" }))).toBe(0);
    expect(savingsCents(variant({ compare_at_price: null }))).toBe(0);
  });
});

describe("retail filter", () => {
  const titled = (title: string) => product({ title });
  it("keeps '{brand} heavyweight tee', 'heavyweight tee', and brand + 'cap' titles, case-insensitively", () => {
    expect(isRetailProduct(titled("Ironside Heavyweight Tee"), "Ironside")).toBe(true);
    expect(isRetailProduct(titled("Heavyweight Tee - Blackout"), "Ironside")).toBe(true);
    expect(isRetailProduct(titled("IRONSIDE Snapback Cap"), "Ironside")).toBe(true);
    expect(isRetailProduct(titled("Snapback Cap"), "Ironside")).toBe(false);
    expect(isRetailProduct(titled("Ironside Gear Bag"), "Ironside")).toBe(false);
    expect(isRetailProduct(titled("Birmingham Slam Camp Registration"), "Ironside")).toBe(false);
  });
  it("uses the configured brand name", () => {
    expect(isRetailProduct(titled("Granite Cap"), "Granite")).toBe(true);
    expect(isRetailProduct(titled("Ironside Cap"), "Granite")).toBe(false);
    expect(filterRetail([titled("Granite Cap"), titled("Ironside Cap")], "Granite").map((p) => p.title)).toEqual(["Granite Cap"]);
  });
});

describe("card text", () => {
  it("strips tags and cuts the description to 100 characters, ending a cut one with an ellipsis", () => {
    const html = `<p>Heavy <strong>cotton</strong> &amp; more</p><script>alert(1)</script>${"<em>xy</em>".repeat(200)}`;
    expect(stripTags("<p>Heavy <strong>cotton</strong> &amp; more</p>")).toBe("Heavy cotton & more");
    const short = shortDescription(html);
    expect(short).toHaveLength(101);
    expect(short.endsWith("…")).toBe(true);
    expect(short.slice(0, 100)).toBe(stripTags(html).slice(0, 100));
    expect(short.startsWith("Heavy cotton & more xy xy")).toBe(true);
    expect(shortDescription("a".repeat(100))).toBe("a".repeat(100));
    expect(shortDescription(`${"a".repeat(99)} b`)).toBe(`${"a".repeat(99)}…`);
    expect(short).not.toContain("<");
    expect(short).not.toContain("alert");
  });

  it("links by handle, else by id", () => {
    expect(productPath(tee)).toBe("/shop/heavyweight-tee");
    expect(productPath(product({ handle: null, id: "1004" }))).toBe("/shop/1004");
    expect(productPath(product({ handle: null, id: "gid://shopify/Product/7" }))).toBe("/shop/gid%3A%2F%2Fshopify%2FProduct%2F7");
  });

  it("reads an image's src, url or originalSrc", () => {
    expect(imageSrc({ src: "", url: "/u.svg" })).toBe("/u.svg");
    expect(imageSrc({ src: "", originalSrc: "/o.svg" })).toBe("/o.svg");
    expect(imageSrc(undefined)).toBeUndefined();
  });
});

describe("kinds, sizes and shipping notes", () => {
  const cap = product({ title: "Ironside Snapback Cap", product_type: "Hats" });
  const bag = product({ title: "Ironside Gear Bag", product_type: "Bags" });
  const plainTee = product({ title: "Heavyweight Tee - Blackout", product_type: "Shirts", options: [{ name: "Title", values: ["Default Title"] }] });

  it("offers XS to XXL for shirts, tees and heavyweight products without a size option", () => {
    expect(fallbackSizes(plainTee)).toEqual(["XS", "S", "M", "L", "XL", "XXL"]);
    expect(fallbackSizes(product({ title: "Practice Shirt" }))).toEqual(DEFAULT_SIZES);
    expect(fallbackSizes(product({ title: "Thing", product_type: "T-Shirts" }))).toEqual(DEFAULT_SIZES);
    expect(fallbackSizes(tee)).toEqual([]);
    expect(fallbackSizes(cap)).toEqual([]);
    expect(fallbackSizes(product({ title: "Steel Water Bottle" }))).toEqual([]);
  });

  it("ships caps and shirts from June 25th, everything else in 2-3 business days", () => {
    const later = "Ships starting June 25, 2027";
    expect(shippingNote(tee, later)).toBe(later);
    expect(shippingNote(cap, later)).toBe(later);
    expect(shippingNote(product({ title: "Bucket Hat" }), later)).toBe(later);
    expect(shippingNote(bag, later)).toBe("2-3 business days");
    expect(shippingNote(tee, null)).toBe("2-3 business days");
    expect(shippingNote(product({ title: "Summer Camp" }), later)).toBe("2-3 business days");
  });

  it("gives shirts, not caps, the air-dry note", () => {
    expect(showsAirDryNote(tee)).toBe(true);
    expect(showsAirDryNote(cap)).toBe(false);
  });
});

describe("adding to the cart", () => {
  const event = product({ title: "Camp", product_type: "Event Registration" });
  const tagged = product({ title: "Clinic", tags: ["Event"] });

  it("refuses event items, missing variants and unavailable or zero-stock variants", () => {
    expect(isEventProduct(event)).toBe(true);
    expect(isEventProduct(tagged)).toBe(true);
    expect(addToCartProblem(event, event.variants[0]!)).toBe("notAllowed");
    expect(addToCartProblem(tee, null)).toBe("noVariant");
    expect(addToCartProblem(tee, tee.variants[3]!)).toBe("outOfStock");
    expect(addToCartProblem(tee, variant({ inventory_quantity: 0 }))).toBe("outOfStock");
    expect(addToCartProblem(tee, tee.variants[0]!)).toBeNull();
  });

  it("has the spec's messages", () => {
    expect(CART_MESSAGES.notAllowed).toEqual({ title: "Cannot Add to Cart", description: "This item cannot be added to cart" });
    expect(CART_MESSAGES.noVariant).toEqual({ title: "Selection Required", description: "Please select all required options" });
    expect(CART_MESSAGES.outOfStock).toEqual({ title: "Out of Stock", description: "This variant is currently out of stock" });
    expect(CART_MESSAGES.addedTitle).toBe("Added to Cart");
  });

  it("builds the spec's cart item", () => {
    const item = buildCartItem(tee, tee.variants[2]!, 2);
    expect(item).toEqual({
      shopifyProductId: "1001",
      shopifyVariantId: "sr",
      productHandle: "heavyweight-tee",
      productTitle: "Ironside Heavyweight Tee",
      variantTitle: "S / Red",
      price: 10,
      compareAtPrice: 15,
      quantity: 2,
      productImage: "/img/red.svg",
      productType: "Shirts",
      vendor: "Ironside",
      selectedSize: "S",
      selectedColor: "Red",
      variantOptions: { Size: "S", Color: "Red" },
    });
  });

  it("carries the fallback size and the defaults for a plain product", () => {
    const plain = product({ title: "Heavyweight Tee", handle: null, options: [{ name: "Title", values: ["Default Title"] }], variants: [variant({ title: "", option1: "Default Title" })] });
    const item = buildCartItem(plain, plain.variants[0]!, 1, "XL");
    expect(item.selectedSize).toBe("XL");
    expect(item.variantOptions).toEqual({ Title: "Default Title", Size: "XL" });
    expect(item.variantTitle).toBe("Default");
    expect(item.productType).toBe("Product");
    expect(item.productHandle).toBe("p1");
    expect(item.productImage).toBeNull();
  });

  it("says quantity, title and variant when added", () => {
    expect(addedDescription(tee, tee.variants[1]!, 3)).toBe("3 × Ironside Heavyweight Tee (M / Black) added to cart!");
    expect(addedDescription(product(), variant(), 1)).toBe("1 × Thing added to cart!");
  });
});

describe("shipsStartingNote", () => {
  it("carries the configured day with its year while it is ahead in the warehouse's time zone", () => {
    expect(shipsStartingNote("2027-06-25", new Date("2026-11-24T12:00:00Z"))).toBe("Ships starting June 25, 2027");
    // 11 pm in Birmingham on June 24 is already June 25 in UTC: still ahead there.
    expect(shipsStartingNote("2027-06-25", new Date("2027-06-25T04:00:00Z"))).toBe("Ships starting June 25, 2027");
  });
  it("disappears once the day has come, and without a configured day", () => {
    expect(shipsStartingNote("2027-06-25", new Date("2027-06-25T06:00:00Z"))).toBeNull();
    expect(shipsStartingNote("2026-06-25", new Date("2026-11-24T12:00:00Z"))).toBeNull();
    expect(shipsStartingNote(null, new Date("2026-11-24T12:00:00Z"))).toBeNull();
  });
});
