import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import request from "supertest";
import type { Express } from "express";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { backend, createTestApp, type TestApp } from "../support/app.ts";
import { createDb, type Db } from "../../src/db/knex.ts";
import { createApp } from "../../src/app.ts";
import { runEventsCommand } from "../../src/cli/events.ts";
import { parseEventsArgs, type EventsCommand } from "../../src/cli/eventsArgs.ts";
import { setCapacity } from "../../src/registrations/waitlist/capacity.ts";
import { insertEntry } from "../../src/registrations/waitlist/tables/entries.ts";
import { announceEventsChanges, eventsChangedChannel, EVENTS_VERSION_POLL_MS, type EventsVersionWatch } from "../../src/events/version.ts";
import { countPlacesFromRows } from "../support/places.ts";
import { visitor } from "../support/http.ts";

/**
 * `npm run events` through its module, as an operator's process: a third connection pool on the app's database, so
 * no app instance sees the write itself. Two app instances (each its own pool, pages kept as in production) show a
 * change on their very next request; a refused change writes nothing, not even what it checked before refusing.
 * With Redis (MySQL runs) the operator's process announces its change as a command does and the instances hear it:
 * the next page shows it, and a kept page reads nothing. Without Redis an instance reads the version at most every
 * EVENTS_VERSION_POLL_MS, so the change shows once that interval has passed.
 */
let t: TestApp;
let other: Db;
let operator: Db;
let apps: Express[];
let announced: { settled(): Promise<void> } | undefined;
let announcements = 0;
let sqliteDir: string | undefined;

beforeAll(async () => {
  // Several pools on one SQLite database need a file; MySQL has its own per test file.
  sqliteDir = backend === "sqlite" ? fs.mkdtempSync(path.join(os.tmpdir(), "events-command-")) : undefined;
  t = await createTestApp({ PAGE_CACHE_MS: "60000", ...(sqliteDir ? { SQLITE_PATH: path.join(sqliteDir, "app.sqlite3") } : {}) });
  other = createDb(t.config.database, t.logger);
  operator = createDb(t.config.database, t.logger);
  apps = [t.app, createApp({ ...t, db: other })];
  const redis = t.redis;
  if (redis) {
    announced = announceEventsChanges(operator, () => {
      announcements += 1;
      return redis.publish(eventsChangedChannel(t.config.redis!.prefix), "1");
    }, t.logger);
  }
});
afterAll(async () => {
  await other?.destroy();
  await operator?.destroy();
  await t?.close();
  if (sqliteDir) fs.rmSync(sqliteDir, { recursive: true, force: true });
});

function command(...argv: string[]): EventsCommand {
  const cmd = parseEventsArgs(argv);
  if ("help" in cmd || "error" in cmd) throw new Error(`not a command: ${argv.join(" ")}`);
  return cmd;
}
const watches = () => apps.map((app) => app.locals.eventsVersion as EventsVersionWatch);

/** Runs a change as a command's process does: it returns once the change is announced and (with Redis) heard. */
async function announcedChange<T>(change: () => Promise<T>): Promise<T> {
  const heardBefore = watches().map((w) => w.heard());
  const announcedBefore = announcements;
  const out = await change();
  await announced?.settled();
  if (announcements > announcedBefore) await expect.poll(() => watches().every((w, i) => w.heard() > heardBefore[i]!)).toBe(true);
  return out;
}
const run = (...argv: string[]) => announcedChange(() => runEventsCommand(operator, command(...argv), new Date()));

/**
 * Before a change is made: with Redis, both instances hear announcements (a change then shows at the next request);
 * without, each has read the version since the last change, so no earlier change empties its kept pages later on.
 */
async function instancesListening(): Promise<void> {
  if (t.redis) return expect.poll(() => watches().every((w) => w.live())).toBe(true);
  await new Promise((resolve) => setTimeout(resolve, EVENTS_VERSION_POLL_MS + 10));
  for (const app of apps) await get(app, "/api/events/1");
}

/** The next request with Redis; without it, the first request after the instance's next read of the version. */
async function shownSoon<T>(read: () => Promise<T>, check: (value: T) => void): Promise<void> {
  if (t.redis) return check(await read());
  await expect.poll(async () => {
    try {
      check(await read());
      return true;
    } catch {
      return false;
    }
  }).toBe(true);
  check(await read());
}

/** Everything an events command may write, to show that a refusal wrote nothing. */
async function stored(): Promise<string> {
  const tables = ["events", "event_packages", "event_days", "content_versions", "waiting_list_jobs"];
  return JSON.stringify(await Promise.all(tables.map((table) => operator(table).orderBy(table === "content_versions" ? "name" : "id"))));
}

let seq = 0;
async function paidRegistration(eventId: number, places: number): Promise<number> {
  seq += 1;
  const now = new Date();
  const [id] = await operator("registrations").insert({
    reference: `E${String(seq).padStart(7, "0")}`,
    event_id: eventId,
    kind: places > 1 ? "team" : "individual",
    status: "paid",
    places,
    package_code: "full",
    package_label: "Full",
    list_price_cents: 100,
    amount_cents: 100,
    contact_first_name: "A",
    contact_last_name: "B",
    contact_email: "a@example.com",
    contact_phone: "5551234567",
    form_session_id: `events-command-form-${String(seq).padStart(8, "0")}`,
    agreed_at: now,
    created_at: now,
    updated_at: now,
  });
  return Number(id);
}

const ATHLETE = {
  firstName: "Maya", lastName: "Okafor", email: "maya.okafor@example.com", phone: "(205) 555-0100", grade: "9th", gender: "Female",
  schoolName: "Central High", emergencyContactName: "Ada Okafor", emergencyContactPhone: "205-555-0199", adult: "on", agrees: "on",
};

/** Pages are kept per origin, and supertest gives every request its own port: one Host for all. */
const get = (app: Express, url: string) => request(app).get(url).set("host", "shop.test").expect(200);

/** Each page as a visitor without state gets it, the second time from the instance's kept copy. */
async function pagesOf(app: Express, id: number) {
  const list = await get(app, "/events");
  const page = await get(app, `/events/${id}`);
  const api = await get(app, `/api/events/${id}`);
  return { list: list.text, page: page.text, api: api.body as { title: string; packages: { code: string; priceCents?: number; price?: number }[]; capacity?: number }, keptPage: page.headers.age !== undefined };
}

describe("npm run events, through its module", () => {
  it("lists and shows the events with their dates, zone, packages and prices", async () => {
    const list = await run("list");
    expect(list).toMatch(/^id\s+title\s+dates\s+time zone/);
    expect(list).toContain("National Champ Camp");
    expect(list).toContain("America/Los_Angeles");
    const shown = await run("show", "2");
    expect(shown).toContain("Event 2: National Champ Camp");
    expect(shown).toMatch(/package full: \$\d+\.\d\d/);
    await expect(run("show", "999")).rejects.toThrow("There is no event 999.");
  });

  it("creates an event from another's description, with its days, packages and derived date text", async () => {
    const out = await run("create", "--like", "1", "--title", "Fall Clinic", "--start", "2027-10-09", "--end", "2027-10-10", "--location", "Omaha, NE", "--capacity", "40", "--package", "full=199", "--package", "1day=119.50", "--time-zone", "America/Denver", "--closes", "2027-10-01", "--freeze", "2027-10-02");
    const id = Number(/Created event (\d+)\./.exec(out)![1]);
    const row = await operator("events").where({ id }).first();
    expect(row).toMatchObject({ title: "Fall Clinic", date_text: "October 9-10, 2027", location: "Omaha, NE", capacity: 40, time_zone: "America/Denver" });
    expect(new Date(row.registration_closes_at as string).toISOString()).toBe("2027-10-01T06:00:00.000Z");
    const like = await operator("events").where({ id: 1 }).first();
    expect(row.description).toBe(like.description);
    const packages = await operator("event_packages").where({ event_id: id }).orderBy("sort_order");
    expect(packages.map((p: { code: string; price_cents: number; day_count: number }) => [p.code, p.price_cents, p.day_count])).toEqual([["full", 19900, 2], ["1day", 11950, 1]]);
    const days = await operator("event_days").where({ event_id: id }).orderBy("sort_order");
    expect(days.map((d: { label: string }) => d.label)).toEqual(["Saturday, October 9", "Sunday, October 10"]);
    const api = await request(t.app).get(`/api/events/${id}`).expect(200);
    expect(api.body).toMatchObject({ title: "Fall Clinic", location: "Omaha, NE" });
  });

  it("updates the fields given, and only those", async () => {
    const before = await operator("events").where({ id: 4 }).first();
    await run("update", "4", "--location", "Tulsa, OK", "--package", "singleDay=89.00");
    const after = await operator("events").where({ id: 4 }).first();
    expect(after.location).toBe("Tulsa, OK");
    expect(after.title).toBe(before.title);
    expect(after.date_text).toBe(before.date_text);
    const single = await operator("event_packages").where({ event_id: 4, code: "singleDay" }).first();
    expect(single.price_cents).toBe(8900);
  });

  it("sets the deposit policy: a fixed amount per athlete, a percentage, none; the balance's due days", async () => {
    expect(await run("show", "2")).toContain("deposit: $75.00 per athlete, the balance due 14 days before the first day");
    expect(await run("show", "3")).toContain("deposit: none (pay in full only)");
    await run("update", "3", "--deposit", "percent=30", "--balance-due-days", "21");
    expect(await operator("events").where({ id: 3 }).first()).toMatchObject({ deposit_kind: "percent", deposit_value: 30, balance_due_days: 21 });
    expect(await run("show", "3")).toContain("deposit: 30% (rounded to whole dollars per athlete), the balance due 21 days before the first day");
    await run("update", "3", "--deposit", "fixed=50");
    expect(await operator("events").where({ id: 3 }).first()).toMatchObject({ deposit_kind: "fixed", deposit_value: 5000, balance_due_days: 21 });
    await run("update", "3", "--deposit", "none", "--balance-due-days", "14");
    expect(await operator("events").where({ id: 3 }).first()).toMatchObject({ deposit_kind: "none", deposit_value: 0, balance_due_days: 14 });
  });

  it("sets the sibling discount: a fixed amount or a percentage off each additional athlete, and clears it", async () => {
    expect(await run("show", "3")).toContain("sibling discount: none");
    await run("update", "3", "--sibling-discount", "fixed=25.00");
    expect(await operator("events").where({ id: 3 }).first()).toMatchObject({ sibling_discount_kind: "fixed", sibling_discount_value: 2500 });
    expect(await run("show", "3")).toContain("sibling discount: $25.00 off each additional athlete");
    await run("update", "3", "--sibling-discount", "percent=10");
    expect(await run("show", "3")).toContain("sibling discount: 10% off each additional athlete");
    await run("update", "3", "--sibling-discount", "none");
    expect(await operator("events").where({ id: 3 }).first()).toMatchObject({ sibling_discount_kind: "none", sibling_discount_value: 0 });
  });

  it("moves the days with the dates, and the date text with them", async () => {
    await run("update", "3", "--start", "2027-07-10", "--end", "2027-07-11");
    const row = await operator("events").where({ id: 3 }).first();
    expect(row.date_text).toBe("July 10-11, 2027");
    const days = await operator("event_days").where({ event_id: 3 }).orderBy("sort_order");
    expect(days.map((d: { label: string }) => d.label)).toEqual(["Saturday, July 10", "Sunday, July 11"]);
  });

  it.each([
    [["update", "2", "--end", "2027-06-01"], "The end date 2027-06-01 is before the start date 2027-06-05."],
    [["update", "2", "--closes", "2027-06-06"], "Registration cannot close after the start: 2027-06-06 is after 2027-06-05."],
    [["update", "2", "--freeze", "2027-06-08"], "The freeze date 2027-06-08 is after the start date 2027-06-05."],
    [["update", "2", "--date-text", "July 5-7, 2027"], 'The date text "July 5-7, 2027" does not match 2027-06-05 to 2027-06-07'],
    [["update", "999", "--capacity", "10"], "There is no event 999."],
    [["create", "--like", "999", "--title", "X", "--start", "2027-10-09", "--end", "2027-10-10", "--location", "Y", "--capacity", "4", "--package", "full=10"], "There is no event 999 to copy from."],
  ])("refuses %j with one line, changing nothing", async (argv, message) => {
    const before = await stored();
    await expect(run(...argv)).rejects.toThrow(message);
    expect(await stored()).toBe(before);
  });

  it("refuses a capacity below the places taken (the waiting list's rule) and a shorter event whose days were chosen, in one transaction: the capacity it set first is rolled back", async () => {
    const registrationId = await paidRegistration(2, 5);
    await countPlacesFromRows(operator, [2]);
    const day = await operator("event_days").where({ event_id: 2 }).orderBy("sort_order").first();
    await operator("registration_days").insert({ registration_id: registrationId, event_day_id: day.id });
    const before = await stored();
    await expect(run("update", "2", "--capacity", "4")).rejects.toThrow("5 places of event 2 are paid for or held: its capacity cannot go below that.");
    await expect(run("update", "2", "--capacity", "150", "--end", "2027-06-06")).rejects.toThrow("Registrations or coach requests chose days of event 2");
    expect(await stored()).toBe(before);
  });

});

describe("a change shows on every instance at its next request", () => {
  it("title and price on /events, /events/{id} and /api/events/{id} of both instances", async () => {
    await instancesListening();
    for (const app of apps) {
      await pagesOf(app, 2);
      const again = await pagesOf(app, 2);
      expect(again.keptPage).toBe(true);
      expect(again.api.title).toBe("National Champ Camp");
    }
    await run("update", "2", "--title", "National Champ Camp, renamed", "--package", "full=279.00");
    for (const app of apps) {
      await shownSoon(() => pagesOf(app, 2), (now) => {
        expect(now.list).toContain("National Champ Camp, renamed");
        expect(now.page).toContain("National Champ Camp, renamed");
        expect(now.page).toContain("$279");
        expect(now.api.title).toBe("National Champ Camp, renamed");
        expect(JSON.stringify(now.api.packages)).toMatch(/279/);
      });
    }
  });

  it("a package's new price is what the next hold on either instance charges (the hold prices from the kept event)", async () => {
    await instancesListening();
    let form = 0;
    const hold = async (app: Express) => {
      form += 1;
      const v = await visitor(app);
      const res = await v.post("/api/events/2/create-payment-intent").set("x-forwarded-for", `203.0.113.${100 + form}`).send({
        option: "1day",
        formSessionId: `events-command-price-${form}-${Date.now()}`,
        registrationData: { ...ATHLETE, registrationType: "1day", day1: true },
      });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      return Number((await operator("registrations").where({ reference: res.body.registrationId }).first()).amount_cents);
    };
    // Each instance keeps the event with its old price first.
    const before = Number((await operator("event_packages").where({ event_id: 2, code: "1day" }).first()).price_cents);
    expect(before).not.toBe(12345);
    for (const app of apps) expect(await hold(app)).toBe(before);
    await run("update", "2", "--package", "1day=123.45");
    for (const app of apps) await shownSoon(() => hold(app), (cents) => expect(cents).toBe(12345));
  });

  it("a new event on /events of both instances", async () => {
    await instancesListening();
    for (const app of apps) {
      await get(app, "/events");
      expect((await get(app, "/events")).headers.age).toBeDefined();
    }
    const out = await run("create", "--like", "2", "--title", "Winter Warmup", "--start", "2027-12-04", "--end", "2027-12-04", "--location", "Reno, NV", "--capacity", "30", "--package", "full=99");
    for (const app of apps) await shownSoon(() => get(app, "/events"), (page) => expect(page.text).toContain("Winter Warmup"));
    // Event 2's struck-through promotional price is not the new event's.
    const created = await operator("events").where({ id: Number(/Created event (\d+)\./.exec(out)![1]) }).first();
    expect(created.original_price_cents).toBeNull();
  });

  it("a capacity set by npm run capacity (setCapacity) in the places both instances show", async () => {
    await instancesListening();
    const shown = async (app: Express) => ((await get(app, "/api/events/4")).body as { placesLeft: number }).placesLeft;
    await Promise.all(apps.map(shown));
    await announcedChange(() => setCapacity(operator, 4, 123, new Date()));
    for (const app of apps) await shownSoon(() => shown(app), (left) => expect(left).toBe(123));
  });

  it.skipIf(backend !== "mysql")("a kept page costs no database statement while the instance hears Redis", async () => {
    await instancesListening();
    const urls = ["/events/2", "/events", "/"];
    for (const app of apps) for (const url of urls) await get(app, url);
    const statements: string[] = [];
    const count = (q: { sql?: string }) => statements.push(String(q.sql));
    for (const db of [t.db, other]) db.on("query", count);
    try {
      for (const app of apps) {
        for (const url of urls) {
          // Past the interval in which an instance without Redis would not read again: only hearing Redis spares the read.
          await new Promise((resolve) => setTimeout(resolve, EVENTS_VERSION_POLL_MS + 10));
          expect((await get(app, url)).headers.age).toBeDefined();
        }
      }
    } finally {
      for (const db of [t.db, other]) db.off("query", count);
    }
    expect(statements).toEqual([]);
  });
});

// Last: the offer round it asks for is worked by the app's queue in the background (MySQL), writing as it goes.
describe("a raised capacity", () => {
  it("raises the capacity through the waiting list's rule: an offer round is asked for when families wait", async () => {
    await operator.transaction((trx) =>
      insertEntry(trx, 1, { kind: "individual", places: 1, packageCode: "full", firstName: "W", lastName: "L", email: "w@example.com", phone: "5551234567", teamName: undefined }, "e".repeat(64), new Date()),
    );
    expect(await operator("waiting_list_jobs").where({ event_id: 1 }).first()).toBeUndefined();
    const out = await run("update", "1", "--capacity", "250");
    expect(out).toContain("The waiting list is offered the new places.");
    // Asked for in the command's transaction; a running instance may already be working it.
    expect(await operator("waiting_list_jobs").where({ event_id: 1 }).first()).toBeDefined();
  });
});
