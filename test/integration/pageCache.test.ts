import { afterAll, beforeAll, describe, expect, it } from "vitest";
import http from "node:http";
import type { AddressInfo } from "node:net";
import zlib from "node:zlib";
import request from "supertest";
import { createTestApp, type TestApp } from "../support/app.ts";
import { csrfFrom, textOf, visitor } from "../support/http.ts";

/**
 * Pages kept for visitors without state (src/http/pageCache.ts): a page is rendered once and sent to the next
 * stateless visitors, each with their own CSRF token; a visitor with state, and a change committed through the app,
 * get a fresh render. A kept page is answered with an `Age` header, as any HTTP cache does; a render has none.
 */
let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ PAGE_CACHE_MS: "60000" });
});
afterAll(async () => {
  await t?.close();
});

const PLACEHOLDER = /csrf-placeholder-/;
/** Pages are kept per origin (canonical links name it), and supertest gives every request its own port: one Host for all. */
const HOST = "shop.test";
const get = async (agent: request.Agent | ReturnType<typeof request>, url: string, status = 200) => {
  const res = await agent.get(url).set("host", HOST).expect(status);
  expect(res.text).not.toMatch(PLACEHOLDER);
  return res;
};
const kept = (res: request.Response) => res.headers.age !== undefined;

describe("pages kept for visitors without state", () => {
  it("never keeps the page that showed a visitor's toast (it carries their own CSRF token) for the next visitor", async () => {
    await t.db("events").where({ id: 2 }).update({ listed: true });
    const a = request.agent(t.app);
    const first = await get(a, "/events/2");
    const posted = await a.post("/events/2/lost-confirmation").set("host", HOST).type("form").send({ email: "a@example.com", _csrf: csrfFrom(first.text) });
    expect(posted.status).toBe(303);
    // Rendered with the toast (the session had state), which leaves the session without state once taken.
    expect(textOf((await get(a, "/events/2")).text)).toContain("Check your inbox");
    const b = request.agent(t.app);
    const page = await get(b, "/events/2");
    expect(textOf(page.text)).not.toContain("Check your inbox");
    const res = await b.post("/events/2/lost-confirmation").set("host", HOST).type("form").send({ email: "b@example.com", _csrf: csrfFrom(page.text) });
    expect(res.status).toBe(303);
  });

  it("gives every visitor of a kept registration page a form id of their own, so two families never share one registration", async () => {
    const formIdOf = (html: string) => /&quot;formSessionId&quot;:&quot;([A-Za-z0-9_-]+)&quot;|"formSessionId":"([A-Za-z0-9_-]+)"/.exec(html)?.slice(1).find(Boolean);
    const pages = [];
    for (const path of ["/register/2", "/register/2", "/register/2", "/team-register/2", "/team-register/2"]) pages.push(await get(request.agent(t.app), path));
    expect(pages.slice(1, 3).every(kept)).toBe(true);
    const ids = pages.map((p) => formIdOf(p.text));
    expect(ids.every((id) => id && /^[A-Za-z0-9_-]{16,64}$/.test(id) && !id.startsWith("formid"))).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it("gzips a kept page for a visitor that accepts it, with that visitor's own token and form id, byte for byte the page sent unencoded", async () => {
    await get(request(t.app), "/register/2");
    // The bytes as sent (supertest would decompress them): a plain HTTP request to the app listening on loopback.
    const server = t.app.listen(0, "127.0.0.1");
    await new Promise((resolve) => server.once("listening", resolve));
    const { port } = server.address() as AddressInfo;
    const raw = (encoding: string) =>
      new Promise<{ encoding?: string; vary: string; age?: string; body: Buffer }>((resolve, reject) => {
        http.get({ host: "127.0.0.1", port, path: "/register/2", headers: { host: HOST, "accept-encoding": encoding } }, (res) => {
          const chunks: Buffer[] = [];
          res.on("data", (c: Buffer) => chunks.push(c));
          res.on("end", () => resolve({ encoding: res.headers["content-encoding"], vary: String(res.headers.vary), age: res.headers.age, body: Buffer.concat(chunks) }));
          res.on("error", reject);
        }).on("error", reject);
      });
    let zipped, plain;
    try {
      [zipped, plain] = [await raw("gzip, deflate, br"), await raw("identity")];
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
    expect([zipped.age, plain.age].every((age) => age !== undefined)).toBe(true);
    expect(zipped.encoding).toBe("gzip");
    expect(zipped.vary).toMatch(/accept-encoding/i);
    expect(plain.encoding).toBeUndefined();
    // gunzipSync checks the trailer's CRC and length: a page put together wrongly fails here.
    const html = zlib.gunzipSync(zipped.body).toString();
    expect(html).not.toMatch(PLACEHOLDER);
    expect(html).not.toMatch(/formid[0-9a-f]{32}/);
    const token = csrfFrom(html);
    expect(token).not.toBe(csrfFrom(plain.body.toString()));
    const formId = (page: string) => /name="formSessionId" value="([A-Za-z0-9_-]+)"/.exec(page)![1]!;
    const sameBut = (page: string) => page.replaceAll(csrfFrom(page), "TOKEN").replaceAll(formId(page), "ID");
    expect(formId(html)).not.toBe(formId(plain.body.toString()));
    expect(sameBut(html)).toBe(sameBut(plain.body.toString()));
    expect(zipped.body.length).toBeLessThan(html.length / 2);
  });

  it("sends a kept page to the next visitor with that visitor's own token, which works for that visitor only", async () => {
    const first = await get(request(t.app), "/contact");
    expect(kept(first)).toBe(false);
    const a = request.agent(t.app);
    const b = request.agent(t.app);
    const pageA = await get(a, "/contact");
    const pageB = await get(b, "/contact");
    expect(kept(pageA) && kept(pageB)).toBe(true);
    expect(pageA.headers.age).toMatch(/^\d+$/);

    const tokenA = csrfFrom(pageA.text);
    const tokenB = csrfFrom(pageB.text);
    expect(tokenA).not.toBe(tokenB);
    // Forms and widget props carry the visitor's token too.
    expect(pageA.text).toContain(`name="_csrf" value="${tokenA}"`);
    expect(pageB.text).toContain(`name="_csrf" value="${tokenB}"`);
    expect(pageB.text).toContain(`"csrfToken":"${tokenB}"`);
    expect(pageB.text).not.toContain(tokenA);

    const add = { shopifyProductId: "1001", shopifyVariantId: "2001", quantity: 1 };
    await a.post("/api/cart/add").set("x-csrf-token", tokenB).send(add).expect(403);
    await a.post("/api/cart/add").set("x-csrf-token", tokenA).send(add).expect(200);
    // A has a cart now: A's pages are rendered for A (the header counts A's item); B still gets the kept one.
    const withCart = await get(a, "/contact");
    expect(kept(withCart)).toBe(false);
    expect(withCart.text).toContain('aria-label="Cart, 1 item');
    expect(kept(await get(b, "/contact"))).toBe(true);
  });

  it("keeps the events API's answer like a page: the same JSON, gzipped for a client that accepts it, 404 never kept", async () => {
    const first = await request(t.app).get("/api/events/2").set("host", HOST).expect(200);
    const again = await request(t.app).get("/api/events/2").set("host", HOST).set("accept-encoding", "gzip").expect(200);
    expect(kept(first)).toBe(false);
    expect(kept(again)).toBe(true);
    expect(again.headers["content-type"]).toBe(first.headers["content-type"]);
    expect(again.headers["content-encoding"]).toBe("gzip");
    expect(again.body).toEqual(first.body);
    expect(String(again.headers["set-cookie"] ?? "")).toBe("");
    for (let i = 0; i < 2; i++) expect(kept(await request(t.app).get("/api/events/99").set("host", HOST).expect(404))).toBe(false);
  });

  it("keeps a route's own Cache-Control, never a page with another status than 200, and a query string is its own page", async () => {
    await get(request(t.app), "/register/2");
    const again = await get(request(t.app), "/register/2");
    expect(kept(again)).toBe(true);
    expect(again.headers["cache-control"]).toBe("no-store");

    await get(request(t.app), "/events/999", 404);
    expect(kept(await get(request(t.app), "/events/999", 404))).toBe(false);

    expect(kept(await get(request(t.app), "/shop"))).toBe(false);
    expect(kept(await get(request(t.app), "/shop"))).toBe(true);
    expect(kept(await get(request(t.app), "/shop?ref=newsletter"))).toBe(false);
    // The cart page is kept per cart state (test/integration/pageCache.cart.test.ts), the empty cart too.
    const emptyCart = await get(request(t.app), "/cart");
    const keptCart = await get(request(t.app), "/cart");
    expect(kept(keptCart)).toBe(true);
    expect(keptCart.headers["content-type"]).toBe(emptyCart.headers["content-type"]);
    expect(keptCart.headers["cache-control"]).toBe(emptyCart.headers["cache-control"]);
  });

  it("keeps pages through holds (places left shown up to PAGE_CACHE_MS old), and forgets them when an event's change is committed through the app", async () => {
    const placesLeft = async () => {
      const res = await get(request(t.app), "/events/1");
      const text = textOf(res.text);
      const left = /(\d+) of \d+ places left/.exec(text)?.[1];
      expect(left, text.slice(0, 300)).toMatch(/^\d+$/);
      return { left: Number(left), kept: kept(res) };
    };
    // The events API shows the same places left, kept and forgotten with the page.
    const apiPlacesLeft = async () => {
      const res = await request(t.app).get("/api/events/1").set("host", HOST).expect(200).expect("content-type", /json/);
      return { left: (res.body as { placesLeft: number }).placesLeft, kept: kept(res) };
    };
    const before = await placesLeft();
    expect((await placesLeft()).kept).toBe(true);
    await apiPlacesLeft();
    expect(await apiPlacesLeft()).toEqual({ left: before.left, kept: true });
    const v = await visitor(t.app);
    const held = await v.form("/register/1", {
      firstName: "Kept", lastName: "Page", email: "kept.page@example.com", phone: "(205) 555-0100", grade: "10th", gender: "Male",
      schoolName: "Central High", clubName: "Steel City WC", emergencyContactName: "Pat Page", emergencyContactPhone: "205-555-0199", adult: "on",
      agrees: "on", formSessionId: `page-cache-form-session-${Date.now()}`, registrationType: "full",
    });
    expect(held.status).toBe(303);
    expect(await placesLeft()).toEqual({ left: before.left, kept: true });
    expect(await apiPlacesLeft()).toEqual({ left: before.left, kept: true });
    // An operator's change through the app (any write of the events' tables) empties them: the page is rendered again.
    await t.db("events").where({ id: 1 }).update({ updated_at: new Date() });
    expect(await placesLeft()).toEqual({ left: before.left - 1, kept: false });
    expect(await apiPlacesLeft()).toEqual({ left: before.left - 1, kept: false });
  });
});

describe("how long a page is kept", () => {
  it("renders again once the time is up, and never keeps anything with PAGE_CACHE_MS=0", async () => {
    for (const [ms, keptAgain] of [["1", false], ["0", false]] as const) {
      const app = await createTestApp({ PAGE_CACHE_MS: ms });
      try {
        await get(request(app.app), "/about");
        await new Promise((r) => setTimeout(r, 5));
        expect(kept(await get(request(app.app), "/about"))).toBe(keptAgain);
      } finally {
        await app.close();
      }
    }
  });
});
