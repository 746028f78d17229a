import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { Knex } from "knex";
import { createTestApp, type TestApp } from "../support/app.ts";
import { batchedLockingTransaction } from "../../src/db/rowQueue.ts";
import { DomainError } from "../../src/errors.ts";

/**
 * Group commit (src/db/rowQueue.ts): the works queued for one row are decided in one locking transaction, each in its
 * own savepoint. Works started in the same tick all wait for the key's next batch, so each test's works form one.
 */
let t: TestApp;
let eventId: number;
let otherId: number;
const KEY = "batch-test";

beforeAll(async () => {
  t = await createTestApp();
  await t.db.schema.createTable("batch_test_holds", (table) => {
    table.increments("id");
    table.integer("event_id").notNullable();
    table.string("who").notNullable();
  });
  await t.db.schema.createTable("batch_test_weight", (table) => {
    table.increments("id");
    table.integer("n").notNullable();
  });
  [eventId, otherId] = await t.db("events").orderBy("id").limit(2).pluck("id");
});
afterAll(async () => {
  await t?.close();
});
beforeEach(async () => {
  await t.db("batch_test_holds").delete();
});

const rows = async () => (await t.db("batch_test_holds").orderBy("id").select("who")).map((r: { who: string }) => r.who);

describe("batchedLockingTransaction", () => {
  it("decides every queued work in one transaction: a refused work rolls back only its own writes and gets its own answer", async () => {
    let locks = 0;
    const lock = async (trx: Knex.Transaction) => {
      locks += 1;
      await trx("events").where({ id: eventId }).forUpdate().first("id");
    };
    /** One place each while fewer than 3 are taken; "capped" writes its row and then is refused, as a cap check would. */
    const hold = (who: string) =>
      batchedLockingTransaction(t.db, KEY, lock, async (trx) => {
        await trx("events").where({ id: eventId }).forUpdate().first("id");
        const taken = Number((await trx("batch_test_holds").where({ event_id: eventId }).count({ n: "*" }).first())?.n ?? 0);
        if (taken >= 3) throw new DomainError("conflict", `sold out for ${who}`);
        await trx("batch_test_holds").insert({ event_id: eventId, who });
        if (who === "capped") throw new DomainError("conflict", "over the cap");
        return `${who} held place ${taken + 1}`;
      });
    const answers = await Promise.allSettled(["a", "b", "capped", "c", "d"].map(hold));
    expect(answers).toEqual([
      { status: "fulfilled", value: "a held place 1" },
      { status: "fulfilled", value: "b held place 2" },
      { status: "rejected", reason: new DomainError("conflict", "over the cap") },
      { status: "fulfilled", value: "c held place 3" },
      { status: "rejected", reason: new DomainError("conflict", "sold out for d") },
    ]);
    expect(await rows()).toEqual(["a", "b", "c"]);
    expect(locks, "one transaction locked the row for all five").toBe(1);
  });

  it("runs the whole batch again when it loses a deadlock, and writes each work once", async () => {
    let locks = 0;
    // Each side waits for the other to hold its first row (never for a time: a loaded machine would run them apart).
    let batchHasItsLock!: () => void;
    const batchLocked = new Promise<void>((resolve) => (batchHasItsLock = resolve));
    const lock = async (trx: Knex.Transaction) => {
      locks += 1;
      await trx("events").where({ id: eventId }).forUpdate().first("id");
      batchHasItsLock();
    };
    let otherHasItsLock!: () => void;
    const otherLocked = new Promise<void>((resolve) => (otherHasItsLock = resolve));
    let crossed = false;
    // A heavier transaction (InnoDB rolls back the lighter one) that locks the other row, then wants the batch's.
    const crossing =
      t.backend === "mysql"
        ? t.db.transaction(async (trx) => {
            await trx("batch_test_weight").insert(Array.from({ length: 50 }, (_, n) => ({ n })));
            await trx("events").where({ id: otherId }).forUpdate().first("id");
            otherHasItsLock();
            await batchLocked;
            await trx("events").where({ id: eventId }).forUpdate().first("id");
          })
        : Promise.resolve();
    const work = (who: string) =>
      batchedLockingTransaction(t.db, KEY, lock, async (trx) => {
        await trx("batch_test_holds").insert({ event_id: eventId, who });
        if (who === "b" && !crossed) {
          crossed = true;
          if (t.backend === "mysql") {
            await otherLocked;
            await trx("events").where({ id: otherId }).forUpdate().first("id");
          } else {
            // SQLite has no deadlocks: its contention error is a busy database.
            throw Object.assign(new Error("database is locked"), { code: "SQLITE_BUSY" });
          }
        }
        return who;
      });
    const answers = await Promise.all(["a", "b", "c"].map(work));
    await crossing;
    expect(answers).toEqual(["a", "b", "c"]);
    expect(await rows()).toEqual(["a", "b", "c"]);
    expect(locks, "the batch ran twice").toBe(2);
  });

  it("fails every work of the batch with any other error, and writes nothing", async () => {
    const broken = new Error("not a decision");
    const lock = (trx: Knex.Transaction) => trx("events").where({ id: eventId }).forUpdate().first("id");
    const work = (who: string) =>
      batchedLockingTransaction(t.db, KEY, lock, async (trx) => {
        await trx("batch_test_holds").insert({ event_id: eventId, who });
        if (who === "b") throw broken;
        return who;
      });
    const answers = await Promise.allSettled(["a", "b", "c"].map(work));
    expect(answers).toEqual([
      { status: "rejected", reason: broken },
      { status: "rejected", reason: broken },
      { status: "rejected", reason: broken },
    ]);
    expect(await rows()).toEqual([]);
  });
});
