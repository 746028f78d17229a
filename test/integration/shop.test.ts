import { Writable } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import request from "supertest";
import { pino } from "pino";
import { createTestApp, type TestApp } from "../support/app.ts";
import { executableScripts, textOf } from "../support/http.ts";
import { startFakeShopify, type FakeShopify } from "../fakes/shopify.ts";
import type { Product } from "../../src/shared/catalogue/types.ts";
import { loadAssets } from "../../src/http/assets.ts";
import { scaledMs } from "../support/timeouts.ts";

/** Pages link a picture's content-hashed copy in the build when there is one (a pattern of its URL). */
const pictureUrl = (path: string) => loadAssets().image(path).replace(/\./g, "\\.");
const galleryMain = (path: string, alt = "") => new RegExp(`<img src="${pictureUrl(path)}" alt="${alt}[^"]*"[^>]*data-testid="gallery-main"`);

/** A logger whose lines the test can read (to see the outage logged). */
function captureLogger() {
  const lines: { level: number; msg: string }[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _enc, done) {
      for (const line of chunk.toString().split("\n").filter(Boolean)) lines.push(JSON.parse(line) as { level: number; msg: string });
      done();
    },
  });
  return { logger: pino({ level: "warn" }, stream), lines };
}

const jsonLd = (html: string) =>
  [...html.matchAll(/<script type="application\/ld\+json">([\s\S]*?)<\/script>/g)].map((m) => JSON.parse(m[1]!) as Record<string, unknown>);

/** The same journeys on both sources: the bundled file and Shopify (the fake, serving the same fixtures). */
describe.each([
  { source: "bundled" as const },
  { source: "shopify" as const },
])("shop on the $source catalogue", ({ source }) => {
  let t: TestApp;
  let fake: FakeShopify | undefined;
  beforeAll(async () => {
    if (source === "shopify") fake = await startFakeShopify();
    t = await createTestApp(fake?.env() ?? {});
  });
  afterAll(async () => {
    await t.close();
    await fake?.stop();
  });

  describe("/shop", () => {
    it("lists the retail collection with the spec's card contents, as plain HTML", async () => {
      const res = await request(t.app).get("/shop").expect(200);
      const html = res.text;
      const text = textOf(html);
      expect(html).toContain("<title>Shop | Ironside</title>");
      expect(text).toContain("Retail Collection");
      const titles = [...html.matchAll(/<h3 class="product-card-title"[^>]*><a href="([^"]+)">([^<]+)<\/a>/g)].map((m) => [m[1], m[2]]);
      const teamPackHref = source === "bundled" ? "/shop/1004" : "/shop/heavyweight-tee-team-pack";
      expect(titles).toEqual([
        ["/shop/heavyweight-tee", "Ironside Heavyweight Tee"],
        ["/shop/snapback-cap", "Ironside Snapback Cap"],
        ["/shop/heavyweight-tee-blackout", "Heavyweight Tee - Blackout Edition"],
        [teamPackHref, "Heavyweight Tee Team Pack"],
      ]);
      expect(text).not.toContain("Gear Bag");
      expect(text).not.toContain("Slam Camp Registration");

      const descriptions = [...html.matchAll(/<p class="product-card-description">([^<]*)<\/p>/g)].map((m) => m[1]!);
      expect(descriptions).toHaveLength(4);
      for (const d of descriptions) {
        const plain = d.replace(/&#x27;|&amp;/g, "x");
        // Cut at 100 characters, and then it says so with an ellipsis.
        expect(plain.replace(/…$/, "").length).toBeLessThanOrEqual(100);
        if (plain.replace(/…$/, "").length >= 99) expect(plain.endsWith("…")).toBe(true);
      }
      expect(descriptions.filter((d) => d.endsWith("…")).length).toBeGreaterThan(0);
      expect(descriptions[0]).toMatch(/^Our heavyweight tee is cut from 7\.5 oz combed cotton/);

      const prices = [...html.matchAll(/<p class="product-card-price price">([^<]+)<\/p>/g)].map((m) => m[1]);
      expect(prices).toEqual(["$32.00", "$28.00", "$36.00", "Contact for pricing"]);
      // No SHIPS_STARTING_DATE: tees and caps ship like everything else, so no card promises a day.
      expect(text).not.toContain("Ships starting");
      expect(text.match(/Air dry recommended/g)).toHaveLength(3);

      // Add to cart: a real form post with quantity 1 and the CSRF field.
      const forms = [...html.matchAll(/<form class="card-add"[^>]*action="\/cart\/add" method="post">([\s\S]*?)<\/form>/g)].map((m) => m[1]!);
      expect(forms).toHaveLength(3);
      expect(forms[0]).toMatch(/name="_csrf" value="[^"]+"/);
      expect(forms[0]).toMatch(/name="productId" value="(1001|gid:\/\/shopify\/Product\/1001)"/);
      expect(forms[0]).toMatch(/name="variantId" value="(2001|gid:\/\/shopify\/ProductVariant\/2001)"/);
      expect(forms[0]).toContain('name="quantity" value="1"');
      expect(html).toContain('<a class="btn btn-secondary btn-block" href="/contact">Contact Us</a>');

      expect(text).toContain("Premium Quality");
      expect(text).toContain("Fast Shipping");
      expect(text).toContain("Easy Returns");
      expect(html).toContain('<a class="btn btn-primary" href="/events">View Training Camps</a>');
      expect(executableScripts(html)).toEqual([]);
    });
  });

  describe("/shop/:handle", () => {
    it("shows the product with the first variant chosen", async () => {
      const res = await request(t.app).get("/shop/heavyweight-tee").expect(200);
      const html = res.text;
      const text = textOf(html);
      expect(html).toContain("<title>Ironside Heavyweight Tee | Ironside</title>");
      expect(html).toContain('<a href="/shop">← Back to Shop</a>');
      expect(html).toMatch(/<h1 class="product-title">Ironside Heavyweight Tee<\/h1>/);
      expect(text).toContain("Rated 4.8 out of 5");
      expect(html).toContain("<strong>heavyweight tee</strong>");
      expect(html).toContain('<legend>Size: <span class="option-chosen">S</span></legend>');
      expect(html).toContain('<legend>Color: <span class="option-chosen">Black</span></legend>');
      expect(html).toMatch(/<span class="price">\$32\.00<\/span>/);
      expect(text).toContain("In Stock");
      expect(html).toMatch(/data-testid="gallery-main"/);
      expect(html).toMatch(galleryMain("/images/products/tee-black.svg", "Ironside Heavyweight Tee in black"));
      expect(html.match(/<li><a href="\?Size=S&amp;Color=Black&amp;image=\d"/g)).toHaveLength(4);
      expect(text).toContain("Free shipping on orders over $75");
      for (const heading of ["Quality", "Shipping", "Care", "Returns", "Support"]) expect(html).toContain(`<h3>${heading}</h3>`);
      expect(text).toContain("30-day policy");
      expect(text).toContain("24/7 customer care");
      expect(html).toMatch(/<form class="add-form"[^>]*action="\/cart\/add" method="post"><input type="hidden" name="_csrf" value="[^"]+"/);
      expect(html).toMatch(/<input id="[^"]+" type="number" inputMode="numeric" min="1" max="25" name="quantity" value="1"\/>/);
      // The island: its props, one module script (boot), JSON-LD and Open Graph.
      expect(html).toContain('data-widget="ProductPicker"');
      expect(executableScripts(html)).toHaveLength(1);
      const [ld] = jsonLd(html);
      expect(ld).toMatchObject({
        "@type": "Product",
        name: "Ironside Heavyweight Tee",
        brand: { "@type": "Brand", name: "Ironside" },
        offers: { "@type": "Offer", price: "32.00", priceCurrency: "USD", availability: "https://schema.org/InStock" },
      });
      expect(html).toContain('<meta property="og:type" content="product"/>');
      expect(html).toMatch(new RegExp(`<meta property="og:image" content="http://[^"]+${pictureUrl("/images/products/tee-black.svg")}"/>`));
    });

    it("takes the variant from the query string: price, savings, picture and stock follow", async () => {
      const red = await request(t.app).get("/shop/heavyweight-tee?Size=L&Color=Red").expect(200);
      expect(red.text).toMatch(/<span class="price">\$32\.00<\/span>/);
      expect(textOf(red.text)).toContain("Was $38.00");
      expect(textOf(red.text)).toContain("Save $6.00");
      expect(red.text).toMatch(galleryMain("/images/products/tee-red.svg"));
      expect(red.text).toMatch(/<a class="option-value" href="\?Size=L&amp;Color=Red" aria-current="true">Red<\/a>/);

      const xxl = await request(t.app).get("/shop/heavyweight-tee?Size=XXL&Color=Black").expect(200);
      expect(xxl.text).toMatch(/<span class="price">\$35\.00<\/span>/);

      const outOfStock = await request(t.app).get("/shop/heavyweight-tee?Size=XXL&Color=Red").expect(200);
      expect(textOf(outOfStock.text)).toContain("Out of Stock");
      expect(jsonLd(outOfStock.text)[0]).toMatchObject({ offers: { availability: "https://schema.org/OutOfStock" } });

      // Sold-out choices are marked in the picker, and the button says 'Sold Out'.
      expect(outOfStock.text).toMatch(/<a class="option-value option-value-soldout" href="\?Size=XXL&amp;Color=Red" aria-current="true">XXL<span class="visually-hidden"> \(sold out\)<\/span><\/a>/);
      expect(outOfStock.text).toMatch(/aria-disabled="true">Sold Out<\/button>/);
      expect(red.text).toMatch(/<a class="option-value option-value-soldout" href="\?Size=XXL&amp;Color=Red">XXL/);
      expect(red.text).toMatch(/<a class="option-value" href="\?Size=M&amp;Color=Red">M<\/a>/);
      expect(red.text).toMatch(/>Add to Cart<\/button>/);
      const zeroStock = await request(t.app).get("/shop/heavyweight-tee?Size=XL&Color=White").expect(200);
      expect(textOf(zeroStock.text)).toContain("Out of Stock");

      const low = await request(t.app).get("/shop/heavyweight-tee?Size=M&Color=Black").expect(200);
      expect(textOf(low.text)).toContain("Only 3 left in stock");
      expect(low.text).toMatch(/type="number" inputMode="numeric" min="1" max="3" name="quantity"/);

      const picture = await request(t.app).get("/shop/heavyweight-tee?Size=S&Color=Black&image=3").expect(200);
      expect(picture.text).toMatch(galleryMain("/images/products/tee-back.svg"));
    });

    it("ignores option values that do not exist", async () => {
      const res = await request(t.app).get("/shop/heavyweight-tee?Size=XXXL&Color=%3Cscript%3E&image=99").expect(200);
      expect(res.text).toContain('<legend>Size: <span class="option-chosen">S</span></legend>');
      expect(res.text).toContain('<legend>Color: <span class="option-chosen">Black</span></legend>');
      expect(res.text).not.toContain("<script>");
    });

    it("offers the fallback sizes XS to XXL for a tee without a size option", async () => {
      const res = await request(t.app).get("/shop/heavyweight-tee-blackout?Size=XL").expect(200);
      const sizes = [...res.text.matchAll(/<a class="option-value" href="\?Size=(\w+)"/g)].map((m) => m[1]);
      expect(sizes).toEqual(["XS", "S", "M", "L", "XL", "XXL"]);
      expect(res.text).toContain('<input type="hidden" name="selectedSize" value="XL"/>');
      expect(textOf(res.text)).toContain("Shipping: 2-3 business days");
      expect(textOf(res.text)).not.toContain("Ships starting");
    });

    it("caps without a configured ships-starting day ship in 2-3 business days, without the air-dry note", async () => {
      const cap = textOf((await request(t.app).get("/shop/snapback-cap?Color=Red").expect(200)).text);
      expect(cap).toContain("Shipping: 2-3 business days");
      expect(cap).not.toContain("Air dry");
      expect(cap).toContain("Save $4.00");
      const bag = textOf((await request(t.app).get("/shop/gear-bag").expect(200)).text);
      expect(bag).toContain("Shipping: 2-3 business days");
    });

    it("sends event items to their event instead of the cart", async () => {
      const res = await request(t.app).get("/shop/1").expect(200);
      expect(res.text).toContain('<a class="btn btn-primary btn-block" href="/events/1">Register for Event - $249.00</a>');
      expect(res.text).not.toContain('action="/cart/add"');
    });

    it("asks to be contacted for a product priced 0", async () => {
      const res = await request(t.app).get(source === "bundled" ? "/shop/1004" : "/shop/heavyweight-tee-team-pack").expect(200);
      expect(textOf(res.text)).toContain("Contact for pricing");
      expect(res.text).toContain('href="/contact">Contact Us for Pricing</a>');
      expect(res.text).not.toContain('action="/cart/add"');
    });

    it("finds a product by id when the address carries one", async () => {
      const id = source === "bundled" ? "1002" : encodeURIComponent("gid://shopify/Product/1002");
      const res = await request(t.app).get(`/shop/${id}`).expect(200);
      expect(res.text).toContain("<title>Ironside Snapback Cap | Ironside</title>");
    });

    it("answers 404 'Product not found' with a link back to /shop", async () => {
      const res = await request(t.app).get("/shop/no-such-product").expect(404);
      expect(res.text).toContain("<title>Product not found | Ironside</title>");
      expect(res.text).toMatch(/<h1[^>]*>Product not found<\/h1>/);
      expect(res.text).toContain('href="/shop"');
      expect(executableScripts(res.text)).toEqual([]);
    });
  });

  describe("product APIs", () => {
    it("GET /api/products/retail lists the retail products in the spec's shape", async () => {
      const res = await request(t.app).get("/api/products/retail").expect(200).expect("content-type", /json/);
      const products = res.body as Product[];
      expect(products.map((p) => p.title)).toEqual([
        "Ironside Heavyweight Tee",
        "Ironside Snapback Cap",
        "Heavyweight Tee - Blackout Edition",
        "Heavyweight Tee Team Pack",
      ]);
      const tee = products[0]!;
      expect(Object.keys(tee).sort()).toEqual(["body_html", "handle", "id", "images", "options", "product_type", "tags", "title", "variants", "vendor"]);
      expect(tee.images[0]).toMatchObject({ src: "/images/products/tee-black.svg", alt: "Ironside Heavyweight Tee in black" });
      expect(tee.variants[0]).toMatchObject({ title: "S / Black", price: "32.00", option1: "S", option2: "Black", option3: null, available: true });
      expect(res.headers["cache-control"]).toBe("public, max-age=300");
    });

    it("GET /api/shop/products/handle/:handle answers one product, or 404 JSON", async () => {
      const cap = await request(t.app).get("/api/shop/products/handle/snapback-cap").expect(200);
      expect(cap.body).toMatchObject({ handle: "snapback-cap", title: "Ironside Snapback Cap", product_type: "Hats" });
      const missing = await request(t.app).get("/api/shop/products/handle/no-such-product").expect(404).expect("content-type", /json/);
      expect(missing.body).toEqual({ success: false, error: "Product not found" });
    });
  });
});

describe("shop on Shopify: caching, retry and outages", () => {
  let fake: FakeShopify;
  beforeAll(async () => {
    fake = await startFakeShopify();
  });
  afterAll(async () => {
    await fake.stop();
  });

  it("reads the catalogue once per 5 minutes, not once per request", async () => {
    const t = await createTestApp(fake.env());
    try {
      const before = fake.calls.filter((c) => c.operationName === "CatalogueProducts").length;
      await request(t.app).get("/api/products/retail").expect(200);
      await request(t.app).get("/shop").expect(200);
      await request(t.app).get("/api/products/retail").expect(200);
      expect(fake.calls.filter((c) => c.operationName === "CatalogueProducts").length - before).toBe(1);
      expect(fake.calls.at(-1)?.query).toContain("products(first: $first, after: $after)");
    } finally {
      await t.close();
    }
  });

  it("retries a failed read once", async () => {
    const t = await createTestApp(fake.env());
    try {
      const before = fake.requestCount();
      fake.failNext(1);
      const res = await request(t.app).get("/api/products/retail").expect(200);
      expect(res.body).toHaveLength(4);
      expect(fake.requestCount() - before).toBe(2);
    } finally {
      await t.close();
    }
  });

  it.each(["down", "hang"] as const)("when Shopify is %s, pages answer within 3 s with the empty and not-found states, and log it", async (mode) => {
    const { logger, lines } = captureLogger();
    const t = await createTestApp(fake.env(), { logger });
    fake.setMode(mode);
    try {
      let started = Date.now();
      const shop = await request(t.app).get("/shop");
      expect(Date.now() - started).toBeLessThan(scaledMs(3000));
      expect(shop.status).toBe(503);
      const text = textOf(shop.text);
      expect(text).toContain("No Products Available");
      expect(shop.text).toContain('<a class="btn btn-primary" href="/events">Explore Training Camps</a>');

      started = Date.now();
      const product = await request(t.app).get("/shop/heavyweight-tee");
      expect(Date.now() - started).toBeLessThan(scaledMs(3000));
      expect(product.status).toBe(503);
      expect(product.text).toMatch(/<h1[^>]*>Product not found<\/h1>/);
      expect(product.text).toContain('href="/shop"');

      const api = await request(t.app).get("/api/products/retail").expect(503);
      expect(api.body).toEqual({ success: false, error: "Our product catalog is temporarily unavailable. Please try again in a few minutes." });
      await request(t.app).get("/api/shop/products/handle/snapback-cap").expect(503);

      expect(lines.filter((l) => l.level === 50).map((l) => l.msg)).toContain("catalogue unavailable");
    } finally {
      fake.setMode("up");
      await t.close();
    }
  });

  it("a store without retail products shows 'No Products Available' (200, not an outage)", async () => {
    const empty = await startFakeShopify({ products: [] });
    const t = await createTestApp(empty.env());
    try {
      const shop = await request(t.app).get("/shop").expect(200);
      expect(textOf(shop.text)).toContain("No Products Available");
      expect(textOf(shop.text)).not.toContain("not answering");
      expect(shop.text).toContain('href="/events">Explore Training Camps</a>');
      expect((await request(t.app).get("/api/products/retail").expect(200)).body).toEqual([]);
    } finally {
      await t.close();
      await empty.stop();
    }
  });

  it("names the retail collection after the configured brand", async () => {
    const t = await createTestApp({ ...fake.env(), BRAND_NAME: "Granite" });
    try {
      const res = await request(t.app).get("/api/products/retail").expect(200);
      // The fake serves titles with "Ironside": the tees pass ('heavyweight tee'), the Ironside cap does not.
      expect((res.body as Product[]).map((p) => p.handle)).toEqual(["heavyweight-tee", "heavyweight-tee-blackout", "heavyweight-tee-team-pack"]);
      expect((await request(t.app).get("/shop").expect(200)).text).toContain("<title>Shop | Granite</title>");
    } finally {
      await t.close();
    }
  });

  it("when the Shopify server is gone, pages still answer", async () => {
    const gone = await startFakeShopify();
    const env = gone.env();
    await gone.stop();
    const t = await createTestApp(env, { logger: captureLogger().logger });
    try {
      const shop = await request(t.app).get("/shop").expect(503);
      expect(textOf(shop.text)).toContain("No Products Available");
      await request(t.app).get("/shop/heavyweight-tee").expect(503);
    } finally {
      await t.close();
    }
  });

  it("the fake's Admin API takes an order write-back with the admin token", async () => {
    const { createAdminApiClient } = await import("@shopify/admin-api-client");
    const { shopifyFetch } = await import("../../src/catalogue/shopify.ts");
    const client = createAdminApiClient({
      storeDomain: fake.domain,
      apiVersion: fake.apiVersion,
      accessToken: fake.adminToken,
      customFetchApi: shopifyFetch(1000),
    });
    const { data, errors } = await client.request<{ orderCreate: { order: { id: string; name: string }; userErrors: unknown[] } }>(
      `mutation OrderCreate($order: OrderCreateOrderInput!) { orderCreate(order: $order) { order { id name } userErrors { field message } } }`,
      { variables: { order: { email: "a@example.com", lineItems: [{ variantId: "gid://shopify/ProductVariant/2001", quantity: 2 }] } } },
    );
    expect(errors).toBeUndefined();
    expect(data?.orderCreate.order.id).toMatch(/^gid:\/\/shopify\/Order\/\d+$/);
    expect(fake.orders.at(-1)?.input).toMatchObject({ lineItems: [{ variantId: "gid://shopify/ProductVariant/2001", quantity: 2 }] });
  });
});

describe("SHIPS_STARTING_DATE", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ SHIPS_STARTING_DATE: "2099-06-25" });
  });
  afterAll(async () => {
    await t.close();
  });

  it("puts the configured day, with its year, on the shop, the product page and the shipping policy", async () => {
    expect(textOf((await request(t.app).get("/shop").expect(200)).text).match(/Ships starting June 25, 2099/g)).toHaveLength(4);
    expect(textOf((await request(t.app).get("/shop/snapback-cap").expect(200)).text)).toContain("Shipping: Ships starting June 25, 2099");
    expect(textOf((await request(t.app).get("/shipping").expect(200)).text)).toContain("Tees and caps marked 'Ships starting June 25, 2099'");
  });
});
