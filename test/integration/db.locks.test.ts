import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, type TestApp } from "../support/app.ts";
import { lockForUpdate } from "../../src/db/locks.ts";
import { CONTENTION_ATTEMPTS, isContention, lockingTransaction } from "../../src/db/transaction.ts";

/**
 * lockForUpdate as capacity checks use it: lock the event row first, count the places taken, then hold
 * one. N holds at once for the last place must give exactly one (on MySQL, with real concurrency).
 */
let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
  await t.db.schema.createTable("lock_test_holds", (table) => {
    table.increments("id");
    table.integer("event_id").notNullable();
  });
});
afterAll(async () => {
  await t?.close();
});

/** One hold if a place is left; the pause widens the window between the count and the insert. */
async function hold(eventId: number): Promise<boolean> {
  return t.db.transaction(async (trx) => {
    const event = await lockForUpdate(trx, "events", eventId);
    if (!event) return false;
    const row = await trx("lock_test_holds").where({ event_id: eventId }).count({ n: "*" }).first();
    await new Promise((r) => setTimeout(r, 30));
    if (Number(row?.n ?? 0) >= Number(event.capacity)) return false;
    await trx("lock_test_holds").insert({ event_id: eventId });
    return true;
  });
}

describe("lockForUpdate", () => {
  it("N parallel holds for capacity 1 give exactly one", async () => {
    await t.db("events").where({ id: 1 }).update({ capacity: 1 });
    const results = await Promise.all(Array.from({ length: 8 }, () => hold(1)));
    expect(results.filter(Boolean)).toHaveLength(1);
    expect(await t.db("lock_test_holds").where({ event_id: 1 })).toHaveLength(1);
  });

  it("refuses to run after another statement of the same transaction", async () => {
    await expect(
      t.db.transaction(async (trx) => {
        await trx("events").where({ id: 2 }).first();
        await lockForUpdate(trx, "events", 2);
      }),
    ).rejects.toThrow("lockForUpdate(events) must be the first statement of its transaction");
  });

  it("answers undefined for a row that does not exist", async () => {
    expect(await t.db.transaction((trx) => lockForUpdate(trx, "events", 999))).toBeUndefined();
  });
});

describe("lockingTransaction", () => {
  it("runs a deadlock's victim again instead of failing it: two transactions locking two rows in opposite orders both commit", async () => {
    const [a, b] = await t.db("events").orderBy("id").limit(2).pluck("id");
    let attempts = 0;
    // On MySQL both first attempts hold their first row before either asks for its second (a barrier, not a sleep: a
    // loaded machine would run them one after the other); SQLite runs one transaction at a time, so nothing waits.
    let firstLocks = 0;
    let bothLocked!: () => void;
    const crossed = new Promise<void>((resolve) => (bothLocked = resolve));
    const crossing = (first: number, second: number) =>
      lockingTransaction(t.db, async (trx) => {
        attempts += 1;
        const firstAttempt = attempts <= 2;
        await trx("events").where({ id: first }).forUpdate().first("id");
        if (t.backend === "mysql" && firstAttempt) {
          if (++firstLocks === 2) bothLocked();
          await crossed;
        }
        await trx("events").where({ id: second }).forUpdate().first("id");
        await trx("events").where({ id: first }).update({ capacity: trx.raw("capacity") });
        return first;
      });
    expect(await Promise.all([crossing(a, b), crossing(b, a)])).toEqual([a, b]);
    // On MySQL one of them was picked as the deadlock's victim and ran again; SQLite runs them one after the other.
    expect(attempts).toBe(t.backend === "mysql" ? 3 : 2);
  });

  it("gives up after a bounded number of attempts, with the database's own error", async () => {
    let attempts = 0;
    const deadlock = Object.assign(new Error("Deadlock found when trying to get lock"), { errno: 1213, code: "ER_LOCK_DEADLOCK" });
    await expect(
      lockingTransaction(t.db, async () => {
        attempts += 1;
        throw deadlock;
      }),
    ).rejects.toBe(deadlock);
    expect(attempts).toBe(CONTENTION_ATTEMPTS);
    expect(isContention(new Error("other"))).toBe(false);
  });
});
