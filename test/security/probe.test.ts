import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import request from "supertest";
import express from "express";
import session from "express-session";
import { pino } from "pino";
import { createTestApp, type TestApp } from "../support/app.ts";
import { textOf, visitor } from "../support/http.ts";
import { createApp } from "../../src/app.ts";
import { publicDirectory } from "../../src/http/assets.ts";
import { noCookieOnPublicResponses } from "../../src/http/publicCache.ts";
import { TEXT_MESSAGES } from "../../src/shared/text.ts";
import { shopperWithOneLine } from "./support.ts";

/** The outside probe's reproducers, one by one: each now gets a 4xx or a safe answer and the site keeps serving. */
let t: TestApp;
const logLines: string[] = [];
const logs = () => logLines.map((l) => JSON.parse(l) as Record<string, unknown>);

beforeAll(async () => {
  const logger = pino({ level: "debug" }, { write: (line: string) => void logLines.push(line) });
  t = await createTestApp({}, { logger });
});
afterAll(async () => {
  await t?.close();
});

describe("1. the offline Stripe fake cannot pollute prototypes and only answers this machine", () => {
  it("refuses __proto__, constructor and prototype keys with 400; every route keeps working", async () => {
    for (const query of ["__proto__[toString]=x", "__proto__[phone]=X", "constructor[prototype][phone]=X", "a[__proto__][b]=1", "metadata[prototype]=1"]) {
      const res = await request(t.app).get(`/__offline-stripe/v1/payment_intents/pi_x?${query}`);
      expect(res.status, query).toBe(400);
      expect(res.body.error.message).toMatch(/^Invalid parameter name/);
    }
    const post = await request(t.app).post("/__offline-stripe/v1/payment_intents/pi_x/confirm").type("form").send("__proto__[toString]=x");
    expect(post.status).toBe(400);
    expect(({} as Record<string, unknown>).phone).toBeUndefined();
    expect(typeof Object.prototype.toString).toBe("function");
    await request(t.app).get("/healthz").expect(200);
    // A contact message without a phone stores none (the probe's X came through the polluted prototype).
    const v = await visitor(t.app);
    await v.post("/api/contact").send({ name: "Sam Rivera", email: "sam@example.com", subject: "Hello", message: "No phone number here." }).expect(201);
    const row = await t.db("contact_messages").orderBy("id", "desc").first();
    expect(row.phone).toBeNull();
  });

  it("answers 404 to another machine, and is not mounted in production", async () => {
    const proxied = await createTestApp({ TRUST_PROXY_HOPS: "1" });
    try {
      const remote = await request(proxied.app).get("/__offline-stripe/stripe.js").set("x-forwarded-for", "203.0.113.9");
      expect(remote.status).toBe(404);
      const local = await request(proxied.app).get("/__offline-stripe/v1/payment_intents/pi_x").set("x-forwarded-for", "127.0.0.1");
      expect(local.status).toBe(401);
    } finally {
      await proxied.close();
    }
    const production = createApp({ ...t, config: { ...t.config, isProduction: true, publicUrl: "https://shop.example" } });
    expect((await request(production).get("/__offline-stripe/v1/payment_intents/pi_x").set("accept", "application/json")).status).toBe(404);
  });
});

describe("2. public cacheable answers carry no cookie", () => {
  it("the product APIs answer Cache-Control public without Set-Cookie, for new and returning visitors", async () => {
    for (const url of ["/api/products/retail", "/api/shop/products/handle/heavyweight-tee"]) {
      const anonymous = await request(t.app).get(url);
      expect(anonymous.headers["cache-control"], url).toMatch(/public/);
      expect(anonymous.headers["set-cookie"], url).toBeUndefined();
      const v = await visitor(t.app);
      const returning = await v.get(url);
      expect(returning.headers["cache-control"]).toMatch(/public/);
      expect(returning.headers["set-cookie"]).toBeUndefined();
    }
  });

  it("holds whatever a route does with the session: a public answer that creates one still sets no cookie", async () => {
    const app = express();
    app.use(noCookieOnPublicResponses);
    app.use(session({ secret: "test-secret", resave: false, saveUninitialized: true }));
    app.get("/public", (req, res) => {
      (req.session as unknown as Record<string, unknown>).seen = true;
      res.set("cache-control", "public, max-age=60").json({ ok: true });
    });
    app.get("/private", (_req, res) => res.json({ ok: true }));
    expect((await request(app).get("/public")).headers["set-cookie"]).toBeUndefined();
    expect((await request(app).get("/private")).headers["set-cookie"]).toBeDefined();
  });
});

describe("5 and 6. malformed requests keep their 4xx, are logged without stack or body", () => {
  it("answers charset, encoding, too many parameters, UTF-16 forms and missing bundles with 415, 413 and 404", async () => {
    const v = await visitor(t.app);
    const bogus = await v.post("/api/contact").set("content-type", "application/json; charset=bogus").send('{"a":1}');
    expect(bogus.status).toBe(415);
    expect(bogus.body.error).toBe("The request's content type, character set or encoding is not supported.");
    const encoding = await v.post("/api/contact").set("content-type", "application/json").set("content-encoding", "x-foo").send("{}");
    expect(encoding.status).toBe(415);
    // A form post gets the HTML error page, not JSON.
    const many = await v.agent.post("/contact").set("accept", "text/html").type("form").send(Array.from({ length: 501 }, (_, i) => `p${i}=1`).join("&"));
    expect(many.status).toBe(413);
    expect(many.headers["content-type"]).toMatch(/text\/html/);
    expect(textOf(many.text)).toContain("The request is too large.");
    const utf16 = await v.agent.post("/contact").set("accept", "text/html").set("content-type", "application/x-www-form-urlencoded; charset=utf-16").send("name=x");
    expect(utf16.status).toBe(415);
    expect(utf16.headers["content-type"]).toMatch(/text\/html/);
    const chunk = await request(t.app).get("/build/chunk-FROMLASTDEPLOY.js");
    expect(chunk.status).toBe(404);
    expect(chunk.body.error).toBe("This file does not exist. Reload the page to get the current version.");
    await request(t.app).get("/healthz").expect(200);
  });

  it("never logs a request body, a token, an e-mail address or a card number, nor a stack for a 4xx", async () => {
    logLines.length = 0;
    const v = await visitor(t.app);
    const secrets = { email: "jordan.secret@example.com", card: "4242424242424242", token: v.token };
    const broken = `{"email":"${secrets.email}","card":"${secrets.card}","_csrf":"${secrets.token}",`;
    expect((await v.post("/api/contact").set("content-type", "application/json").send(broken)).status).toBe(400);
    expect((await v.agent.post("/contact").set("content-type", "application/json; charset=bogus").send(broken)).status).toBe(415);
    expect((await v.agent.post("/contact").type("form").send(`email=${secrets.email}&card=${secrets.card}&${"x=1&".repeat(600)}`)).status).toBe(413);
    expect((await request(t.app).get("/__test/boom")).status).toBe(500);
    await request(t.app).get(`/__offline-stripe/v1/payment_intents/pi_x?key=pk_test_x&client_secret=pi_x_secret_${secrets.token}`);
    const all = logLines.join("\n");
    for (const secret of Object.values(secrets)) expect(all).not.toContain(secret);
    const refusals = logs().filter((l) => typeof l.status === "number" && (l.status) < 500);
    expect(refusals.length).toBeGreaterThanOrEqual(3);
    for (const line of refusals) {
      expect(line.level).toBeLessThanOrEqual(40);
      expect(JSON.stringify(line)).not.toMatch(/stack|\bat .+\(/);
    }
    // A 500 keeps its stack for the developers, without any body.
    const failed = logs().find((l) => l.msg === "request failed");
    expect(JSON.stringify(failed)).toContain("secret internal detail");
    expect((failed!.err as { stack?: string }).stack).toBeDefined();
  });
});

describe("8. links never come from an unvalidated Host or protocol", () => {
  it("ignores X-Forwarded-Proto without trusted proxies and refuses a Host that is not a host", async () => {
    const forged = await request(t.app).get("/shop/heavyweight-tee").set("host", "evil.example").set("x-forwarded-proto", "javascript");
    const urls = [...forged.text.matchAll(/(?:og:url" content="|rel="canonical" href=")([^"]+)/g)].map((m) => m[1]!);
    expect(urls).toHaveLength(2);
    for (const url of urls) expect(url).toMatch(/^http:\/\//);
    // A well-formed Host is used on a development machine (production requires PUBLIC_URL); the protocol never comes from the header.
    expect(forged.text).toContain("http://evil.example/shop/heavyweight-tee");
    expect(forged.text).not.toMatch(/javascript:/i);
    const junk = await request(t.app).get("/about").set("host", 'evil.example/"><x y="');
    expect(junk.text).toContain('<link rel="canonical" href="http://localhost/about"/>');
  });

  it("uses PUBLIC_URL whatever the request says, even behind a trusted proxy", async () => {
    const app = createApp({ ...t, config: { ...t.config, publicUrl: "https://shop.example", trustProxyHops: 1 } });
    const res = await request(app).get("/shop/heavyweight-tee").set("host", "evil.example").set("x-forwarded-proto", "javascript").set("x-forwarded-host", "evil.example");
    expect(res.text).toContain('<meta property="og:url" content="https://shop.example/shop/heavyweight-tee"/>');
    expect(res.text).not.toContain("evil.example");
    expect(res.text).not.toContain("javascript:");
  });
});

describe("10. dirty text is refused, clean text normalised", () => {
  const base = { name: "Sam Rivera", email: "sam@example.com", phone: "205-555-0100", subject: "Sizes", message: "Which sizes are left?" };

  it("refuses NUL, CRLF, bidi overrides and invisible-only text in single-line fields, storing nothing", async () => {
    const v = await visitor(t.app);
    const before = await t.db("contact_messages").count({ n: "*" }).first();
    const cases: [Record<string, string>, string][] = [
      [{ name: "Sam\u0000Rivera" }, TEXT_MESSAGES.control],
      [{ subject: "Hi\r\nEmail: forged@evil.example" }, TEXT_MESSAGES.control],
      [{ phone: "205\n555" }, TEXT_MESSAGES.control],
      [{ name: "Sam \u202eareviR" }, TEXT_MESSAGES.format],
      [{ name: "\u200b\u200b\u200b" }, TEXT_MESSAGES.invisible],
      [{ subject: "\u3164\u3164" }, TEXT_MESSAGES.invisible],
      [{ message: "Ten chars and a NUL \u0000 here" }, TEXT_MESSAGES.control],
      [{ message: "\u200b\u200b\u200b\u200b\u200b\u200b\u200b\u200b\u200b\u200b\u200b" }, TEXT_MESSAGES.invisible],
    ];
    for (const [change, message] of cases) {
      const res = await v.post("/api/contact").send({ ...base, ...change });
      expect(res.status, JSON.stringify(change)).toBe(400);
      expect(res.body.error, JSON.stringify(change)).toBe(message);
    }
    const form = await v.form("/contact", { ...base, name: "Sam\r\nRivera" });
    expect(form.status).toBe(400);
    expect(textOf(form.text)).toContain(TEXT_MESSAGES.control);
    expect(await t.db("contact_messages").count({ n: "*" }).first()).toEqual(before);
  });

  it("stores NFC text and keeps line breaks in the message only", async () => {
    const v = await visitor(t.app);
    const res = await v.post("/api/contact").send({ ...base, name: "Jose\u0301 Nin\u0303o", message: "Line one\r\nLine two\n\nLine four" });
    expect(res.status).toBe(201);
    const row = await t.db("contact_messages").where({ id: res.body.id }).first();
    expect(row.name).toBe("José Niño");
    expect(row.name).toBe(row.name.normalize("NFC"));
    expect(row.message).toBe("Line one\nLine two\n\nLine four");
  });

  it("accepts quantities as integers or digit strings only; an empty quantity does not remove a line", async () => {
    const { v, lineId } = await shopperWithOneLine(t.app);
    for (const quantity of [[5], true, "0x10", " 7 ", "", "1e1", 2.5, null, {}]) {
      const res = await v.post("/api/cart/add").send({ shopifyProductId: "1002", shopifyVariantId: "2101", quantity });
      expect(res.status, JSON.stringify(quantity)).toBe(400);
      const patch = await v.patch(`/api/cart/items/${lineId}`).send({ quantity });
      expect(patch.status, JSON.stringify(quantity)).toBe(400);
    }
    await v.form(`/cart/items/${lineId}/update`, { quantity: "" }).expect(303);
    await v.form(`/cart/items/${lineId}/update`, { quantity: " 3 " }).expect(303);
    const cart = (await v.get("/api/cart")).body as { cartItems: { quantity: number }[] };
    expect(cart.cartItems.map((i) => i.quantity)).toEqual([1]);
    expect((await v.post("/api/cart/add").send({ shopifyProductId: "1002", shopifyVariantId: "2101", quantity: "2" })).status).toBe(200);
  });
});

describe("11. a form post redirects only to a path on this site", () => {
  it("refuses a Referer path starting with // or /\\", async () => {
    const v = await visitor(t.app);
    for (const referer of ["http://shop.test//evil.example/x", "http://shop.test/\\evil.example/x", "http://shop.test/\\/evil.example/x"]) {
      const res = await v.form("/cart/add", { productId: "1002", variantId: "2101", quantity: "1" }).set("host", "shop.test").set("referer", referer);
      expect(res.status).toBe(303);
      expect(res.headers.location, referer).toMatch(/^\/(?![/\\])/);
      expect(res.headers.location).not.toContain("evil.example");
    }
    const ok = await v.form("/cart/add", { productId: "1002", variantId: "2101", quantity: "1" }).set("host", "shop.test").set("referer", "http://shop.test/shop/snapback-cap?Color=Black");
    expect(ok.headers.location).toBe("/shop/snapback-cap?Color=Black");
  });
});

describe("12. small ones", () => {
  it("sends X-Frame-Options DENY with frame-ancestors 'none'", async () => {
    const res = await request(t.app).get("/");
    expect(res.headers["x-frame-options"]).toBe("DENY");
    expect(res.headers["content-security-policy"]).toContain("frame-ancestors 'none'");
  });

  it("answers traversal under /build with 400 and a fitting message", async () => {
    for (const url of ["/build/..%2f..%2fpackage.json", "/build/%2e%2e/%2e%2e/package.json", "/build/..%5c..%5cpackage.json", "/build/%00.js"]) {
      const res = await request(t.app).get(url);
      expect([400, 404], url).toContain(res.status);
      expect(res.body.error, url).toMatch(/^(This file path is not valid\.|This file does not exist\.)/);
      expect(res.text).not.toContain("Cross-site");
      expect(res.text).not.toContain('"name"');
    }
  });

  it("serves source maps on a development machine only", async () => {
    const map = fs.readdirSync(path.join(publicDirectory, "build")).find((f) => f.endsWith(".map"));
    if (!map) return; // a production build writes none
    expect((await request(t.app).get(`/build/${map}`)).status).toBe(200);
    const production = createApp({ ...t, config: { ...t.config, isProduction: true, publicUrl: "https://shop.example" } });
    expect((await request(production).get(`/build/${map}`)).status).toBe(404);
  });
});
