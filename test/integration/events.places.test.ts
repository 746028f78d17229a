import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { backend, createMysqlDatabase } from "../support/app.ts";
import { createDb, migrateLatest, type Db } from "../../src/db/knex.ts";
import { placesLeft, placesTaken } from "../../src/events/repository.ts";
import { lockForUpdate } from "../../src/db/locks.ts";

/** placesLeft against the real registrations table, on each backend. */
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
const minutes = (n: number) => new Date(now.getTime() + n * 60_000);
let seq = 0;

function registration(eventId: number, status: string, reservedUntil: Date | null, places = 1) {
  seq += 1;
  return {
    reference: `T${String(seq).padStart(7, "0")}`,
    event_id: eventId,
    kind: places > 1 ? "team" : "individual",
    status,
    places,
    package_code: "full",
    package_label: "Full",
    list_price_cents: 100,
    amount_cents: 100,
    contact_first_name: "A",
    contact_last_name: "B",
    contact_email: "a@example.com",
    contact_phone: "5551234567",
    form_session_id: `form-session-${String(seq).padStart(8, "0")}`,
    reserved_until: reservedUntil,
    agreed_at: now,
    created_at: now,
    updated_at: now,
  };
}

describe("placesLeft", () => {
  it("is the capacity while nobody registered, and 0 for an unknown event", async () => {
    expect(await placesLeft(db, 2, now)).toBe(200);
    expect(await placesLeft(db, 99, now)).toBe(0);
  });

  it("subtracts paid registrations (free ones too) and unexpired holds, not expired holds, refunds or other events", async () => {
    const rows = [
      ...Array.from({ length: 3 }, () => registration(2, "paid", null)),
      ...Array.from({ length: 2 }, () => registration(2, "pending_payment", minutes(10))),
      ...Array.from({ length: 4 }, () => registration(2, "pending_payment", minutes(-1))),
      registration(2, "pending_payment", now),
      registration(2, "expired", minutes(10)),
      registration(2, "refunded", null),
      ...Array.from({ length: 5 }, () => registration(1, "paid", null)),
    ];
    await db("registrations").insert(rows);
    expect(await placesTaken(db, 2, now)).toBe(5);
    expect(await placesLeft(db, 2, now)).toBe(195);
    expect(await placesLeft(db, 1, now)).toBe(195);
    expect(await placesLeft(db, 3, now)).toBe(200);
    // the holds expire
    expect(await placesLeft(db, 2, minutes(11))).toBe(197);
  });

  it("counts a registration's places (a team holds one per athlete)", async () => {
    await db("registrations").insert(registration(3, "paid", null, 12));
    await db("registrations").insert(registration(3, "pending_payment", minutes(5), 6));
    expect(await placesLeft(db, 3, now)).toBe(182);
    expect(await placesLeft(db, 2, now)).toBe(195);
  });

  it("leaves out the registration being changed", async () => {
    const held = await db("registrations").where({ event_id: 3, status: "pending_payment" }).first("id");
    expect(await placesLeft(db, 3, now, Number(held.id))).toBe(188);
  });

  it("follows a capacity change and never goes below zero", async () => {
    await db("events").where("id", 3).update({ capacity: 15 });
    expect(await placesLeft(db, 3, now)).toBe(0);
    await db("events").where("id", 3).update({ capacity: 20 });
    expect(await placesLeft(db, 3, now)).toBe(2);
  });

  it("works inside a transaction (the capacity check of a registration)", async () => {
    const left = await db.transaction(async (trx) => {
      await lockForUpdate(trx, "events", 2);
      return placesLeft(trx, 2, now);
    });
    expect(left).toBe(195);
  });
});
