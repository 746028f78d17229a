import { afterAll, beforeAll, describe, expect, it } from "vitest";
import request from "supertest";
import { createTestApp, type TestApp } from "../support/app.ts";
import { executableScripts, textOf } from "../support/http.ts";
import { findEvent, listEvents } from "../../src/events/repository.ts";
import { loadAssets } from "../../src/http/assets.ts";
import { deadlineText } from "../../src/shared/texts.ts";

let t: TestApp;
/** Pages link a picture's content-hashed copy in the build when there is one. */
const picture = loadAssets().image;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => {
  await t.close();
});

const SEEDED = [
  { id: 1, title: "Birmingham Slam Camp", date: "June 19-21, 2027", location: "Birmingham, AL", price: "$249.00", category: "Camp" },
  { id: 2, title: "National Champ Camp", date: "June 5-7, 2027", location: "Las Vegas, NV", price: "$299.00", category: "Camp" },
  { id: 3, title: "Texas Recruiting Clinic", date: "June 12-13, 2027", location: "Arlington, TX", price: "$249.00", category: "Clinic" },
  { id: 4, title: "Panther Train Tour", date: "June 15-17, 2027", location: "Multiple locations", price: "$200.00", category: "Tour" },
];

function jsonLd(html: string): Record<string, any>[] {
  return [...html.matchAll(/<script type="application\/ld\+json">([\s\S]*?)<\/script>/g)].map((m) => JSON.parse(m[1]!));
}

/** The cards of /events, in page order, as visible text. */
function cards(html: string): string[] {
  return [...html.matchAll(/<article class="card event-card"[\s\S]*?<\/article>/g)].map((m) => textOf(m[0]));
}

describe("reference data", () => {
  it("seeds the four events with the resolved prices, packages, days and team price", async () => {
    const events = await listEvents(t.db);
    expect(events.map((e) => [e.id, e.title, e.dateText, e.location])).toEqual(SEEDED.map((s) => [s.id, s.title, s.date, s.location]));
    const byId = new Map(events.map((e) => [e.id, e]));
    const prices = (id: number) => byId.get(id)!.packages.map((p) => [p.code, p.priceCents, p.dayCount]);
    expect(prices(1)).toEqual([["full", 24900, 3], ["1day", 14900, 1]]);
    expect(prices(2)).toEqual([["full", 29900, 3], ["2day", 23800, 2], ["1day", 11900, 1]]);
    expect(prices(3)).toEqual([["full", 24900, 2], ["1day", 14900, 1]]);
    expect(prices(4)).toEqual([["full", 20000, 3], ["singleDay", 9900, 1]]);
    expect(events.map((e) => e.regularPriceCents)).toEqual([24900, 29900, 24900, 20000]);
    expect(events.every((e) => e.teamPriceCents === 19900 && e.capacity === 200 && e.ageGroup === "Ages 10+ through high school")).toBe(true);
    expect(events.map((e) => e.originalPriceCents)).toEqual([null, 34900, null, null]);
    expect(byId.get(2)!.days.map((d) => [d.date, d.label])).toEqual([
      ["2027-06-05", "Saturday, June 5"],
      ["2027-06-06", "Sunday, June 6"],
      ["2027-06-07", "Monday, June 7"],
    ]);
    expect(byId.get(3)!.days.map((d) => d.date)).toEqual(["2027-06-12", "2027-06-13"]);
    expect(byId.get(2)!.startDate.toISOString()).toBe("2027-06-05T00:00:00.000Z");
    expect(byId.get(2)!.endDate.toISOString()).toBe("2027-06-07T00:00:00.000Z");
    // Registration closes when the event starts (its first day's midnight where it is held) unless an operator sets
    // an earlier time; each seeded event has its city's zone and the age limits of 'Ages 10+ through high school'.
    expect(byId.get(1)!.registrationClosesAt.toISOString()).toBe("2027-06-19T05:00:00.000Z");
    expect(byId.get(2)!.registrationClosesAt.toISOString()).toBe("2027-06-05T07:00:00.000Z");
    expect([1, 2, 3, 4].map((id) => byId.get(id)!.timeZone)).toEqual(["America/Chicago", "America/Los_Angeles", "America/Chicago", "America/Chicago"]);
    expect(byId.get(1)!.ageLimits).toEqual({ min: 10, max: 19 });
    expect(byId.get(3)!.collegeLogos).toHaveLength(5);
  });

  it("finds one event with its description, features and coaches", async () => {
    const one = await findEvent(t.db, 1);
    expect(one!.coaches.map((c) => c.name)).toEqual(["Marcus Delgado", "Tyrell Banks", "Jake Brennan", "Dana Whitfield"]);
    expect(one!.features.length).toBeGreaterThan(3);
    expect(one!.description).toContain("\n\n");
    expect((await findEvent(t.db, 2))!.coaches).toEqual([]);
    expect(await findEvent(t.db, 99)).toBeNull();
    expect(await findEvent(t.db, 0)).toBeNull();
  });
});

describe("/events", () => {
  it("shows the title, the poster hero and a card per event with date, location, price and View Details", async () => {
    const res = await request(t.app).get("/events").expect(200);
    expect(res.text).toContain("<title>Events | Ironside</title>");
    expect(res.text).toMatch(/<h1 class="display">Events<\/h1>/);
    expect(res.text).toContain(`src="${picture("/images/events/events-hero.svg")}"`);
    expect(res.text).not.toContain("<video");
    const list = cards(res.text);
    expect(list).toHaveLength(4);
    SEEDED.forEach((s, i) => {
      const card = list[i]!;
      for (const part of [s.title, s.date, s.location, s.price, s.category, "View Details"]) expect(card, `${s.title}: ${part}`).toContain(part);
    });
    for (const s of SEEDED) expect(res.text).toContain(`<a class="btn btn-primary" href="/events/${s.id}" aria-describedby="event-${s.id}-title">View Details</a>`);
    expect(list[1]).toContain("Was $349.00 Now $299.00 SAVE $50");
    expect(list.filter((c) => c.includes("SAVE"))).toHaveLength(1);
    expect(list[2]).toContain("Open to All Ages, Boys and Girls");
    for (const name of ["Ironwood University", "Mesa Ridge College", "Bluebonnet State", "Granite Falls University", "Cimarron Tech"]) {
      expect(res.text).toContain(`alt="${name}"`);
    }
    expect(executableScripts(res.text)).toEqual([]);
  });

  it("plays the configured hero video over the poster", async () => {
    const withVideo = await createTestApp({ EVENTS_HERO_VIDEO_URL: "/videos/events-hero.mp4" });
    try {
      const res = await request(withVideo.app).get("/events").expect(200);
      expect(res.text).toMatch(new RegExp(`<video[^>]*poster="${picture("/images/events/events-hero.svg")}"[^>]*><source src="/videos/events-hero.mp4"/></video>`));
      expect(executableScripts(res.text)).toEqual([]);
    } finally {
      await withVideo.close();
    }
  });

  it("lists only listed events", async () => {
    await t.db("events").where("id", 4).update({ listed: false });
    try {
      const res = await request(t.app).get("/events").expect(200);
      expect(cards(res.text)).toHaveLength(3);
      expect(res.text).not.toContain('href="/events/4" aria-describedby');
      // an unlisted event stays reachable by its link, kept out of search engines
      const detail = await request(t.app).get("/events/4").expect(200);
      expect(detail.text).toContain('<meta name="robots" content="noindex"/>');
    } finally {
      await t.db("events").where("id", 4).update({ listed: true });
    }
  });
});

describe("/events/:id", () => {
  it.each(SEEDED)("shows event $id with everything the spec lists", async (s) => {
    const res = await request(t.app).get(`/events/${s.id}`).expect(200);
    const html = res.text;
    const text = textOf(html);
    expect(html).toContain(`<title>${s.title} | Ironside</title>`);
    expect(html).toMatch(/<nav class="breadcrumb" aria-label="Breadcrumb"><ol><li><a href="\/events">Events<\/a>/);
    expect(html).toContain(`<span class="badge">${s.category}</span>`);
    expect(text).toContain("Limited to 200 participants - Register early to secure your spot");
    expect(html).toContain(`<h1 class="display">${s.title}</h1>`);
    expect(text).toContain(`${s.date} · ${s.location}`);
    expect(text).toMatch(/Time \d{1,2}:\d\d [AP]M - \d{1,2}:\d\d [AP]M/);
    expect(text).toContain(`Price ${s.price}`);
    expect(html).toContain(`href="/register/${s.id}">Secure Registration</a>`);
    expect(text).toContain("Ages 10+ through high school");
    expect(text).toContain("Limited to 200 wrestlers");
    expect(text).toContain("About This Event");
    expect(text).toContain("What's Included");
    expect(text).toContain("Team Registration $199.00 per athlete");
    expect(html).toContain(`href="/team-register/${s.id}">Register a Team</a>`);
    expect(text).toContain("Event Information Age Group Ages 10+ through high school Capacity 200 wrestlers Places Left 200");
    expect(text).toContain("200 of 200 places left");
    expect(text.includes("Elite Coaching Staff")).toBe(s.id === 1);
    expect(text.includes("Colleges Attending")).toBe(s.id === 3);
    // Only the recruiting clinic has a widget: the college coach dialog.
    expect(executableScripts(html)).toHaveLength(s.id === 3 ? 1 : 0);
    expect(html.includes('data-widget="CoachRequestDialog"')).toBe(s.id === 3);

    const [ld] = jsonLd(html);
    expect(ld).toMatchObject({ "@context": "https://schema.org", "@type": "Event", name: s.title, location: { name: s.location } });
    expect(ld!.offers[0]).toMatchObject({ "@type": "Offer", price: s.price.slice(1), priceCurrency: "USD", availability: "https://schema.org/InStock" });
  });

  it("shows event 1's four coaches with title, portrait and bio", async () => {
    const res = await request(t.app).get("/events/1").expect(200);
    for (const name of ["Marcus Delgado", "Tyrell Banks", "Jake Brennan", "Dana Whitfield"]) {
      expect(res.text).toContain(`<h3>${name}</h3>`);
      expect(res.text).toContain(`<img src="${picture(`/images/events/coaches/${name.toLowerCase().replace(" ", "-")}.svg`)}" alt="Portrait of ${name}"`);
    }
    expect(textOf(res.text)).toContain("Head Clinician, 2x NCAA Division I Champion");
  });

  it("shows event 3's overlay and five college logos, and event 2's promotion and three options", async () => {
    const three = textOf((await request(t.app).get("/events/3").expect(200)).text);
    expect(three).toContain("Open to All Ages, Boys and Girls");
    expect(three).toContain("Ironwood University Mesa Ridge College Bluebonnet State Granite Falls University Cimarron Tech");
    const two = textOf((await request(t.app).get("/events/2").expect(200)).text);
    expect(two).toContain("Was $349.00 Now $299.00 SAVE $50");
    expect(two).toContain("Full Camp (3 Days) $299.00 2 Days $238.00 1 Day $119.00");
    expect(two).toContain("Save $100.00 per athlete against the regular $299.00");
  });

  it.each(["/events/99", "/events/abc", "/events/0", "/events/1.5", "/events/-1", "/events/01", "/events/99999999999999999999", "/events/%E0%A4%A"])(
    "answers %s with 404 'Event Not Found'",
    async (url) => {
      const res = await request(t.app).get(url).expect(404);
      expect(res.text).toContain("<title>Event Not Found | Ironside</title>");
      expect(textOf(res.text)).toContain("Event Not Found The event you're looking for doesn't exist or has been removed. Return to Events");
      expect(res.text).toContain('<a class="btn btn-primary" href="/events">Return to Events</a>');
    },
  );

  it("falls back to placeholder pictures when a picture is missing", async () => {
    await t.db("events").where("id", 1).update({ image: "/images/events/deleted.svg" });
    await t.db("event_coaches").where({ event_id: 1, name: "Tyrell Banks" }).update({ image: "https://elsewhere.test/tyrell.jpg" });
    try {
      const res = await request(t.app).get("/events/1").expect(200);
      expect(res.text).not.toContain("deleted.svg");
      expect(res.text).toContain(`src="${picture("/images/events/event-placeholder.svg")}" alt="Birmingham Slam Camp poster"`);
      expect(res.text).toContain(`src="${picture("/images/events/coaches/coach-placeholder.svg")}" alt="Portrait of Tyrell Banks"`);
      const list = await request(t.app).get("/events").expect(200);
      expect(list.text).toContain(`src="${picture("/images/events/event-placeholder.svg")}" alt="Birmingham Slam Camp poster"`);
    } finally {
      await t.db("events").where("id", 1).update({ image: "/images/events/slam-camp.svg" });
      await t.db("event_coaches").where({ event_id: 1, name: "Tyrell Banks" }).update({ image: "/images/events/coaches/tyrell-banks.svg" });
    }
  });
});

describe("GET /api/events/:id", () => {
  it("answers the event as JSON with the spec's fields plus packages and days", async () => {
    const res = await request(t.app).get("/api/events/2").expect(200).expect("content-type", /json/);
    expect(res.body).toMatchObject({
      id: 2,
      title: "National Champ Camp",
      image: "/images/events/champ-camp.svg",
      category: "Camp",
      basePrice: 299,
      basePriceCents: 29900,
      originalPrice: 349,
      regularPrice: 299,
      teamPrice: 199,
      location: "Las Vegas, NV",
      date: "June 5-7, 2027",
      startDate: "2027-06-05",
      endDate: "2027-06-07",
      capacity: 200,
      placesLeft: 200,
      registrationStatus: "open",
      registrationClosesAt: "2027-06-05T07:00:00.000Z",
    });
    expect(typeof res.body.shortDescription).toBe("string");
    expect(res.body.description.length).toBeGreaterThan(100);
    expect(res.body.features.length).toBeGreaterThan(3);
    expect(res.body.packages).toEqual([
      { code: "full", label: "Full Camp (3 Days)", priceCents: 29900, dayCount: 3, price: 299 },
      { code: "2day", label: "2 Days", priceCents: 23800, dayCount: 2, price: 238 },
      { code: "1day", label: "1 Day", priceCents: 11900, dayCount: 1, price: 119 },
    ]);
    expect(res.body.days.map((d: { date: string }) => d.date)).toEqual(["2027-06-05", "2027-06-06", "2027-06-07"]);
  });

  it.each([1, 3, 4])("answers event %i", async (id) => {
    const res = await request(t.app).get(`/api/events/${id}`).expect(200);
    expect(res.body.id).toBe(id);
    expect(res.body.coaches).toHaveLength(id === 1 ? 4 : 0);
    expect(res.body.collegeLogos).toHaveLength(id === 3 ? 5 : 0);
  });

  it.each(["99", "abc", "0", "1.5", "-3", "99999999999999999999", "%E0%A4%A"])("answers /api/events/%s with 404 JSON", async (id) => {
    const res = await request(t.app).get(`/api/events/${id}`).expect(404).expect("content-type", /json/);
    expect(res.body).toEqual({ error: "Event not found" });
  });
});

describe("an operator edits the database", () => {
  it("changes event 2's full price on every page and answer that shows it", async () => {
    await t.db("event_packages").where({ event_id: 2, code: "full" }).update({ price_cents: 27900 });
    try {
      const list = cards((await request(t.app).get("/events")).text)[1]!;
      expect(list).toContain("Was $349.00 Now $279.00 SAVE $70");
      const detail = textOf((await request(t.app).get("/events/2")).text);
      expect(detail).toContain("Price $279.00");
      expect(detail).toContain("Full Camp (3 Days) $279.00");
      expect(detail).toContain("Save $80.00 per athlete against the regular $279.00");
      const api = (await request(t.app).get("/api/events/2")).body;
      expect(api.basePrice).toBe(279);
      expect(api.regularPrice).toBe(279);
      expect((await findEvent(t.db, 2))!.fullPriceCents).toBe(27900);
    } finally {
      await t.db("event_packages").where({ event_id: 2, code: "full" }).update({ price_cents: 29900 });
    }
  });

  it("changes dates, capacity and the closing date", async () => {
    await t.db("events").where("id", 3).update({
      date_text: "July 10-11, 2028",
      start_date: new Date("2028-07-10T00:00:00Z"),
      end_date: new Date("2028-07-11T00:00:00Z"),
      capacity: 150,
    });
    try {
      const html = (await request(t.app).get("/events/3")).text;
      const text = textOf(html);
      expect(text).toContain("July 10-11, 2028 · Arlington, TX");
      expect(text).toContain("Limited to 150 participants - Register early to secure your spot");
      expect(text).toContain("Limited to 150 wrestlers");
      expect(text).toContain("150 of 150 places left");
      expect(jsonLd(html)[0]).toMatchObject({ startDate: "2028-07-10", endDate: "2028-07-11", maximumAttendeeCapacity: 150 });
      expect(cards((await request(t.app).get("/events")).text)[2]).toContain("July 10-11, 2028");

      await t.db("events").where("id", 3).update({ registration_closes_at: new Date(Date.now() - 60_000) });
      const closed = await request(t.app).get("/events/3");
      expect(textOf(closed.text)).toContain("Registration for this event is closed.");
      expect(closed.text).toContain("<button type=\"button\" class=\"btn btn-primary btn-block btn-lg\" disabled=\"\">Registration Closed</button>");
      expect(closed.text).not.toContain('href="/register/3"');
      expect(closed.text).not.toContain('href="/team-register/3"');
      expect((await request(t.app).get("/api/events/3")).body.registrationStatus).toBe("closed");
      const closedCards = cards((await request(t.app).get("/events")).text);
      expect(closedCards[2]).toMatch(/^Clinic Registration Closed /);
      expect(closedCards[0]).not.toContain("Registration Closed");

      await t.db("events").where("id", 3).update({ registration_closes_at: new Date(Date.now() + 86_400_000) });
      const open = await request(t.app).get("/events/3");
      expect(open.text).toContain('href="/register/3">Secure Registration</a>');
      expect(textOf(open.text)).toContain("Registration Closes");
      // In the event's own zone (Arlington, TX), with the year and the zone named.
      const closes = deadlineText(new Date(Date.now() + 86_400_000), "America/Chicago", { year: true });
      expect(closes).toMatch(/^by \d{1,2}:\d{2} [AP]M on \w+ \d{1,2}, \d{4} \(Central time\)$/);
      expect(textOf(open.text)).toContain(closes);
      expect(textOf(open.text)).toMatch(/9:00 AM - 3:00 PM C[DS]T/);
      expect(textOf(open.text)).not.toContain("UTC");
    } finally {
      await t.db("events").where("id", 3).update({
        date_text: "June 12-13, 2027",
        start_date: new Date("2027-06-12T00:00:00Z"),
        end_date: new Date("2027-06-13T00:00:00Z"),
        capacity: 200,
        registration_closes_at: null,
      });
    }
  });

  it("closes an event that has started by itself, whatever its closing column says", async () => {
    // A day ago: its first day began hours ago wherever it is held.
    const started = new Date(Date.now() - 86_400_000);
    await t.db("events").where("id", 1).update({ start_date: started, registration_closes_at: new Date(Date.now() + 86_400_000) });
    try {
      const res = await request(t.app).get("/events/1").expect(200);
      expect(res.text).toContain('disabled="">Registration Closed</button>');
      expect(res.text).not.toContain('href="/register/1"');
      expect((await request(t.app).get("/api/events/1")).body.registrationStatus).toBe("closed");
    } finally {
      await t.db("events").where("id", 1).update({ start_date: new Date("2027-06-19T00:00:00Z"), registration_closes_at: null });
    }
  });

  it("shows a sold-out event without a way to register", async () => {
    await t.db("events").where("id", 4).update({ capacity: 0 });
    try {
      const res = await request(t.app).get("/events/4").expect(200);
      const text = textOf(res.text);
      expect(text).toContain("Sold out: all 0 places are taken.");
      expect(res.text).toContain('disabled="">Sold Out</button>');
      expect(res.text).not.toContain('href="/register/4"');
      expect(jsonLd(res.text)[0]!.offers[0].availability).toBe("https://schema.org/SoldOut");
      expect((await request(t.app).get("/api/events/4")).body).toMatchObject({ placesLeft: 0, registrationStatus: "soldOut" });
      expect(cards((await request(t.app).get("/events")).text)[3]).toMatch(/^Tour Sold Out Panther Train Tour/);
    } finally {
      await t.db("events").where("id", 4).update({ capacity: 200 });
    }
  });
});

describe("when the database fails", () => {
  it("answers with the spec's load-failure text, never a stack trace or a hang", async () => {
    const broken = await createTestApp();
    await broken.db.destroy();
    try {
      const detail = await request(broken.app).get("/events/2").expect(503);
      expect(textOf(detail.text)).toContain("Temporarily Unavailable Could not load event data. Please try again later. Return to Events");
      // An outage is not a missing event: neither the heading nor the title says "Not Found".
      expect(detail.text).not.toMatch(/not found/i);
      const list = await request(broken.app).get("/events").expect(503);
      expect(textOf(list.text)).toContain("Could not load event data. Please try again later.");
      const api = await request(broken.app).get("/api/events/2").expect(503);
      expect(api.body).toEqual({ error: "Could not load event data. Please try again later." });
    } finally {
      await broken.close().catch(() => {});
    }
  });
});
