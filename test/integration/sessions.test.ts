import { afterAll, beforeAll, describe, expect, it } from "vitest";
import request from "supertest";
import { createTestApp, type TestApp } from "../support/app.ts";
import { visitor } from "../support/http.ts";

/**
 * Browsing stores nothing: the CSRF token comes from a signed visitor cookie, not from a session, so a session is
 * written only when there is something to keep (here: a cart line). On MySQL + Redis the session keys are counted
 * in Redis itself; on the embedded defaults the session cookie tells (it is set exactly when the session is saved).
 */
let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => {
  await t?.close();
});

const PAGES = ["/", "/shop", "/shop/heavyweight-tee", "/events", "/events/2", "/custom-apparel", "/contact", "/about", "/cart", "/api/events/2", "/api/cart"];

async function storedSessions(): Promise<number | undefined> {
  if (!t.redis) return undefined;
  let n = 0;
  for await (const keys of t.redis.scanIterator({ MATCH: `${t.config.redis!.prefix}sess:*`, COUNT: 500 })) n += keys.length;
  return n;
}

const sessionCookies = (res: request.Response) => ((res.headers["set-cookie"] as unknown as string[] | undefined) ?? []).filter((c) => c.startsWith("sid="));

describe("sessions only when there is something to keep", () => {
  it("anonymous GETs of every page type store no session and set no session cookie, new or returning", async () => {
    const before = await storedSessions();
    const returning = request.agent(t.app);
    for (const url of PAGES) {
      for (const agent of [request(t.app), returning]) {
        const res = await agent.get(url);
        expect(res.status, url).toBe(200);
        expect(sessionCookies(res), url).toEqual([]);
      }
    }
    expect(await storedSessions()).toBe(before);
  });

  it("adding to the cart creates exactly one session, and the token of the anonymous page keeps working after it", async () => {
    const before = await storedSessions();
    const v = await visitor(t.app, "/shop/heavyweight-tee");
    const first = await v.post("/api/cart/add").send({ shopifyProductId: "1001", shopifyVariantId: "2001", quantity: 1 });
    expect(first.status).toBe(200);
    expect(sessionCookies(first)).toHaveLength(1);
    const second = await v.post("/api/cart/add").send({ shopifyProductId: "1001", shopifyVariantId: "2002", quantity: 1 });
    expect(second.status).toBe(200);
    expect(second.body.cartItems).toHaveLength(2);
    if (before !== undefined) expect(await storedSessions()).toBe(before + 1);
  });

  it("a page's CSRF token belongs to its visitor cookie: without that cookie, or with another visitor's, a post is refused", async () => {
    const before = await storedSessions();
    const a = await visitor(t.app);
    const b = await visitor(t.app);
    expect(a.token).not.toBe(b.token);
    const stranger = await request(t.app).post("/api/cart/add").set("accept", "application/json").set("x-csrf-token", a.token).send({ shopifyProductId: "1001", shopifyVariantId: "2001", quantity: 1 });
    expect(stranger.status).toBe(403);
    expect((await b.agent.post("/api/cart/add").set("x-csrf-token", a.token).send({ shopifyProductId: "1001", shopifyVariantId: "2001", quantity: 1 })).status).toBe(403);
    expect(await storedSessions()).toBe(before);
  });
});
