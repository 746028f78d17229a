import { afterAll, beforeAll, describe, expect, it } from "vitest";
import request from "supertest";
import type { Express } from "express";
import { ADDRESS } from "../support/address.ts";
import { createTestApp, type TestApp } from "../support/app.ts";
import { csrfFrom, textOf } from "../support/http.ts";
import { createApp } from "../../src/app.ts";
import { BUNDLED_CATALOGUE_FILE, loadCatalogueFile } from "../../src/catalogue/bundled.ts";
import type { CatalogueSource } from "../../src/catalogue/source.ts";
import type { Product } from "../../src/shared/catalogue/types.ts";

/**
 * The cart page kept per cart state (src/http/pageCache.ts `answerKept`, `fromKeptPage` in the page context): a
 * visitor with items is answered without a render while the cart and the catalogue's facts on it are unchanged,
 * each response with its own CSRF token; a change to either is shown at once, and nothing a visitor typed is kept.
 * Pages are kept a minute here, so only the key can make a page fresh. A kept page is answered with an `Age` header.
 */
let t: TestApp;
let app: Express;
let products: Product[];
beforeAll(async () => {
  t = await createTestApp({ PAGE_CACHE_MS: "60000" });
  // A catalogue the test can change, as an operator editing Shopify would.
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

const HOST = "shop.test";
const kept = (res: request.Response) => res.headers.age !== undefined;
const variant = (productId: string, variantId: string) => products.find((p) => p.id === productId)!.variants.find((v) => v.id === variantId)!;

/** A browser: its cookies by name (the session `sid`, the CSRF visitor id `vid`), which a test can copy to another. */
function browser() {
  const cookies = new Map<string, string>();
  const withCookies = (req: request.Test) => req.set("host", HOST).set("cookie", [...cookies].map(([k, v]) => `${k}=${v}`).join("; "));
  const keep = (res: request.Response) => {
    for (const line of (res.headers["set-cookie"] as unknown as string[] | undefined) ?? []) {
      const [pair] = line.split(";");
      const eq = pair!.indexOf("=");
      cookies.set(pair!.slice(0, eq), pair!.slice(eq + 1));
    }
    return res;
  };
  let token = "";
  const b = {
    cookies,
    get token() {
      return token;
    },
    async get(url: string) {
      const res = keep(await withCookies(request(app).get(url)).expect(200));
      expect(res.text).not.toMatch(/csrf-placeholder-/);
      token = csrfFrom(res.text);
      return res;
    },
    async add(variantId: string, quantity = 1) {
      if (!token) await b.get("/about");
      const res = keep(await withCookies(request(app).post("/api/cart/add")).set("x-csrf-token", token).send({ shopifyProductId: "1001", shopifyVariantId: variantId, quantity }));
      expect(res.status, res.text).toBe(200);
    },
    async form(url: string, fields: Record<string, string>) {
      return keep(await withCookies(request(app).post(url)).type("form").send({ _csrf: token, ...fields }));
    },
  };
  return b;
}

const lineIds = (html: string) => [...html.matchAll(/data-line-id="([^"]+)"/g)].map((m) => m[1]!);

describe("the cart page kept per cart state", () => {
  it("answers a reload of an unchanged cart from the kept page, with the visitor's own token, which works", async () => {
    const a = browser();
    await a.add("2001", 2);
    const first = await a.get("/cart");
    expect(kept(first)).toBe(false);
    const again = await a.get("/cart");
    expect(kept(again)).toBe(true);
    expect(again.text).toBe(first.text);
    expect(textOf(again.text)).toContain("Ironside Heavyweight Tee");
    // The token in the meta tag, the forms and the widgets' props is this visitor's, and a write with it is taken.
    expect(again.text).toContain(`name="_csrf" value="${a.token}"`);
    expect(again.text).toContain(`"csrfToken":"${a.token}"`);
    await a.add("2002");
  });

  it("gives two visitors of the same cart each their own token in the kept page, and another visitor's cart is never theirs", async () => {
    const a = browser();
    await a.add("2003");
    const pageA = await a.get("/cart");
    // B shares A's session (the same cart, the same key) but is another visitor: another CSRF visitor id.
    const b = browser();
    await b.get("/about");
    b.cookies.set("sid", a.cookies.get("sid")!);
    const pageB = await b.get("/cart");
    expect(kept(pageB)).toBe(true);
    expect(b.token).not.toBe(a.token);
    expect(pageB.text).toContain(`"csrfToken":"${b.token}"`);
    expect(pageB.text).not.toContain(a.token);
    expect(lineIds(pageB.text)).toEqual(lineIds(pageA.text));
    await b.form(`/cart/items/${lineIds(pageB.text)[0]}/update`, { quantity: "2" }).then((res) => expect(res.status).toBe(303));
    await b.form(`/cart/items/${lineIds(pageB.text)[0]}/update`, { quantity: "2", _csrf: a.token }).then((res) => expect(res.status).toBe(403));

    // C puts the same item in a cart of their own: C's page has C's line, never A's kept page.
    const c = browser();
    await c.add("2003");
    const pageC = await c.get("/cart");
    expect(kept(pageC)).toBe(false);
    expect(lineIds(pageC.text)).toHaveLength(1);
    expect(lineIds(pageC.text)).not.toEqual(lineIds(pageA.text));
  });

  it("reads the session of a kept cart page only through a cookie the site signed, and writes nothing back", async () => {
    const a = browser();
    await a.add("2001");
    const pageA = await a.get("/cart");
    const answered = await a.get("/cart");
    expect(kept(answered)).toBe(true);
    expect(String(answered.headers["set-cookie"] ?? "")).not.toMatch(/\bsid=/);
    // B sends A's session id under a signature the site did not make: B is a visitor without a session, never A.
    const b = browser();
    await b.get("/about");
    const sid = decodeURIComponent(a.cookies.get("sid")!);
    const forged = `${sid.slice(0, sid.lastIndexOf(".") + 1)}${"A".repeat(sid.length - sid.lastIndexOf(".") - 1)}`;
    b.cookies.set("sid", encodeURIComponent(forged));
    const pageB = await b.get("/cart");
    expect(kept(pageB)).toBe(false);
    expect(lineIds(pageB.text)).toEqual([]);
    expect(lineIds(pageA.text)).toHaveLength(1);
  });

  it("shows a quantity change, a removal and its toast at once", async () => {
    const a = browser();
    await a.add("2001");
    await a.add("2002");
    await a.get("/cart");
    const before = await a.get("/cart");
    expect(kept(before)).toBe(true);
    expect(textOf(before.text)).toContain("$64.00");
    const [first, second] = lineIds(before.text);

    expect((await a.form(`/cart/items/${first}/update`, { quantity: "3" })).status).toBe(303);
    const more = await a.get("/cart");
    expect(kept(more)).toBe(false);
    expect(textOf(more.text)).toContain("$128.00");
    expect(more.text).toContain('aria-label="Cart, 4 items');

    expect((await a.form(`/cart/items/${second}/remove`, {})).status).toBe(303);
    const removed = await a.get("/cart");
    expect(kept(removed)).toBe(false);
    expect(textOf(removed.text)).toContain("Item has been removed from your cart");
    expect(textOf(removed.text)).toContain("$96.00");
    // The toast is shown once and never kept: the next answer is rendered without it, and kept from then on.
    const after = await a.get("/cart");
    expect(kept(after)).toBe(false);
    expect(textOf(after.text)).not.toContain("Item has been removed from your cart");
    expect(textOf(after.text)).toContain("$96.00");
    expect(kept(await a.get("/cart"))).toBe(true);
  });

  it("shows a price or stock change in the catalogue on the next request, though pages are kept a minute", async () => {
    const a = browser();
    await a.add("2004");
    await a.get("/cart");
    expect(kept(await a.get("/cart"))).toBe(true);
    const tee = variant("1001", "2004");
    const price = tee.price;
    try {
      tee.price = "36.00";
      const changed = await a.get("/cart");
      expect(kept(changed)).toBe(false);
      expect(textOf(changed.text)).toContain("changed from $32.00 to $36.00");
      tee.price = price;
      const back = await a.get("/cart");
      expect(textOf(back.text)).not.toContain("changed from");
      expect(textOf(back.text)).toContain("$32.00");
    } finally {
      tee.price = price;
    }
  });

  it("never keeps what a visitor typed: the checkout form posted without JavaScript is not shown to another visitor of the same cart", async () => {
    const a = browser();
    await a.add("2001");
    await a.get("/cart");
    const address = Object.fromEntries(Object.entries(ADDRESS).map(([k, v]) => [`shipping[${k}]`, v]));
    const posted = await a.form("/cart/checkout", { firstName: "Priya", lastName: "Private", email: "priya.private@example.com", phone: "", ...address });
    expect(posted.status).toBe(200);
    expect(posted.text).toContain('value="priya.private@example.com"');

    const b = browser();
    await b.get("/about");
    b.cookies.set("sid", a.cookies.get("sid")!);
    for (const page of [await b.get("/cart"), await a.get("/cart")]) {
      expect(page.text).not.toContain("priya.private");
      expect(page.text).not.toContain("Priya");
      expect(page.text).not.toContain(ADDRESS.line1);
    }
  });

  it("answers a visitor with a session from the kept cart page right after the session: nothing later on the request's way runs", async () => {
    const a = browser();
    await a.add("2002");
    await a.get("/cart");
    // A body the JSON parser refuses (400) on the way to the route: the kept page is answered before it.
    const withBody = (req: request.Test) => req.set("host", HOST).set("cookie", [...a.cookies].map(([k, v]) => `${k}=${v}`).join("; ")).set("content-type", "application/json").send("{not json");
    const early = await withBody(request(app).get("/cart"));
    expect(early.status).toBe(200);
    expect(kept(early)).toBe(true);
    expect(early.text).toContain(`"csrfToken":"${a.token}"`);
    // Nothing kept for this cart state yet: the request goes the whole way, as before.
    await a.add("2002");
    expect((await withBody(request(app).get("/cart"))).status).toBe(400);
  });

  it("keeps the empty cart's page for visitors without state, answered before the session, each with their own token", async () => {
    const first = await request(app).get("/cart").set("host", HOST).expect(200);
    const second = await request(app).get("/cart").set("host", HOST).expect(200);
    expect(kept(second)).toBe(true);
    for (const res of [first, second]) {
      expect(res.headers["set-cookie"]?.toString() ?? "").not.toMatch(/\bsid=/);
      expect(res.text).not.toMatch(/csrf-placeholder-/);
    }
    expect(csrfFrom(second.text)).not.toBe(csrfFrom(first.text));
    expect(second.text.replaceAll(csrfFrom(second.text), "")).toBe(first.text.replaceAll(csrfFrom(first.text), ""));
    // A visitor with a cart is never shown it.
    const a = browser();
    await a.add("2001");
    expect(lineIds((await a.get("/cart")).text)).toHaveLength(1);
  });
});
