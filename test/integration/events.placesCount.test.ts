import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { backend, createMysqlDatabase } from "../support/app.ts";
import { createDb, migrateLatest, type Db } from "../../src/db/knex.ts";
import { placesDrift, placesInRows } from "../../src/events/places.ts";
import { checkLine, parseCapacityArgs } from "../../src/cli/capacity.ts";

/** The events' counts of places (event_places): the migration's backfill from the rows, and the check that compares them. */
let db: Db;
let drop = async () => {};
beforeAll(async () => {
  if (backend === "mysql") {
    const created = await createMysqlDatabase();
    db = createDb({ client: "mysql2", url: created.url });
    drop = created.drop;
  } else {
    db = createDb({ client: "better-sqlite3", filename: ":memory:" });
  }
  await migrateLatest(db);
});
afterAll(async () => {
  await db.destroy();
  await drop();
});

const now = new Date("2027-05-20T12:00:00Z");
let seq = 0;
function registration(status: string, places: number, reservedUntil: Date | null = null) {
  seq += 1;
  return {
    reference: `C${String(seq).padStart(7, "0")}`, event_id: 3, kind: places > 1 ? "team" : "individual", status, places, package_code: "full", package_label: "Full",
    list_price_cents: 100, amount_cents: 100, contact_first_name: "A", contact_last_name: "B", contact_email: "a@example.com", contact_phone: "5551234567",
    form_session_id: `count-session-${String(seq).padStart(8, "0")}`, reserved_until: reservedUntil, agreed_at: now, created_at: now, updated_at: now,
  };
}

describe("the migration that counts places", () => {
  it("fills each event's count from its rows: pending (lapsed too), paid, in review, deposit paid, overdue, and pending or in-review changes", async () => {
    await db.migrate.down({ name: "20261202000200_admit_places.ts" });
    await db.migrate.down({ name: "20261202000100_event_places.ts" });
    const past = new Date(now.getTime() - 60_000);
    await db("registrations").insert([
      registration("paid", 5), registration("pending_payment", 2, past), registration("needs_review", 1), registration("deposit_paid", 1),
      registration("balance_overdue", 1), registration("expired", 4, past), registration("canceled", 3), registration("refunded", 2), registration("withdrawn", 1),
    ]);
    const [paidId] = await db("registrations").where({ event_id: 3, status: "paid" }).pluck("id");
    const change = (status: string, places: number) => ({ registration_id: paidId, event_id: 3, kind: "add_athletes", data_json: "{}", places, amount_cents: 100, priced_version: 1, status, reserved_until: past, created_at: now, updated_at: now });
    await db("registration_changes").insert([change("pending", 2), change("needs_review", 1), change("paid", 3), change("expired", 1)]);
    await migrateLatest(db);

    const counts = await db("event_places").orderBy("event_id").select("event_id", "taken");
    expect(counts.map((c: { event_id: unknown }) => Number(c.event_id))).toEqual((await db("events").orderBy("id").pluck("id")).map(Number));
    expect(Number(counts.find((c: { event_id: unknown }) => Number(c.event_id) === 3).taken)).toBe(5 + 2 + 1 + 1 + 1 + 2 + 1);
    expect(await placesInRows(db, 3)).toBe(13);
    expect(await placesDrift(db)).toEqual([]);
  });
});

describe("npm run capacity -- check", () => {
  it("names an event whose count is not its rows' or is above its capacity, and nothing else", async () => {
    expect(parseCapacityArgs(["check"])).toEqual({ check: true });
    await db("event_places").where({ event_id: 3 }).increment("taken", 1);
    const drift = await placesDrift(db);
    expect(drift).toEqual([{ eventId: 3, counted: 14, rows: 13, capacity: 200 }]);
    expect(checkLine(drift[0]!)).toBe("Event 3: counted 14 places taken, its registrations hold 13 (capacity 200).");
    await db("event_places").where({ event_id: 3 }).decrement("taken", 1);
    await db("events").where({ id: 3 }).update({ capacity: 12 });
    expect(await placesDrift(db)).toEqual([{ eventId: 3, counted: 13, rows: 13, capacity: 12 }]);
    await db("events").where({ id: 3 }).update({ capacity: 200 });
    expect(await placesDrift(db)).toEqual([]);
  });
});
