import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Test } from "supertest";
import { createTestApp, type TestApp } from "../support/app.ts";
import { visitor } from "../support/http.ts";
import { CSRF_MESSAGE } from "../../src/http/errors.ts";
import { routePath, UNSAFE_ROUTES, validBody, type UnsafeRoute } from "./routes.ts";
import { cartState, rowCounts, shopperWithOneLine, type Visitor } from "./support.ts";

/**
 * The CSRF and Origin matrix: every unsafe route of the table, sent with the victim's cookies and an otherwise
 * valid body, by each kind of forgery. None may change a row or the cart.
 */
let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => {
  await t?.close();
});

interface Attack {
  name: string;
  /** The attack's request; `token` is the victim's, `otherToken` one from another session. */
  send: (req: Test, ctx: { route: UnsafeRoute; body: Record<string, unknown>; token: string; otherToken: string }) => Test;
}

const asForm = (body: Record<string, unknown>, extra: Record<string, string> = {}) => {
  const out: string[] = [];
  const walk = (value: unknown, prefix: string) => {
    if (value !== null && typeof value === "object") for (const [k, v] of Object.entries(value)) walk(v, prefix ? `${prefix}[${k}]` : k);
    else out.push(`${encodeURIComponent(prefix)}=${encodeURIComponent(String(value))}`);
  };
  walk({ ...body, ...extra }, "");
  return out.join("&");
};

/** The body as the route's own client sends it. */
const natural = (req: Test, route: UnsafeRoute, body: Record<string, unknown>, extra: Record<string, string> = {}) =>
  route.body === "json" ? req.set("content-type", "application/json").send(JSON.stringify(body)) : route.body === "form" ? req.type("form").send(asForm(body, extra)) : req;

const ATTACKS: Attack[] = [
  { name: "no token", send: (req, { route, body }) => natural(req, route, body) },
  { name: "another session's token", send: (req, { route, body, otherToken }) => natural(req.set("x-csrf-token", otherToken), route, body, { _csrf: otherToken }) },
  { name: "a made-up token", send: (req, { route, body }) => natural(req.set("x-csrf-token", "x".repeat(64)), route, body, { _csrf: "x".repeat(64) }) },
  // The second line holds even with the right token.
  { name: "a foreign Origin", send: (req, { route, body, token }) => natural(req.set("x-csrf-token", token).set("origin", "https://evil.example"), route, body, { _csrf: token }) },
  { name: "Origin null", send: (req, { route, body, token }) => natural(req.set("x-csrf-token", token).set("origin", "null"), route, body, { _csrf: token }) },
  { name: "a malformed Origin", send: (req, { route, body, token }) => natural(req.set("x-csrf-token", token).set("origin", "http://[::1"), route, body, { _csrf: token }) },
  { name: "Sec-Fetch-Site cross-site", send: (req, { route, body, token }) => natural(req.set("x-csrf-token", token).set("sec-fetch-site", "cross-site"), route, body, { _csrf: token }) },
  { name: "Sec-Fetch-Site same-site", send: (req, { route, body, token }) => natural(req.set("x-csrf-token", token).set("sec-fetch-site", "same-site"), route, body, { _csrf: token }) },
  // What a cross-site HTML form can send: text/plain holding JSON, or a urlencoded body, without the header.
  { name: "text/plain JSON", send: (req, { body }) => req.set("content-type", "text/plain").send(JSON.stringify(body)) },
  { name: "a form body to any route", send: (req, { body }) => req.type("form").send(asForm(body)) },
  { name: "the token in the query string", send: (req, { route, body, token }) => natural(req.query({ _csrf: token }), route, body) },
];

describe("CSRF and Origin matrix over every unsafe route", () => {
  it(`refuses ${ATTACKS.length} forgeries on each of ${UNSAFE_ROUTES.length} routes with 403 and changes nothing`, { timeout: 120_000 }, async () => {
    const { v, lineId, slots } = await shopperWithOneLine(t.app);
    const other: Visitor = await visitor(t.app);
    const rows = await rowCounts(t.db);
    const cart = await cartState(v);
    let tried = 0;
    for (const route of UNSAFE_ROUTES) {
      const body = validBody(route, slots);
      for (const attack of ATTACKS) {
        const method = route.method.toLowerCase() as "post" | "patch" | "delete";
        const res = await attack.send(v.agent[method](routePath(route, lineId)).set("accept", "application/json"), { route, body, token: v.token, otherToken: other.token });
        const what = `${route.method} ${route.path} with ${attack.name}`;
        expect(res.status, `${what}: ${res.text.slice(0, 200)}`).toBe(403);
        expect(res.body.error, what).toMatch(new RegExp(`^(${CSRF_MESSAGE.replace(/[.?]/g, "\\$&")}|Cross-site requests are not accepted\\.)$`));
        tried++;
      }
      expect(await rowCounts(t.db), route.path).toEqual(rows);
      expect(await cartState(v), route.path).toBe(cart);
    }
    expect(tried).toBe(ATTACKS.length * UNSAFE_ROUTES.length);
  });

  it("lets the same requests through with the right token from the same origin (the matrix can fail)", async () => {
    const { v, lineId, slots } = await shopperWithOneLine(t.app);
    const route = UNSAFE_ROUTES.find((r) => r.path === "/api/newsletter")!;
    const res = await v.post(route.path).set("origin", "http://127.0.0.1").set("host", "127.0.0.1").send(validBody(route, slots));
    expect(res.status).toBe(201);
    const patch = await v.patch(`/api/cart/items/${lineId}`).set("sec-fetch-site", "same-origin").send({ quantity: 2 });
    expect(patch.status).toBe(200);
  });
});
