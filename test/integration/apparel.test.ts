import fs from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import request from "supertest";
import { createTestApp, type TestApp } from "../support/app.ts";
import { textOf, visitor } from "../support/http.ts";
import { PORTFOLIO } from "../../src/shared/customApparel/content.ts";
import { loadAssets, publicDirectory } from "../../src/http/assets.ts";

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => {
  await t.close();
});

const quote = { organization: "Gulf Coast Gators", contactName: "Coach Moreau", email: "moreau@example.com", phone: "251-555-0199" };
const countQuotes = async () => Number(((await t.db("quote_requests").count({ n: "*" }).first()) as { n: number | string }).n);

describe("/custom-apparel", () => {
  it("shows every section of the spec", async () => {
    const res = await request(t.app).get("/custom-apparel").expect(200);
    const html = res.text;
    const text = textOf(html);
    expect(html).toContain("<title>Custom Team Apparel | Ironside</title>");
    expect(html).toContain('<a class="btn btn-primary" href="#contact-form">Request Custom Quote</a>');
    for (const name of ["Competition Gear", "Team Packages", "Special Editions"]) expect(html).toContain(`<h3>${name}</h3>`);
    for (const step of ["Consultation", "Design", "Refinement", "Production"]) expect(html).toContain(`<h3>${step}</h3>`);
    expect(html.match(/class="portfolio-item"/g)).toHaveLength(12);
    expect(html.match(/>Request Similar Design<\/a>/g)).toHaveLength(12);
    expect(text).toContain("Featured Teams");
    expect(text).toContain("Rashguard Colorways");
    for (const c of ["black", "blue", "brown", "purple", "white", "classic"]) expect(html).toContain(`id="colorway-${c}"`);
    expect(text).toContain("Four-way stretch performance fabric");
    expect(text).toContain("School Apparel Packages");
    expect(html.match(/class="card school-card"/g)).toHaveLength(4);
    expect(text).toContain("Complete Custom Apparel Sets");
    expect(html.match(/class="apparel-set card"/g)).toHaveLength(4);
    expect(html).toContain('data-widget="PortfolioSets"');
    expect(html).toContain('id="contact-form"');
    for (const need of ["Competition Singlets", "Rashguards", "Team Warmups", "Casual Team Apparel", "Complete Team Package", "Other"]) {
      expect(html).toContain(`value="${need}"`);
    }
    for (const q of ["1-10", "11-25", "26-50", "51-100", "100+"]) expect(html).toContain(`<option value="${q}">${q}</option>`);
  });

  it("shows every carousel item in the page itself (no JavaScript needed to see them)", async () => {
    const html = (await request(t.app).get("/custom-apparel")).text;
    for (const img of ["school-vulcan-prep-bag", "set-tournament-shorts", "set-travel-cap", "portfolio-coaches-quarter-zip"]) {
      expect(html).toContain(`src="${loadAssets().image(`/images/apparel/${img}.svg`)}"`);
    }
    expect(html).not.toMatch(/<article[^>]*class="apparel-set card"[^>]*hidden/);
  });

  it("serves our own picture for every showcase image", async () => {
    const html = (await request(t.app).get("/custom-apparel")).text;
    // Our pictures' paths, or their content-hashed copies in the build when there is one.
    const images = new Set([...html.matchAll(/<img[^>]* src="(\/(?:images|build)\/[^"]+)"/g)].map((m) => m[1]!));
    expect(images.size).toBeGreaterThan(40);
    for (const img of images) expect(fs.existsSync(`${publicDirectory}${img}`), img).toBe(true);
    const svg = await request(t.app).get("/images/apparel/rashguard-classic.svg").expect(200);
    expect(svg.headers["content-type"]).toContain("image/svg+xml");
  });

  it("names the design in the quote form after 'Request Similar Design'", async () => {
    const design = PORTFOLIO.find((p) => p.slug === "senior-night-singlet")!;
    const html = (await request(t.app).get(`/custom-apparel?design=${design.slug}`)).text;
    expect(textOf(html)).toContain(`Similar to: ${design.name}`);
    expect(html).toContain(`name="referenceDesign" value="${design.name}"`);
    const unknown = (await request(t.app).get("/custom-apparel?design=nope")).text;
    expect(unknown).not.toContain('name="referenceDesign"');
  });
});

describe("quote requests", () => {
  it("refuses a request without the fields the brand needs to answer, 400, nothing stored", async () => {
    const v = await visitor(t.app, "/custom-apparel");
    const before = await countQuotes();
    const res = await v.post("/api/quote-requests").send({ organization: "", contactName: "", email: "x" }).expect(400);
    expect(res.body.fieldErrors).toMatchObject({
      organization: "Please enter your team or organization name",
      contactName: "Please enter a contact name",
      email: "Please enter a valid email address",
    });
    const page = await v.form("/custom-apparel/quote", { ...quote, email: "bad", apparelNeeds: ["Rashguards", "Other"] }).expect(400);
    expect(textOf(page.text)).toContain("Please enter a valid email address");
    expect(page.text).toContain('value="Gulf Coast Gators"');
    expect(page.text).toMatch(/value="Rashguards"[^>]*checked|checked=""[^>]*value="Rashguards"/);
    expect(await countQuotes()).toBe(before);
  });

  it("stores a JSON request and e-mails it to the brand", async () => {
    const v = await visitor(t.app, "/custom-apparel");
    const res = await v
      .post("/api/quote-requests")
      .send({ ...quote, apparelNeeds: ["Competition Singlets", "Team Warmups"], estimatedQuantity: "26-50", referenceDesign: "Senior Night Singlet", details: "State title singlets, need by February." })
      .expect(201);
    const row = await t.db("quote_requests").where({ id: res.body.id }).first();
    expect(row).toMatchObject({
      organization: "Gulf Coast Gators",
      contact_name: "Coach Moreau",
      email: "moreau@example.com",
      apparel_needs: "Competition Singlets, Team Warmups",
      estimated_quantity: "26-50",
      reference_design: "Senior Night Singlet",
    });
    const mail = await t.db("email_outbox").where({ reference: `quote_request:${row.id}` }).first();
    expect(mail).toMatchObject({ to_address: t.config.mail.brandInbox, reply_to: "moreau@example.com", subject: "Custom quote request: Gulf Coast Gators" });
    expect(mail.text_body).toContain("State title singlets, need by February.");
  });

  it("stores a plain form post and confirms it on the page", async () => {
    const v = await visitor(t.app, "/custom-apparel");
    const res = await v.form("/custom-apparel/quote", { ...quote, organization: "Vulcan Prep", apparelNeeds: "Rashguards", estimatedQuantity: "100+" }).expect(303);
    expect(res.headers.location).toBe("/custom-apparel#contact-form");
    const row = await t.db("quote_requests").where({ organization: "Vulcan Prep" }).first();
    expect(row).toMatchObject({ apparel_needs: "Rashguards", estimated_quantity: "100+", phone: "251-555-0199" });
    expect(await t.db("email_outbox").where({ reference: `quote_request:${row.id}` })).toHaveLength(1);
    const page = textOf((await v.get("/custom-apparel")).text);
    expect(page).toContain("Quote Request Received!");
  });
});
