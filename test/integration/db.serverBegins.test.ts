import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { backend, createTestApp, type TestApp } from "../support/app.ts";
import type { ServerBegin } from "../../src/db/serverBegins.ts";
import { beginHold, placesHeldAtBegin, placesHeldBy } from "../../src/registrations/core/tables/holds.ts";

/**
 * A transaction begun by a stored procedure (`begin_hold`) instead of knex's BEGIN (src/db/serverBegins.ts): one
 * round trip for BEGIN, the visitor's lock and the places it holds; its writes commit or roll back with the work's,
 * and a failed begin leaves no transaction open on the connection.
 */
let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => {
  await t?.close();
});

const holder = { session: "a".repeat(40), address: "b".repeat(40) };
const visitorRows = async () => (await t.db("hold_visitors").whereIn("holder", [holder.session, holder.address]).orderBy("holder")).map((r) => r.holder as string);

/** Runs `work` in a transaction begun by `begin`; the statements knex sent. */
async function run<T>(begin: ServerBegin, work: (trx: Parameters<Parameters<TestApp["db"]["transaction"]>[0]>[0]) => Promise<T>): Promise<{ value?: T; error?: Error; sql: string[] }> {
  const sql: string[] = [];
  const listener = (q: { sql: string }) => sql.push(q.sql.trim().toLowerCase());
  t.db.on("query", listener);
  try {
    const value = await t.db.transaction(work, { beginWith: begin } as never);
    return { value, sql };
  } catch (err) {
    return { error: err as Error, sql };
  } finally {
    t.db.off("query", listener);
  }
}

describe.runIf(backend === "mysql")("a transaction begun inside the server", () => {
  it("sends begin_hold instead of BEGIN; the visitor's rows and its held places (as placesHeldBy reads them) come with it; a thrown work rolls it all back", async () => {
    const now = new Date();
    await t.db("registrations").insert({
      reference: "RBEGIN01", event_id: 2, kind: "individual", status: "pending_payment", places: 2, package_code: "full", package_label: "Full", list_price_cents: 100,
      amount_cents: 100, contact_first_name: "A", contact_last_name: "B", contact_email: "a@example.com", contact_phone: "5551234567", form_session_id: "begin-form-1",
      reserved_until: new Date(now.getTime() + 60_000), agreed_at: now, created_at: now, updated_at: now, holder_session: holder.session, holder_address: "c".repeat(40),
    });
    const begin = beginHold(holder, now);
    const thrown = await run(begin, async (trx) => {
      expect(await visitorRows()).toEqual([]); // another connection: nothing committed yet
      expect(placesHeldAtBegin(begin)).toEqual(await placesHeldBy(trx, holder, now));
      throw new Error("changed its mind");
    });
    expect(thrown.error?.message).toBe("changed its mind");
    expect(thrown.sql[0]).toBe("call begin_hold(?, ?, ?)");
    expect(thrown.sql.some((s) => s.startsWith("begin"))).toBe(false);
    expect(placesHeldAtBegin(begin)).toEqual({ session: 2, address: 0 });
    expect(await visitorRows()).toEqual([]);

    const committed = await run(beginHold(holder, now), async () => "held");
    expect(committed.value).toBe("held");
    expect(await visitorRows()).toEqual([holder.session, holder.address]);
  });

  it("a begin that fails after its START TRANSACTION fails the transaction before the work runs, and leaves no transaction open on its connection", async () => {
    await t.db.raw("drop procedure if exists begin_then_fail");
    await t.db.raw(`create procedure begin_then_fail() modifies sql data begin
      start transaction;
      insert into hold_visitors (holder) values ('left-open');
      signal sqlstate '45000' set message_text = 'the begin failed';
    end`);
    let ran = false;
    const failed = await run({ sql: "call begin_then_fail()", bindings: [] }, async () => {
      ran = true;
    });
    expect(failed.error?.message).toMatch(/the begin failed/);
    expect(ran).toBe(false);
    // Every connection of the pool begins and commits a transaction: one left open would commit its row here.
    await Promise.all(Array.from({ length: 30 }, () => t.db.transaction(async (trx) => void (await trx.raw("select sleep(0.05)")))));
    expect(await t.db("hold_visitors").where({ holder: "left-open" })).toHaveLength(0);
  });
});
