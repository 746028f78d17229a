import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { BUNDLED_CATALOGUE_FILE, createBundledCatalogue, loadCatalogueFile } from "../../src/catalogue/bundled.ts";
import { sanitizeDescriptionHtml } from "../../src/catalogue/html.ts";
import { mapStorefrontProduct, productGid } from "../../src/catalogue/shopify.ts";
import { createCatalogueSource } from "../../src/catalogue/createSource.ts";
import {
  fallbackSizes,
  filterRetail,
  isEventProduct,
  isVariantAvailable,
  savingsCents,
  variantImageIndex,
} from "../../src/shared/catalogue/rules.ts";
import { parsePriceCents } from "../../src/shared/money.ts";
import { loadConfig } from "../../src/config.ts";
import { createLogger } from "../../src/logger.ts";
import { toStorefrontProduct } from "../fakes/shopify.ts";

describe("bundled catalogue file", () => {
  const products = loadCatalogueFile(BUNDLED_CATALOGUE_FILE, "Ironside");
  const tee = products.find((p) => p.handle === "heavyweight-tee")!;

  it("exercises every rule: colours with pictures, compare-at prices, stock, no size option, price 0, an event", () => {
    const colours = tee.options.find((o) => o.name === "Color")!.values;
    expect(colours.length).toBeGreaterThanOrEqual(3);
    for (const colour of colours) {
      const v = tee.variants.find((x) => x.option2 === colour)!;
      expect(variantImageIndex(tee, v), colour).not.toBeNull();
    }
    expect(tee.options.find((o) => o.name === "Size")!.values.length).toBeGreaterThanOrEqual(4);
    expect(tee.variants.some((v) => savingsCents(v) > 0)).toBe(true);
    expect(tee.variants.filter((v) => v.available === false)).toHaveLength(1);
    expect(tee.variants.filter((v) => v.available !== false && v.inventory_quantity === 0)).toHaveLength(1);
    expect(products.some((p) => p.handle === "snapback-cap")).toBe(true);
    expect(products.some((p) => fallbackSizes(p).length > 0)).toBe(true);
    expect(products.some((p) => parsePriceCents(p.variants[0]!.price) === 0)).toBe(true);
    expect(products.some((p) => p.handle === null)).toBe(true);
    const event = products.find(isEventProduct)!;
    expect(event.product_type).toBe("Event Registration");
    expect(event.tags).toContain("event");
  });

  it("uses only our own pictures, all present in public/", () => {
    for (const p of products) {
      for (const img of [...p.images.map((i) => i.src), ...p.variants.map((v) => v.image?.src).filter(Boolean)]) {
        expect(img).toMatch(/^\/images\/products\/[a-z-]+\.svg$/);
        expect(fs.existsSync(path.join("public", img!)), img).toBe(true);
      }
    }
  });

  it("names products after the configured brand", () => {
    const renamed = loadCatalogueFile(BUNDLED_CATALOGUE_FILE, "Granite");
    expect(renamed.find((p) => p.handle === "snapback-cap")!.title).toBe("Granite Snapback Cap");
    expect(filterRetail(renamed, "Granite").map((p) => p.handle)).toContain("snapback-cap");
    expect(JSON.stringify(renamed)).not.toContain("{{brand}}");
  });

  it("fails at load with the field that is wrong", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "cat-"));
    const file = path.join(dir, "bad.json");
    fs.writeFileSync(file, JSON.stringify({ products: [{ ...tee, variants: [{ ...tee.variants[0], price: "thirty" }] }] }));
    expect(() => loadCatalogueFile(file, "Ironside")).toThrow(/products\.0\.variants\.0\.price: must be a price/);
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it("finds by handle and id, and shares products no request can change", async () => {
    const source = createBundledCatalogue({ brandName: "Ironside" });
    expect((await source.listProducts()).length).toBe(products.length);
    expect((await source.findByHandle("snapback-cap"))?.id).toBe("1002");
    expect((await source.findById("1004"))?.title).toBe("Heavyweight Tee Team Pack");
    expect(await source.findByHandle("no-such-product")).toBeNull();
    expect(await source.findById("9999")).toBeNull();
    const shared = (await source.findByHandle("snapback-cap"))!;
    expect(() => (shared.title = "changed")).toThrow(TypeError);
    expect(() => shared.variants[0]!.price = "0.00").toThrow(TypeError);
    expect((await source.findByHandle("snapback-cap"))!.title).toBe("Ironside Snapback Cap");
  });

  it("is the source without Shopify configuration", async () => {
    const source = createCatalogueSource(loadConfig({ NODE_ENV: "test" }), createLogger("silent"));
    expect((await source.findByHandle("heavyweight-tee"))?.title).toBe("Ironside Heavyweight Tee");
  });
});

describe("Storefront API mapping", () => {
  it("maps a Storefront product back to the same Product (ids as gids, options in option order)", () => {
    const bundled = loadCatalogueFile(BUNDLED_CATALOGUE_FILE, "Ironside");
    for (const original of bundled) {
      const mapped = mapStorefrontProduct(toStorefrontProduct(original));
      expect(mapped.id).toBe(`gid://shopify/Product/${original.id}`);
      expect(mapped.title).toBe(original.title);
      expect(mapped.options).toEqual(original.options);
      expect(mapped.images.map((i) => i.src)).toEqual(original.images.map((i) => i.src));
      mapped.variants.forEach((v, i) => {
        const o = original.variants[i]!;
        expect([v.option1, v.option2, v.option3]).toEqual([o.option1, o.option2, o.option3]);
        expect(parsePriceCents(v.price)).toBe(parsePriceCents(o.price));
        expect(v.price).toMatch(/^\d+\.\d\d$/);
        expect(isVariantAvailable(v)).toBe(isVariantAvailable(o));
        expect(v.image?.src).toBe(o.image?.src);
      });
    }
  });

  it("orders option values by the product's options even when Shopify lists them differently", () => {
    const node = toStorefrontProduct(loadCatalogueFile(BUNDLED_CATALOGUE_FILE, "Ironside")[0]!);
    node.variants.nodes[0]!.selectedOptions.reverse();
    expect(mapStorefrontProduct(node).variants[0]).toMatchObject({ option1: "S", option2: "Black", option3: null });
  });

  it("turns numeric ids into product gids and refuses other text", () => {
    expect(productGid("1001")).toBe("gid://shopify/Product/1001");
    expect(productGid("gid://shopify/Product/5")).toBe("gid://shopify/Product/5");
    expect(productGid("heavyweight-tee")).toBeNull();
    expect(productGid("gid://shopify/Order/5")).toBeNull();
  });
});

describe("description HTML", () => {
  it("keeps simple formatting", () => {
    expect(sanitizeDescriptionHtml("<p>Heavy <strong>cotton</strong></p><ul><li>Boxy</li></ul>")).toBe(
      "<p>Heavy <strong>cotton</strong></p><ul><li>Boxy</li></ul>",
    );
  });

  it("drops scripts, handlers, unsafe links and unknown tags", () => {
    const out = sanitizeDescriptionHtml(
      `<p onclick="x()">a<script>alert(1)</script><img src=x onerror=alert(2)><a href="javascript:alert(3)">b</a><a href="https://example.com/x" target=_blank>c</a><iframe src="//evil"></iframe><div style="x">d</div></p>`,
    );
    expect(out).toBe('<p>a<a>b</a><a href="https://example.com/x" rel="nofollow noopener">c</a>d</p>');
  });

  it("closes what it opens and escapes stray brackets", () => {
    expect(sanitizeDescriptionHtml("<p><strong>bold 1 < 2")).toBe("<p><strong>bold 1 &lt; 2</strong></p>");
    expect(sanitizeDescriptionHtml("text</em></p>more")).toBe("textmore");
  });
});
