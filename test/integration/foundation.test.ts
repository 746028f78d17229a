import { afterAll, beforeAll, describe, expect, it } from "vitest";
import request from "supertest";
import { createTestApp, type TestApp } from "../support/app.ts";
import { executableScripts, textOf, visitor } from "../support/http.ts";

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => {
  await t.close();
});

describe("page shell", () => {
  it("renders the header, footer and every link of the spec", async () => {
    const res = await request(t.app).get("/").expect(200);
    const html = res.text;
    for (const [label, href] of [["Home", "/"], ["Events", "/events"], ["Shop", "/shop"], ["Custom Apparel", "/custom-apparel"], ["Contact", "/contact"]]) {
      expect(html).toContain(`<a href="${href}"`);
      expect(html).toContain(`>${label}</a>`);
    }
    expect(html).toMatch(/<a class="cart-link" href="\/cart" aria-label="Cart, 0 items"/);
    expect(html).toContain('id="mobile-menu"');
    expect(html).toContain('<a href="/about">About</a>');
    for (const [n, name] of [[1, "Birmingham Slam Camp"], [2, "National Champ Camp"], [3, "Texas Recruiting Clinic"], [4, "Panther Train Tour"]]) {
      expect(html).toContain(`<a href="/events/${n}">${name}</a>`);
    }
    const text = textOf(html);
    expect(text).toContain("team@ironsidewrestling.com");
    expect(text).toContain("(205) 555-0142");
    expect(text).toContain("Birmingham, AL");
    expect(html).toMatch(/aria-label="Ironside Wrestling on Instagram"/);
    expect(html).toMatch(/<title>[^<]+ \| Ironside<\/title>/);
    expect(html).toMatch(/<meta name="description" content="[^"]+"/);
    expect(html).toContain('<link rel="icon" href="/favicon.svg"');
  });

  it("serves /about as a real page with its own title", async () => {
    const res = await request(t.app).get("/about").expect(200);
    expect(res.text).toContain("<title>About | Ironside</title>");
    expect(textOf(res.text)).toContain("Built on the mat in Birmingham");
  });

  it("answers unknown paths with the not-found page and a link home", async () => {
    const res = await request(t.app).get("/no-such-page").expect(404);
    expect(textOf(res.text)).toContain("The page you are looking for doesn't exist or has been moved.");
    expect(res.text).toContain('href="/">Return to Home</a>');
    expect(res.text).toContain("<title>Page Not Found | Ironside</title>");
    const api = await request(t.app).get("/api/no-such-thing").expect(404);
    expect(api.body).toEqual({ error: "Not found" });
  });

  it("shows a 500 page without the error's details", async () => {
    const res = await request(t.app).get("/__test/boom").expect(500);
    expect(textOf(res.text)).toContain("An unexpected error occurred");
    expect(res.text).not.toContain("secret internal detail");
    expect(res.text).not.toMatch(/at .*\.ts:\d+/);
  });

  it("serves the favicon and pictures with an hour's caching, and a missing picture is a 404", async () => {
    for (const path of ["/favicon.svg", "/images/events/recruiting-clinic.svg"]) {
      const res = await request(t.app).get(path).expect(200);
      expect(res.headers["cache-control"]).toBe("public, max-age=3600");
    }
    await request(t.app).get("/images/nothing-here.svg").expect(404);
  });

  it("ships no executable script on a page without widgets, and the boot module where a widget is", async () => {
    const plain = await request(t.app).get("/about");
    expect(executableScripts(plain.text)).toEqual([]);
    const withWidget = await request(t.app).get("/__test/widget");
    const scripts = executableScripts(withWidget.text);
    expect(scripts).toHaveLength(1);
    expect(scripts[0]).toMatch(/^ type="module" src="\/build\/boot(-\w+)?\.js"$/);
    expect(withWidget.text).toContain('<div data-widget="TestCounter" id="w1">');
    expect(withWidget.text).toContain('<script type="application/json" id="w1-props">{"start":3,"label":"Counter"}</script>');
    expect(withWidget.text).toContain('data-testid="count">3</output>');
  });
});

describe("security", () => {
  it("sets helmet's headers and hides the framework", async () => {
    const res = await request(t.app).get("/");
    expect(res.headers["x-powered-by"]).toBeUndefined();
    expect(res.headers["content-security-policy"]).toContain("default-src 'self'");
    expect(res.headers["content-security-policy"]).toContain("frame-ancestors 'none'");
    expect(res.headers["x-content-type-options"]).toBe("nosniff");
    const cookie = String(res.headers["set-cookie"]);
    expect(cookie).toContain("HttpOnly");
    expect(cookie).toContain("SameSite=Lax");
  });

  it("refuses a POST without a CSRF token with 403 and a clear message", async () => {
    const res = await request(t.app).post("/__test/echo").set("accept", "application/json").send({ a: 1 }).expect(403);
    expect(res.body.error).toBe("Your form has expired or did not come from this site. Please reload the page and try again.");
    const page = await request(t.app).post("/__test/form").type("form").send({ name: "Jo" }).set("accept", "text/html").expect(403);
    expect(textOf(page.text)).toContain("Form expired");
  });

  it("refuses a POST from a foreign origin even with a valid token", async () => {
    const v = await visitor(t.app);
    await v.post("/__test/echo").set("origin", "https://evil.example").send({ a: 1 }).expect(403);
    await v.post("/__test/echo").set("sec-fetch-site", "cross-site").send({ a: 1 }).expect(403);
    const ok = await v.post("/__test/echo").set("sec-fetch-site", "same-origin").send({ a: 1 }).expect(200);
    expect(ok.body).toEqual({ ok: true, body: { a: 1 } });
  });

  it("answers malformed JSON with 400", async () => {
    const v = await visitor(t.app);
    const res = await v.post("/__test/echo").set("content-type", "application/json").send("{oops").expect(400);
    expect(res.body.error).toBe("The request body is not valid JSON.");
  });
});

describe("form helper", () => {
  it("re-renders with the field error and the kept value, without JavaScript", async () => {
    const v = await visitor(t.app, "/__test/widget");
    const res = await v.form("/__test/form", { name: "J" }).expect(400);
    expect(textOf(res.text)).toContain("Name must be at least 2 characters");
    expect(res.text).toMatch(/name="name"[^>]*value="J"/);
    expect(res.text).toContain('aria-invalid="true"');
  });

  it("redirects with 303 on success and shows one toast on the next page only", async () => {
    const v = await visitor(t.app, "/__test/widget");
    const res = await v.form("/__test/form", { name: "Jordan" }).expect(303);
    expect(res.headers.location).toBe("/__test/widget");
    const next = await v.get("/__test/widget");
    expect(textOf(next.text)).toContain("Hello Jordan");
    const after = await v.get("/__test/widget");
    expect(textOf(after.text)).not.toContain("Hello Jordan");
  });
});

describe("health", () => {
  it("says the process is alive and its services answer", async () => {
    await request(t.app).get("/healthz").expect(200, { status: "ok" });
    const ready = await request(t.app).get("/readyz").expect(200);
    expect(ready.body.checks.database).toBe("ok");
    if (t.redis) expect(ready.body.checks.redis).toBe("ok");
  });
});

describe("sessions", () => {
  it("keeps the session in the configured store once there is something to keep", async () => {
    const v = await visitor(t.app);
    await v.post("/api/cart/add").send({ shopifyProductId: "1001", shopifyVariantId: "2001", quantity: 1 }).expect(200);
    const sid = decodeURIComponent(String(v.agent.jar.getCookie("sid", { domain: "127.0.0.1", path: "/", secure: false, script: false })?.value ?? ""));
    expect(sid).toMatch(/^s:/);
    if (t.redis) {
      const id = sid.slice(2).split(".")[0];
      const stored = await t.redis.get(`${t.config.redis!.prefix}sess:${id}`);
      expect(JSON.parse(stored!).cart.items).toHaveLength(1);
    }
  });
});
