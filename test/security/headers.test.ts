import { afterAll, beforeAll, describe, expect, it } from "vitest";
import request from "supertest";
import { createTestApp, type TestApp } from "../support/app.ts";
import { createApp } from "../../src/app.ts";
import { loadConfig } from "../../src/config.ts";

/** Security headers and cookie flags, on the development defaults and with a production configuration. */
let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => {
  await t?.close();
});

const productionConfig = () =>
  loadConfig({
    NODE_ENV: "production",
    SESSION_SECRET: "s".repeat(40),
    DATABASE_URL: "mysql://root@127.0.0.1:3306/unused",
    REDIS_URL: "redis://127.0.0.1:6379",
    PUBLIC_URL: "https://shop.example",
    TRUST_PROXY_HOPS: "1",
    STRIPE_SECRET_KEY: "sk_test_unused",
    STRIPE_PUBLISHABLE_KEY: "pk_test_unused",
    STRIPE_WEBHOOK_SECRET: "whsec_unused",
    SMTP_URL: "smtp://127.0.0.1:2525",
    LOG_LEVEL: "silent",
  });

describe("security headers and cookies", () => {
  it("sends a strict CSP, X-Frame-Options DENY, nosniff and no HSTS on a development machine", async () => {
    const res = await request(t.app).get("/contact").expect(200);
    const csp = res.headers["content-security-policy"] as string;
    for (const directive of ["default-src 'self'", "script-src 'self' https://js.stripe.com https://*.js.stripe.com", "frame-ancestors 'none'", "object-src 'none'", "form-action 'self'", "base-uri 'self'", "style-src 'self'"]) {
      expect(csp).toContain(directive);
    }
    expect(csp).not.toContain("unsafe-eval");
    expect(csp).not.toMatch(/script-src[^;]*unsafe-inline/);
    expect(res.headers["x-frame-options"]).toBe("DENY");
    expect(res.headers["x-content-type-options"]).toBe("nosniff");
    expect(res.headers["referrer-policy"]).toBe("strict-origin-when-cross-origin");
    expect(res.headers["strict-transport-security"]).toBeUndefined();
    expect(res.headers["x-powered-by"]).toBeUndefined();
    // Browsing sets only the visitor cookie the CSRF token is derived from (no session).
    const cookie = (res.headers["set-cookie"] as unknown as string[])[0]!;
    expect(cookie).toMatch(/^vid=/);
    expect(cookie).toMatch(/; HttpOnly/);
    expect(cookie).toMatch(/; SameSite=Lax/);
    expect(cookie).not.toMatch(/; Secure/);
  });

  it("adds HSTS and upgrade-insecure-requests in production, and Secure session cookies behind the HTTPS proxy", async () => {
    // The app with a production configuration, on the test database; sessions in memory (no Redis needed to read headers).
    const app = createApp({ ...t, redis: undefined, config: productionConfig() });
    const res = await request(app).get("/contact").set("x-forwarded-proto", "https").set("x-forwarded-for", "203.0.113.7").expect(200);
    expect(res.headers["strict-transport-security"]).toBe("max-age=31536000; includeSubDomains");
    expect(res.headers["content-security-policy"]).toContain("upgrade-insecure-requests");
    expect(res.headers["x-frame-options"]).toBe("DENY");
    const cookie = (res.headers["set-cookie"] as unknown as string[])[0]!;
    expect(cookie).toMatch(/^__Host-vid=[^;]+; Max-Age=\d+; Path=\/;/);
    expect(cookie).toMatch(/; Secure/);
    expect(cookie).toMatch(/; HttpOnly/);
    expect(cookie).toMatch(/; SameSite=Lax/);
    expect(res.text).toContain('<link rel="canonical" href="https://shop.example/contact"/>');
    // The session starts with the first cart line; its cookie is Secure too.
    const token = /<meta name="csrf-token" content="([^"]*)"/.exec(res.text)![1]!;
    const added = await request(app)
      .post("/api/cart/add")
      .set("x-forwarded-proto", "https")
      .set("x-forwarded-for", "203.0.113.7")
      .set("cookie", cookie.split(";")[0]!)
      .set("x-csrf-token", token)
      .send({ shopifyProductId: "1001", shopifyVariantId: "2001", quantity: 1 })
      .expect(200);
    const sid = (added.headers["set-cookie"] as unknown as string[]).find((c) => c.startsWith("sid="))!;
    expect(sid).toMatch(/; Secure/);
    expect(sid).toMatch(/; HttpOnly/);
    expect(sid).toMatch(/; SameSite=Lax/);
  });
});
