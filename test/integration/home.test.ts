import { afterAll, beforeAll, describe, expect, it } from "vitest";
import request from "supertest";
import { createTestApp, type TestApp } from "../support/app.ts";
import { textOf, visitor } from "../support/http.ts";
import { findEvent } from "../../src/events/repository.ts";
import { formatDollars, formatPrice } from "../../src/shared/money.ts";

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => {
  await t.close();
});

const subscribers = (email: string) => t.db("newsletter_subscribers").where({ email });

describe("home page", () => {
  it("shows every section of the spec, in order", async () => {
    const html = (await request(t.app).get("/").expect(200)).text;
    const marks = [
      'class="team-banner" href="#signup-portal"',
      'class="featured-athlete" href="/events/1"',
      ">Register as Individual</a>",
      ">Register as Team</a>",
      'id="promo-title"',
      "Summer 2027 Camps",
      'id="signup-portal"',
      "Choose Your Registration",
      'id="nutrition-title"',
      'id="newsletter"',
    ];
    const positions = marks.map((m) => html.indexOf(m));
    for (const [i, p] of positions.entries()) expect(p, marks[i]).toBeGreaterThan(-1);
    expect([...positions].sort((a, b) => a - b)).toEqual(positions);
    expect(html).toContain('<a class="btn btn-primary" href="#signup-portal">Register as Individual</a>');
    expect(html).toMatch(/<a class="btn btn-secondary" href="\/team-events" data-team-modal-open="true">Register as Team<\/a>/);
    expect(html).toContain('<a class="summer-poster" href="/events">');
    expect(html).toContain('<a class="btn btn-primary" href="/events">Browse Events</a>');
    expect(html).toContain('href="https://www.fuellabnutrition.com/" target="_blank" rel="noopener noreferrer"');
    const newsletterForm = /<form[^>]*aria-label="Newsletter sign-up"[^>]*>/.exec(html)?.[0] ?? "";
    expect(newsletterForm).toContain('action="/newsletter"');
    expect(html).toContain('type="email"');
    expect(textOf(html)).toContain("Subscribe");
  });

  it("reads the promo and team prices, dates and places from the event data", async () => {
    const [e1, e2, e3] = await Promise.all([1, 2, 3].map((id) => findEvent(t.db, id)));
    const text = textOf((await request(t.app).get("/").expect(200)).text);
    // National Champ Camp promo: struck-through 349, now 299, SAVE $50, day options 119 / 238 / 299.
    expect(e2!.originalPriceCents).toBe(34900);
    expect(text).toContain(`${formatDollars(e2!.originalPriceCents!)} ${formatDollars(e2!.fullPriceCents)} SAVE $50`);
    expect(text).toContain("$349 $299 SAVE $50");
    expect(text).toContain("1 Day $119.00 2 Days $238.00 3 Days $299.00");
    expect(text).toContain(`${e2!.dateText} · ${e2!.location}`);
    expect(text).toContain(`${e1!.dateText} · ${e1!.location}`);
    expect(text).toContain("Teams of 5+ pay $199 per athlete: save up to $100 each.");
    // The modal's three events with date, place, price, team price and savings.
    for (const e of [e1!, e2!, e3!]) {
      expect(text).toContain(`${e.title} ${e.dateText} · ${e.location} Individual ${formatPrice(e.regularPriceCents)} Team price ${formatPrice(e.teamPriceCents)} per athlete Save ${formatPrice(e.regularPriceCents - e.teamPriceCents)} per athlete`);
    }
    expect(text).toContain("Minimum 5 athletes for team pricing.");
    expect(text).toContain("All team members are registered under one payment.");
    expect(text).toContain("The team coach is the primary contact for the registration.");
  });

  it("follows a price change in the data without retyping it", async () => {
    await t.db("event_packages").where({ event_id: 2, code: "1day" }).update({ price_cents: 12500 });
    try {
      expect(textOf((await request(t.app).get("/")).text)).toContain("1 Day $125.00");
    } finally {
      await t.db("event_packages").where({ event_id: 2, code: "1day" }).update({ price_cents: 11900 });
    }
  });

  it("places the team modal and the newsletter form as islands", async () => {
    const html = (await request(t.app).get("/")).text;
    expect(html).toContain('data-widget="TeamEventModal"');
    expect(html).toContain('data-widget="NewsletterForm"');
    for (const id of [1, 2, 3]) expect(html).toContain(`href="/team-registration?eventId=${id}"`);
    expect(html).not.toContain('href="/team-registration?eventId=4"');
  });
});

describe("/team-events (Register as Team without JavaScript)", () => {
  it("offers the same three events with the team notes, each leading to /team-registration", async () => {
    const res = await request(t.app).get("/team-events").expect(200);
    const text = textOf(res.text);
    expect(text).toContain("Choose Your Team Event");
    for (const id of [1, 2, 3]) expect(res.text).toContain(`<a class="team-choice" href="/team-registration?eventId=${id}"`);
    expect(text).toContain("Birmingham Slam Camp");
    expect(text).toContain("National Champ Camp");
    expect(text).toContain("Texas Recruiting Clinic");
    expect(text).toContain("Minimum 5 athletes for team pricing.");
  });
});

describe("newsletter", () => {
  it("subscribes through the API, once per address, and tells the brand once", async () => {
    const v = await visitor(t.app, "/");
    const first = await v.post("/api/newsletter").send({ email: "Fan@Example.com" }).expect(201);
    expect(first.body).toMatchObject({ success: true, subscribed: true });
    const again = await v.post("/api/newsletter").send({ email: "fan@example.com " }).expect(200);
    expect(again.body).toMatchObject({ success: true, subscribed: true });
    const rows = await subscribers("fan@example.com");
    expect(rows).toHaveLength(1);
    expect(rows[0].source).toBe("home");
    expect(await t.db("email_outbox").where({ kind: "newsletter_subscriber", reference: `newsletter_subscriber:${rows[0].id}` })).toHaveLength(1);
  });

  it("keeps one row when the same address signs up at the same moment twice", async () => {
    const v = await visitor(t.app, "/");
    const results = await Promise.all([1, 2, 3].map(() => v.post("/api/newsletter").send({ email: "race@example.com" })));
    expect(results.every((r) => r.status === 200 || r.status === 201)).toBe(true);
    expect(await subscribers("race@example.com")).toHaveLength(1);
  });

  it("refuses an invalid address with a clear message and stores nothing", async () => {
    const v = await visitor(t.app, "/");
    const res = await v.post("/api/newsletter").send({ email: "nope" }).expect(400);
    expect(res.body.error).toBe("Please enter a valid email address");
    const page = await v.form("/newsletter", { email: "nope" }).expect(400);
    expect(textOf(page.text)).toContain("Please enter a valid email address");
    expect(page.text).toContain('value="nope"');
    expect(await subscribers("nope")).toHaveLength(0);
  });

  it("works as a plain form post and confirms on the next page", async () => {
    const v = await visitor(t.app, "/");
    const res = await v.form("/newsletter", { email: "form-fan@example.com" }).expect(303);
    expect(res.headers.location).toBe("/#newsletter");
    expect(await subscribers("form-fan@example.com")).toHaveLength(1);
    const home = textOf((await v.get("/")).text);
    expect(home).toContain("You're on the list!");
    await v.form("/newsletter", { email: "form-fan@example.com" }).expect(303);
    expect(await subscribers("form-fan@example.com")).toHaveLength(1);
  });
});
