import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { backend, createTestApp, type TestApp } from "../support/app.ts";
import { admitPlaces, type Refusal } from "../../src/events/places.ts";
import { committedByServer, rolledBackByServer } from "../../src/db/serverCommits.ts";
import { lockForUpdate } from "../../src/db/locks.ts";
import { deferWrites, writeDeferred } from "../../src/db/deferredWrites.ts";

/**
 * A transaction whose last statement COMMITs inside MySQL (`admit_places_then`) ends without knex's COMMIT
 * (src/db/serverCommits.ts): its writes are committed, its value returned, its connection back in the pool. Refused,
 * the statement rolls back inside MySQL and says why; knex sends no ROLLBACK and the transaction fails with the work's error.
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
async function admit(places: number, note: string): Promise<{ value: string | undefined; sql: string[]; refusal?: Refusal; error?: string }> {
  const sql: string[] = [];
  const listener = (q: { sql: string }) => sql.push(q.sql.trim().toLowerCase());
  t.db.on("query", listener);
  let refusal: Refusal | undefined;
  let error: string | undefined;
  try {
    const value = await t.db
      .transaction(async (trx) => {
        await trx("server_commit_rows").insert({ note });
        const admission = await admitPlaces(trx, 2, places, new Date());
        if (!admission.admitted) {
          refusal = admission.refusal;
          throw new Error("not admitted");
        }
        return note;
      })
      .catch((err: Error) => void (error = err.message));
    return { value: value ?? undefined, sql, refusal, error };
  } finally {
    t.db.off("query", listener);
  }
}

describe.runIf(backend === "mysql")("a transaction committed inside the server", () => {
  it("sends no COMMIT after admit_places_then took the places; its writes are committed and its value returned", async () => {
    const before = await taken();
    const { value, sql } = await admit(1, "admitted");
    expect(value).toBe("admitted");
    expect(sql.at(-1)).toBe("call admit_places_then(?, ?, ?, ?)");
    expect(sql.some((s) => s.startsWith("commit"))).toBe(false);
    expect(await taken()).toBe(before + 1);
    expect(await t.db("server_commit_rows").where({ note: "admitted" })).toHaveLength(1);
  });

  it("sends no ROLLBACK after admit_places_then refused: nothing is written, the work's error ends it, and it says why", async () => {
    const before = await taken();
    const capacity = Number((await t.db("events").where({ id: 2 }).first("capacity"))!.capacity);
    const { value, sql, refusal, error } = await admit(10_000, "refused");
    expect(value).toBeUndefined();
    expect(error).toBe("not admitted");
    expect(sql.at(-1)).toBe("call admit_places_then(?, ?, ?, ?)");
    expect(sql.some((s) => s.startsWith("rollback"))).toBe(false);
    expect(refusal).toEqual({ counted: true, free: capacity - before, lineWaits: false, lapsed: false });
    expect(await taken()).toBe(before);
    expect(await t.db("server_commit_rows").where({ note: "refused" })).toHaveLength(0);
  });

  it("fails work that returns as if its transaction were open after admit_places_then rolled it back", async () => {
    const before = await taken();
    const outcome = await t.db
      .transaction(async (trx) => {
        await trx("server_commit_rows").insert({ note: "went-on" });
        await admitPlaces(trx, 2, 10_000, new Date());
        return "went on";
      })
      .then(String, (err: Error) => err.message);
    expect(outcome).toBe("the transaction was rolled back inside the server; its work must throw");
    expect(await taken()).toBe(before);
    expect(await t.db("server_commit_rows").where({ note: "went-on" })).toHaveLength(0);
  });

  it("says that lapsed holds could give places back", async () => {
    const now = new Date();
    const [id] = await t.db("registrations").insert({
      reference: "LAPSEDSC", event_id: 2, kind: "individual", status: "pending_payment", places: 1, package_code: "full", package_label: "Full",
      list_price_cents: 100, amount_cents: 100, contact_first_name: "A", contact_last_name: "B", contact_email: "a@example.com", contact_phone: "5551234567",
      form_session_id: "server-commits-lapsed-0001", reserved_until: new Date(now.getTime() - 60_000), agreed_at: now, created_at: now, updated_at: now,
    });
    try {
      const { refusal } = await admit(10_000, "refused-lapsed");
      expect(refusal?.lapsed).toBe(true);
    } finally {
      await t.db("registrations").where({ id }).delete();
    }
  });

  it("answers the previous release's call, admit_places_or_why, as admit_places_then with no writes (a rolling deploy)", async () => {
    const before = await taken();
    const capacity = Number((await t.db("events").where({ id: 2 }).first("capacity"))!.capacity);
    const call = (places: number) =>
      t.db.transaction(async (trx) => {
        await trx("server_commit_rows").insert({ note: `previous-release-${places}` });
        const result = (await trx.raw("call admit_places_or_why(?, ?, ?)", [2, places, new Date()])) as unknown as [[Record<string, unknown>[]]];
        const row = result[0][0][0]!;
        if (Number(row.admitted) === 1) committedByServer(trx);
        else rolledBackByServer(trx);
        return row;
      }).catch((err: Error) => ({ error: err.message }));
    expect(await call(1)).toEqual({ admitted: 1 });
    expect(await taken()).toBe(before + 1);
    expect(await call(10_000)).toEqual({ error: "the transaction was rolled back inside the server; its work must throw" });
    expect(await taken()).toBe(before + 1);
    expect((await t.db("server_commit_rows").where("note", "like", "previous-release-%")).map((r) => r.note)).toEqual(["previous-release-1"]);
    expect(capacity).toBeGreaterThan(before + 1);
  });

  it("gives every connection back: more such transactions than the pool holds, then ordinary ones, all run", async () => {
    const before = await taken();
    const results = await Promise.all(Array.from({ length: 40 }, (_, i) => admit(1, `many-${i}`)));
    const refused = await Promise.all(Array.from({ length: 40 }, (_, i) => admit(10_000, `many-refused-${i}`)));
    expect(results.every((r) => r.value !== undefined)).toBe(true);
    expect(refused.every((r) => r.error === "not admitted")).toBe(true);
    expect(await taken()).toBe(before + 40);
    // An ordinary transaction after them still starts with its lock (nothing remembered of the ended ones) and commits.
    await t.db.transaction(async (trx) => {
      await lockForUpdate(trx, "events", 2);
      await trx("server_commit_rows").insert({ note: "ordinary" });
    });
    expect(await t.db("server_commit_rows").where({ note: "ordinary" })).toHaveLength(1);
  });
});

describe.runIf(backend === "mysql")("writes deferred to the end of the transaction", () => {
  /** Rows written through writeDeferred in a transaction told to defer, then `end`; the statements knex sent. */
  async function deferred(notes: string[], end: (trx: Parameters<Parameters<typeof t.db.transaction>[0]>[0]) => Promise<unknown>) {
    const sql: string[] = [];
    const listener = (q: { sql: string }) => sql.push(q.sql.trim().toLowerCase());
    t.db.on("query", listener);
    try {
      const outcome = await t.db
        .transaction(async (trx) => {
          deferWrites(trx);
          await trx("server_commit_rows").insert({ note: `${notes[0]}-own` });
          for (const note of notes) await writeDeferred(trx, trx("server_commit_rows").insert({ note }));
          await end(trx);
          return "done";
        })
        .then(String, (err: Error) => err.message);
      return { outcome, sql };
    } finally {
      t.db.off("query", listener);
    }
  }
  const notesLike = async (prefix: string) => (await t.db("server_commit_rows").where("note", "like", `${prefix}%`).orderBy("id")).map((r) => r.note);

  it("go in the admission's call, in order and as written (quotes, backslashes, other scripts), and are committed with it", async () => {
    const before = await taken();
    const notes = ["deferred-a", "deferred-b 'quoted' \\ back\\slash", "deferred-c Ünïcödé 🤼"];
    const { outcome, sql } = await deferred(notes, async (trx) => {
      const admission = await admitPlaces(trx, 2, 1, new Date());
      if (!admission.admitted) throw new Error("not admitted");
    });
    expect(outcome).toBe("done");
    expect(sql).toEqual(["begin;", "insert into `server_commit_rows` (`note`) values (?)", "call admit_places_then(?, ?, ?, ?)"]);
    expect(await notesLike("deferred-")).toEqual(["deferred-a-own", ...notes]);
    expect(await taken()).toBe(before + 1);
  });

  it("are never sent when the admission is refused", async () => {
    const before = await taken();
    const { outcome } = await deferred(["refused-deferred"], async (trx) => {
      const admission = await admitPlaces(trx, 2, 10_000, new Date());
      if (!admission.admitted) throw new Error("not admitted");
    });
    expect(outcome).toBe("not admitted");
    expect(await notesLike("refused-deferred")).toEqual([]);
    expect(await taken()).toBe(before);
  });

  it("that fail in the call fail the transaction: the places taken are given back with everything else", async () => {
    const before = await taken();
    const { outcome } = await deferred(["failing-deferred"], async (trx) => {
      // A write that cannot succeed, deferred after the good one: the column is NOT NULL.
      await writeDeferred(trx, trx("server_commit_rows").insert({ note: null as unknown as string }));
      await admitPlaces(trx, 2, 1, new Date());
    });
    expect(outcome).toMatch(/note/);
    expect(await notesLike("failing-deferred")).toEqual([]);
    expect(await taken()).toBe(before);
  });

  it("go with the COMMIT when no admission ends the transaction: one call in its place", async () => {
    const notes = ["commit-deferred-a", "commit-deferred-b"];
    const { outcome, sql } = await deferred(notes, async () => undefined);
    expect(outcome).toBe("done");
    expect(sql).toEqual(["begin;", "insert into `server_commit_rows` (`note`) values (?)", "call commit_then(?)"]);
    expect(await notesLike("commit-deferred-")).toEqual(["commit-deferred-a-own", ...notes]);
  });

  it("that fail with the COMMIT roll everything back and fail the transaction", async () => {
    const { outcome, sql } = await deferred(["commit-failing"], async (trx) => {
      await writeDeferred(trx, trx("server_commit_rows").insert({ note: null as unknown as string }));
    });
    expect(outcome).toMatch(/note/);
    expect(sql.at(-1)).toMatch(/^rollback/);
    expect(await notesLike("commit-failing")).toEqual([]);
  });

  it("are not lost to a statement that commits inside the server without taking them: the transaction fails", async () => {
    const { outcome } = await deferred(["lost-deferred"], async (trx) => {
      await trx.raw("commit");
      committedByServer(trx);
    });
    expect(outcome).toBe("writes deferred to the end of a transaction that committed without them");
  });
});
