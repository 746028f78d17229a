import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { backend, createMysqlDatabase } from "../support/app.ts";
import { createDb, type Db } from "../../src/db/knex.ts";
import { placesLeft, placesTaken } from "../../src/events/repository.ts";
import * as eventsSchema from "../../migrations/20261122001000_events.ts";
import * as eventsData from "../../migrations/20261122001100_events_reference_data.ts";

/**
 * placesLeft on a database holding only the events tables, so the registrations table can be shaped here
 * the way the registration feature stores holds (event_id, status, reserved_until, optionally places).
 */
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
  await eventsSchema.up(db);
  await eventsData.up(db);
});
afterAll(async () => {
  await db.destroy();
  await drop();
});

const now = new Date("2025-05-20T12:00:00Z");
const minutes = (n: number) => new Date(now.getTime() + n * 60_000);

describe("placesLeft", () => {
  it("is the capacity while no registrations table exists", async () => {
    expect(await db.schema.hasTable("registrations")).toBe(false);
    expect(await placesLeft(db, 2, now)).toBe(200);
    expect(await placesLeft(db, 99, now)).toBe(0);
  });

  it("subtracts paid registrations and unexpired holds, not expired holds, failures or other events", async () => {
    await db.schema.createTable("registrations", (t) => {
      t.increments("id");
      t.integer("event_id").notNullable();
      t.string("status", 20).notNullable();
      t.dateTime("reserved_until").nullable();
    });
    const rows = [
      ...Array.from({ length: 3 }, () => ({ event_id: 2, status: "paid", reserved_until: null })),
      ...Array.from({ length: 2 }, () => ({ event_id: 2, status: "pending_payment", reserved_until: minutes(10) })),
      ...Array.from({ length: 4 }, () => ({ event_id: 2, status: "pending_payment", reserved_until: minutes(-1) })),
      { event_id: 2, status: "pending_payment", reserved_until: now },
      { event_id: 2, status: "failed", reserved_until: minutes(10) },
      ...Array.from({ length: 5 }, () => ({ event_id: 1, status: "paid", reserved_until: null })),
    ];
    await db("registrations").insert(rows);
    expect(await placesTaken(db, 2, now)).toBe(5);
    expect(await placesLeft(db, 2, now)).toBe(195);
    expect(await placesLeft(db, 1, now)).toBe(195);
    expect(await placesLeft(db, 3, now)).toBe(200);
    // the holds expire
    expect(await placesLeft(db, 2, minutes(11))).toBe(197);
  });

  it("counts a registration's places (a team holds one per athlete) when the table has that column", async () => {
    await db.schema.alterTable("registrations", (t) => t.integer("places").notNullable().defaultTo(1));
    await db("registrations").insert({ event_id: 3, status: "paid", reserved_until: null, places: 12 });
    await db("registrations").insert({ event_id: 3, status: "pending_payment", reserved_until: minutes(5), places: 6 });
    expect(await placesLeft(db, 3, now)).toBe(182);
    expect(await placesLeft(db, 2, now)).toBe(195);
  });

  it("follows a capacity change and never goes below zero", async () => {
    await db("events").where("id", 3).update({ capacity: 15 });
    expect(await placesLeft(db, 3, now)).toBe(0);
    await db("events").where("id", 3).update({ capacity: 20 });
    expect(await placesLeft(db, 3, now)).toBe(2);
  });

  it("works inside a transaction (the capacity check of a registration)", async () => {
    const left = await db.transaction(async (trx) => {
      await trx("events").where("id", 2).forUpdate().first("id");
      return placesLeft(trx, 2, now);
    });
    expect(left).toBe(195);
  });
});
