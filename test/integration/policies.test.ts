import { afterAll, beforeAll, describe, expect, it } from "vitest";
import request from "supertest";
import { createTestApp, type TestApp } from "../support/app.ts";
import { textOf } from "../support/http.ts";
import { loadConfig } from "../../src/config.ts";

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => {
  await t.close();
});

describe("policy pages", () => {
  it("links the four policy pages from the footer of every page, and /about from both menus", async () => {
    const html = (await request(t.app).get("/shop").expect(200)).text;
    const footer = html.slice(html.indexOf('<footer'));
    for (const [label, href] of [["Shipping", "/shipping"], ["Returns", "/returns"], ["Privacy", "/privacy"], ["Terms", "/terms"]]) {
      expect(footer).toContain(`<a href="${href}">${label}</a>`);
    }
    const desktop = /<nav class="nav-desktop"[\s\S]*?<\/nav>/.exec(html)![0];
    const mobile = /<nav id="mobile-menu"[\s\S]*?<\/nav>/.exec(html)![0];
    expect(desktop).toContain('<a href="/about">About</a>');
    expect(mobile).toContain('<a href="/about">About</a>');
  });

  it("/shipping says the spec's shipping rules and the configured flat rate", async () => {
    const res = await request(t.app).get("/shipping").expect(200);
    expect(res.text).toContain("<title>Shipping Policy | Ironside</title>");
    const text = textOf(res.text);
    expect(text).toContain("Orders over $75 (before shipping) ship free.");
    expect(text).toContain(`a flat ${"$" + (t.config.shippingFlatRateCents / 100).toFixed(2)} for standard shipping`);
    expect(text).toContain("arrive in 2-3 business days");
    expect(text).toContain("3-5 business days in the continental US");
    expect(text).toContain("Custom team orders take 20-60 days");
  });

  it("SHIPPING_FLAT_RATE_CENTS defaults to 795 and accepts only whole cents", () => {
    expect(loadConfig({}).shippingFlatRateCents).toBe(795);
    expect(loadConfig({ SHIPPING_FLAT_RATE_CENTS: "1200" }).shippingFlatRateCents).toBe(1200);
    expect(() => loadConfig({ SHIPPING_FLAT_RATE_CENTS: "7.5" })).toThrow(/SHIPPING_FLAT_RATE_CENTS/);
    expect(() => loadConfig({ SHIPPING_FLAT_RATE_CENTS: "-1" })).toThrow(/SHIPPING_FLAT_RATE_CENTS/);
  });

  it("/returns says 30 days, the condition, custom orders final sale and the support hours", async () => {
    const text = textOf((await request(t.app).get("/returns").expect(200)).text);
    expect(text).toContain("You have 30 days from delivery to return unworn, unwashed items in their original packaging.");
    expect(text).toContain("custom team orders are final sale unless defective");
    expect(text).toContain("Monday to Friday, 9am to 5pm EST");
  });

  it("/privacy lists what the site stores, how long, and who receives e-mails", async () => {
    const text = textOf((await request(t.app).get("/privacy").expect(200)).text);
    for (const s of ["14 days after your last visit", "7 years after the order", "2 years after you wrote", "until you ask us to remove it", "90 days after it was sent", "Stripe", "Shopify", t.config.mail.brandInbox]) {
      expect(text).toContain(s);
    }
  });

  it("/terms links the other policies", async () => {
    const html = (await request(t.app).get("/terms").expect(200)).text;
    expect(html).toContain('<a href="/shipping">shipping policy</a>');
    expect(html).toContain('<a href="/returns">returns policy</a>');
    expect(html).toContain('<a href="/privacy">privacy policy</a>');
  });

  it("the contact FAQ links to the shipping, returns and privacy pages", async () => {
    const html = (await request(t.app).get("/contact").expect(200)).text;
    const faq = html.slice(html.indexOf('id="faq-title"'));
    for (const href of ["/shipping", "/returns", "/privacy"]) expect(faq).toContain(`href="${href}"`);
  });
});
