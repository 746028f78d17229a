import request from "supertest";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, type TestApp } from "../support/app.ts";
import { createApp } from "../../src/app.ts";
import { CatalogueUnavailableError } from "../../src/catalogue/source.ts";
import { productPath } from "../../src/shared/catalogue/rules.ts";
import { ROBOTS_DISALLOW, SITEMAP_PAGES } from "../../src/crawlers/routes.ts";

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ PUBLIC_URL: "https://shop.example" });
});
afterAll(async () => {
  await t?.close();
});

const locs = (xml: string) => [...xml.matchAll(/<loc>([^<]*)<\/loc>/g)].map((m) => m[1]!);
const lastmodOf = (xml: string, loc: string) => new RegExp(`<loc>${loc.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")}</loc><lastmod>([^<]*)</lastmod>`).exec(xml)?.[1];

describe("robots.txt", () => {
  it("keeps crawlers out of the cart, checkout, order and registration steps, and names the sitemap", async () => {
    const res = await request(t.app).get("/robots.txt");
    expect(res.status).toBe(200);
    expect(res.headers["content-type"]).toMatch(/^text\/plain/);
    expect(res.headers["set-cookie"]).toBeUndefined();
    const lines = res.text.split("\n");
    expect(lines[0]).toBe("User-agent: *");
    for (const p of ["/cart", "/stripe-checkout", "/register/", "/team-registration", "/team-register/", "/coach-registration", "/orders/", "/api/"]) {
      expect(lines).toContain(`Disallow: ${p}`);
    }
    expect(lines).toContain("Sitemap: https://shop.example/sitemap.xml");
  });
});

describe("sitemap.xml", () => {
  it("lists the pages, every listed event with its last change and every product; each answers 200 and none is disallowed", async () => {
    const res = await request(t.app).get("/sitemap.xml");
    expect(res.status).toBe(200);
    expect(res.headers["content-type"]).toMatch(/^application\/xml/);
    expect(res.text).toContain('<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">');
    const listed = await t.db<{ id: number; updated_at: Date | string; listed: boolean }>("events").where("listed", true).orderBy("id").select("id", "updated_at");
    const products = await t.catalogue.listProducts();
    expect(listed.length).toBeGreaterThan(0);
    expect(products.length).toBeGreaterThan(0);
    const expected = [
      ...SITEMAP_PAGES,
      ...listed.map((e) => `/events/${e.id}`),
      ...products.map((p) => productPath(p)),
    ].map((p) => `https://shop.example${p}`);
    expect(locs(res.text)).toEqual(expected);
    for (const e of listed) {
      expect(lastmodOf(res.text, `https://shop.example/events/${e.id}`)).toBe(new Date(e.updated_at).toISOString().slice(0, 10));
    }
    for (const loc of locs(res.text)) {
      const path = loc.slice("https://shop.example".length);
      expect(ROBOTS_DISALLOW.some((d) => path.startsWith(d)), path).toBe(false);
      expect((await request(t.app).get(path)).status, path).toBe(200);
    }
  });

  it("follows the events table: a changed event gets its new date, an unlisted one leaves", async () => {
    await t.db("events").where({ id: 2 }).update({ updated_at: new Date("2027-01-15T12:00:00Z") });
    await t.db("events").where({ id: 3 }).update({ listed: false });
    try {
      const xml = (await request(t.app).get("/sitemap.xml")).text;
      expect(lastmodOf(xml, "https://shop.example/events/2")).toBe("2027-01-15");
      expect(locs(xml)).not.toContain("https://shop.example/events/3");
    } finally {
      await t.db("events").where({ id: 3 }).update({ listed: true });
    }
  });

  it("answers 503 (try later) when the catalogue does not answer, instead of a sitemap without products", async () => {
    const down = {
      listProducts: () => Promise.reject(new CatalogueUnavailableError("Shopify did not answer")),
      findByHandle: () => Promise.reject(new CatalogueUnavailableError("Shopify did not answer")),
      findById: () => Promise.reject(new CatalogueUnavailableError("Shopify did not answer")),
    };
    const res = await request(createApp({ ...t, catalogue: down })).get("/sitemap.xml");
    expect(res.status).toBe(503);
    expect(res.headers["retry-after"]).toBe("300");
  });
});

describe("favicon.ico", () => {
  it("is an icon file with the 16, 32 and 48 px shields", async () => {
    const res = await request(t.app).get("/favicon.ico").buffer(true).parse((r, cb) => {
      const chunks: Buffer[] = [];
      r.on("data", (c: Buffer) => chunks.push(c));
      r.on("end", () => cb(null, Buffer.concat(chunks)));
    });
    expect(res.status).toBe(200);
    expect(res.headers["content-type"]).toMatch(/icon/);
    const body = res.body as Buffer;
    expect([...body.subarray(0, 4)]).toEqual([0, 0, 1, 0]);
    expect(body.readUInt16LE(4)).toBe(3);
    expect([0, 1, 2].map((i) => body[6 + 16 * i])).toEqual([16, 32, 48]);
  });
});
