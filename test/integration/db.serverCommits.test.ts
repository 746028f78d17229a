import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { backend, createTestApp, type TestApp } from "../support/app.ts";
import { admitPlaces } from "../../src/events/places.ts";
import { lockForUpdate } from "../../src/db/locks.ts";

/**
 * A transaction whose last statement COMMITs inside MySQL (`admit_places`) ends without knex's COMMIT
 * (src/db/serverCommits.ts): its writes are committed, its value returned, its connection back in the pool.
 */
let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
  await t.db.schema.createTable("server_commit_rows", (table) => {
    table.increments("id");
    table.string("note").notNullable();
  });
  await t.db("event_places").insert({ event_id: 2, taken: 0 }).onConflict("event_id").ignore();
});
afterAll(async () => {
  await t?.close();
});

const taken = async () => Number((await t.db("event_places").where({ event_id: 2 }).first())!.taken);

/** A row written, then the admission as the transaction's last statement; the statements knex sent. */
async function admit(places: number, note: string): Promise<{ value: string | undefined; sql: string[] }> {
  const sql: string[] = [];
  const listener = (q: { sql: string }) => sql.push(q.sql.trim().toLowerCase());
  t.db.on("query", listener);
  try {
    const value = await t.db
      .transaction(async (trx) => {
        await trx("server_commit_rows").insert({ note });
        if (!(await admitPlaces(trx, 2, places))) throw new Error("not admitted");
        return note;
      })
      .catch(() => undefined);
    return { value, sql };
  } finally {
    t.db.off("query", listener);
  }
}

describe.runIf(backend === "mysql")("a transaction committed inside the server", () => {
  it("sends no COMMIT after admit_places took the places; its writes are committed and its value returned", async () => {
    const before = await taken();
    const { value, sql } = await admit(1, "admitted");
    expect(value).toBe("admitted");
    expect(sql.at(-1)).toBe("call admit_places(?, ?)");
    expect(sql.some((s) => s.startsWith("commit"))).toBe(false);
    expect(await taken()).toBe(before + 1);
    expect(await t.db("server_commit_rows").where({ note: "admitted" })).toHaveLength(1);
  });

  it("rolls back as before when admit_places took nothing: the ROLLBACK is sent and nothing is written", async () => {
    const before = await taken();
    const { value, sql } = await admit(10_000, "refused");
    expect(value).toBeUndefined();
    expect(sql.at(-1)).toMatch(/^rollback/);
    expect(await taken()).toBe(before);
    expect(await t.db("server_commit_rows").where({ note: "refused" })).toHaveLength(0);
  });

  it("gives every connection back: more such transactions than the pool holds, then ordinary ones, all run", async () => {
    const before = await taken();
    const results = await Promise.all(Array.from({ length: 40 }, (_, i) => admit(1, `many-${i}`)));
    expect(results.every((r) => r.value !== undefined)).toBe(true);
    expect(await taken()).toBe(before + 40);
    // An ordinary transaction after them still starts with its lock (nothing remembered of the ended ones) and commits.
    await t.db.transaction(async (trx) => {
      await lockForUpdate(trx, "events", 2);
      await trx("server_commit_rows").insert({ note: "ordinary" });
    });
    expect(await t.db("server_commit_rows").where({ note: "ordinary" })).toHaveLength(1);
  });
});
