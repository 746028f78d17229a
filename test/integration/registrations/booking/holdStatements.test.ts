import { describe, expect, it } from "vitest";
import { bookingApp } from "./helpers.ts";
import { visitor } from "../../../support/http.ts";
import { toDate } from "../../../../src/db/rows.ts";

/**
 * What one hold sends to the database, through the real route (the statements as knex sends them: BEGIN and COMMIT
 * count): the event's count is moved by the transaction's last statement before COMMIT, so its row is locked only
 * from there to COMMIT; and the whole hold, its PaymentIntent included, stays within the statements measured.
 */
const t = bookingApp({ webhooks: "asIs" });

const ATHLETE = {
  firstName: "Maya", lastName: "Okafor", email: "maya.okafor@example.com", phone: "(205) 555-0100", grade: "9th", gender: "Female",
  schoolName: "Central High", emergencyContactName: "Ada Okafor", emergencyContactPhone: "205-555-0199", adult: "on", agrees: "on",
};
/**
 * Measured (docs/performance.md: Opening day, second design: fewer statements): 21 before, the old design 38. On MySQL
 * five fewer: no COMMIT after admit_places_then, BEGIN, the visitor's lock and its places held are one call
 * (begin_hold), and the athlete's and days' inserts go in the admission's call (src/db/deferredWrites.ts).
 */
const MOST_STATEMENTS = { sqlite: 10, mysql: 5 } as const;

describe("one hold's statements", () => {
  it("moves the event's count with the last statement before COMMIT, and sends at most the statements measured", async () => {
    const v = await visitor(t.app);
    const send = (form: string) =>
      v.post("/api/events/2/create-payment-intent").set("x-forwarded-for", "203.0.113.77").send({ option: "1day", formSessionId: form, registrationData: { ...ATHLETE, registrationType: "1day", day1: true } });
    expect((await send(`warm-${Date.now()}`)).status).toBe(200);
    const sql: string[] = [];
    // The kept events' version check (content_versions) is not the hold's: without a live Redis subscription it is
    // read at most every 250 ms, shared by every request, so whether this request pays for it depends on the clock.
    const listener = (q: { sql: string }) => {
      const s = q.sql.trim().toLowerCase();
      if (!s.includes("content_versions")) sql.push(s);
    };
    t.db.on("query", listener);
    const form = `counted-${Date.now()}`;
    const res = await send(form);
    t.db.off("query", listener);
    expect(res.status).toBe(200);
    // The answer is built from what the hold wrote, not read back: it says what a read of the rows says.
    const row = await t.db("registrations").where({ form_session_id: form }).first();
    expect(res.body.registrationId).toBe(row.reference);
    expect(res.body.reservedUntil).toBe(toDate(row.reserved_until)!.toISOString());
    expect(res.body.amount * 100).toBe(Number(row.amount_cents));
    const payment = await t.db("payments").where({ reference: row.reference }).first();
    expect(payment).toMatchObject({ status: "pending", amount_cents: Number(row.amount_cents), covers_version: 1 });
    expect(res.body.clientSecret).toMatch(new RegExp(`^${payment.provider_payment_id}_secret`));
    const admission = sql.findIndex((s) => /^(update event_places set taken = taken \+ \?|call admit_places_then\(\?, \?, \?, \?\))/.test(s));
    expect(admission).toBeGreaterThan(0);
    expect(sql.filter((s) => s.includes("event_places") || s.includes("admit_places"))).toHaveLength(1);
    // On MySQL the statement runs in admit_places_then, which COMMITs inside the server: knex sends no COMMIT after it.
    if (t.backend === "mysql") expect(sql.filter((s) => s.startsWith("commit"))).toEqual([]);
    else expect(sql[admission + 1]).toMatch(/^commit/);
    // On MySQL the transaction is begun by begin_hold, which locks the visitor and reads its places: no BEGIN of knex's.
    if (t.backend === "mysql") expect(sql[0]).toBe("call begin_hold(?, ?, ?)");
    expect(sql.filter((s) => /^(begin|start transaction)/.test(s))).toHaveLength(t.backend === "mysql" ? 0 : 1);
    expect(sql.length, sql.join("\n")).toBeLessThanOrEqual(MOST_STATEMENTS[t.backend]);
    // The athlete and the days are written, on MySQL by the admission's call and not by statements of their own.
    const athletes = await t.db("registration_athletes").where({ registration_id: row.id });
    expect(athletes.map((a) => [a.first_name, a.last_name, a.email])).toEqual([[ATHLETE.firstName, ATHLETE.lastName, ATHLETE.email]]);
    expect(await t.db("registration_days").where({ registration_id: row.id })).toHaveLength(1);
    const ownInserts = sql.filter((s) => /^insert into .registration_(athletes|days)./.test(s));
    expect(ownInserts).toHaveLength(t.backend === "mysql" ? 0 : 2);
  });

  it("a hold refused for want of places ends with the admission's statement on MySQL: no ROLLBACK, no read of why after it", async () => {
    const v = await visitor(t.app);
    const event = await t.db("events").where({ id: 2 }).first("capacity");
    const counted = await t.db("event_places").where({ event_id: 2 }).first("taken");
    // No place left by the count.
    await t.db("event_places").where({ event_id: 2 }).update({ taken: Number(event.capacity) });
    const sql: string[] = [];
    const listener = (q: { sql: string }) => {
      const s = q.sql.trim().toLowerCase();
      if (!s.includes("content_versions")) sql.push(s);
    };
    const form = `refused-${Date.now()}`;
    try {
      t.db.on("query", listener);
      const res = await v.post("/api/events/2/create-payment-intent").set("x-forwarded-for", "203.0.113.78").send({
        option: "1day", formSessionId: form, registrationData: { ...ATHLETE, registrationType: "1day", day1: true },
      });
      t.db.off("query", listener);
      expect(res.status).toBe(409);
      expect(res.body.error).toBe("This event is sold out: every place is taken or held. Please choose another event.");
      // Nothing of the refused form is written, on MySQL not even sent.
      expect(await t.db("registrations").where({ form_session_id: form })).toHaveLength(0);
      if (t.backend === "mysql") expect(sql.filter((s) => /^insert into .registration_(athletes|days)./.test(s))).toEqual([]);
      const admission = sql.findIndex((s) => /^(update event_places set taken = taken \+ \?|call admit_places_then\(\?, \?, \?, \?\))/.test(s));
      expect(admission).toBeGreaterThan(0);
      if (t.backend === "mysql") expect(sql.slice(admission + 1), sql.join("\n")).toEqual([]);
      else expect(sql[admission + 1]).toMatch(/^rollback/);
    } finally {
      t.db.off("query", listener);
      await t.db("event_places").where({ event_id: 2 }).update({ taken: Number(counted.taken) });
    }
  });
});
