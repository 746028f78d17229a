import request from "supertest";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { backend, createTestApp, type TestApp } from "../support/app.ts";
import { createDb, type Db } from "../../src/db/knex.ts";
import { findEvent, placesLeft } from "../../src/events/repository.ts";
import { EVENT_CACHE_MS, eventCaches } from "../../src/events/cache.ts";
import { lockForUpdate } from "../../src/db/locks.ts";

/**
 * The in-process event cache: this process's writes show at once, after their commit and never before;
 * another process's show within EVENT_CACHE_MS on pages, and at once to the count a hold is decided on.
 */
let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => {
  await t.close();
});
afterEach(() => {
  vi.useRealTimers();
});

const title = async (id: number) => ((await request(t.app).get(`/api/events/${id}`).expect(200)).body as { title: string }).title;
const shownPlacesLeft = async (id: number) => ((await request(t.app).get(`/api/events/${id}`).expect(200)).body as { placesLeft: number }).placesLeft;

let seq = 0;
function paidRegistration(eventId: number, places = 1) {
  seq += 1;
  const now = new Date();
  return {
    reference: `C${String(seq).padStart(7, "0")}`,
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
    form_session_id: `event-cache-form-${String(seq).padStart(8, "0")}`,
    agreed_at: now,
    created_at: now,
    updated_at: now,
  };
}

describe("event cache, writes of this process", () => {
  it("shows an edit at once", async () => {
    expect(await title(4)).toBe("Panther Train Tour");
    await t.db("events").where({ id: 4 }).update({ title: "Panther Tour, renamed" });
    try {
      expect(await title(4)).toBe("Panther Tour, renamed");
      const list = await request(t.app).get("/events").expect(200);
      expect(list.text).toContain("Panther Tour, renamed");
    } finally {
      await t.db("events").where({ id: 4 }).update({ title: "Panther Train Tour" });
    }
    expect(await title(4)).toBe("Panther Train Tour");
  });

  it("keeps serving the committed data while a transaction that changes it is open, and the new data after its commit", async () => {
    expect(await title(3)).toBe("Texas Recruiting Clinic");
    await t.db.transaction(async (trx) => {
      await trx("events").where({ id: 3 }).update({ title: "Not yet committed" });
      expect((await findEvent(t.db, 3))!.title).toBe("Texas Recruiting Clinic");
    });
    expect((await findEvent(t.db, 3))!.title).toBe("Not yet committed");
    await t.db("events").where({ id: 3 }).update({ title: "Texas Recruiting Clinic" });
  });

  it("after a rollback shows what is stored", async () => {
    expect(await title(3)).toBe("Texas Recruiting Clinic");
    await t.db
      .transaction(async (trx) => {
        await trx("events").where({ id: 3 }).update({ title: "Rolled back" });
        throw new Error("roll back");
      })
      .catch(() => undefined);
    expect(await title(3)).toBe("Texas Recruiting Clinic");
  });

  it("counts a new registration's places at once", async () => {
    const before = await shownPlacesLeft(1);
    await t.db("registrations").insert(paidRegistration(1, 3));
    expect(await shownPlacesLeft(1)).toBe(before - 3);
  });
});

describe("event cache, a refill", () => {
  /** The child rows as the pages list them: by sort_order, then id. */
  const ordered = (table: string) => t.db(table).where({ event_id: 2 }).orderBy(["sort_order", "id"]);

  it("reads an event whole in one statement on MySQL, every child list in its sort order", async () => {
    // Each list's sort order made the reverse of its ids, so neither the ids nor the insertion order give it.
    const tables = ["event_packages", "event_days", "event_college_logos", "event_coaches"];
    const before = Object.fromEntries(await Promise.all(tables.map(async (table) => [table, await t.db(table).where({ event_id: 2 }).select("id", "sort_order")] as const)));
    for (const table of tables) for (const r of before[table]!) await t.db(table).where({ id: r.id }).update({ sort_order: 1000 - Number(r.id) });
    try {
      eventCaches(t.db).events.invalidate();
      const sql: string[] = [];
      const listener = (q: { sql: string }) => {
        if (!q.sql.includes("content_versions")) sql.push(q.sql);
      };
      t.db.on("query", listener);
      const event = (await findEvent(t.db, 2))!;
      t.db.off("query", listener);
      expect(sql).toHaveLength(backend === "mysql" ? 1 : 5);
      expect(event.packages.map((p) => p.code)).toEqual((await ordered("event_packages")).map((r) => r.code));
      expect(event.packages.length).toBeGreaterThan(1);
      expect(event.days.map((d) => d.id)).toEqual((await ordered("event_days")).map((r) => Number(r.id)));
      expect(event.days.length).toBeGreaterThan(1);
      expect(event.collegeLogos.map((l) => l.id)).toEqual((await ordered("event_college_logos")).map((r) => Number(r.id)));
      expect(event.coaches.map((c) => c.id)).toEqual((await ordered("event_coaches")).map((r) => Number(r.id)));
      // What a transaction reads (the database's rows, never the cache) is the same event.
      expect(await t.db.transaction((trx) => findEvent(trx, 2))).toEqual(event);
    } finally {
      for (const table of tables) for (const r of before[table]!) await t.db(table).where({ id: r.id }).update({ sort_order: r.sort_order });
      eventCaches(t.db).events.invalidate();
    }
  });
});

// Two processes need one database both can reach: MySQL.
describe.runIf(backend === "mysql")("event cache, writes of another process", () => {
  let other: Db;
  beforeAll(() => {
    other = createDb(t.config.database);
  });
  afterAll(async () => {
    await other.destroy();
  });

  it("pages show them within EVENT_CACHE_MS, while the count a hold is decided on sees them at once", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    const before = await shownPlacesLeft(2);
    await other("registrations").insert(paidRegistration(2, 5));

    expect(await shownPlacesLeft(2)).toBe(before);
    const decided = await t.db.transaction(async (trx) => {
      await lockForUpdate(trx, "events", 2);
      return placesLeft(trx, 2, new Date());
    });
    expect(decided).toBe(before - 5);

    vi.setSystemTime(Date.now() + EVENT_CACHE_MS);
    expect(await shownPlacesLeft(2)).toBe(before - 5);
  });
});
