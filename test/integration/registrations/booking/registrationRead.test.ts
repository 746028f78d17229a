import { describe, expect, it } from "vitest";
import { bookingApp } from "./helpers.ts";
import { backend } from "../../../support/app.ts";
import { visitor } from "../../../support/http.ts";
import { findByReference, lockByReference } from "../../../../src/registrations/core/tables/registrations.ts";
import { replaceDays, updateAthlete } from "../../../../src/registrations/core/tables/athletes.ts";
import { someoneWaits } from "../../../support/lockWaits.ts";

/**
 * A registration read whole (core/registration.ts readRegistration): on MySQL one statement, the row with its
 * athletes and days aggregated. Its locking read must answer the athletes and days as they stand once the lock is
 * granted, as the separate reads after the lock did: a transaction that changed them under the registration's lock
 * and committed while the read waited is seen.
 */
const t = bookingApp({ webhooks: "never" });

const ATHLETE = {
  firstName: "Maya", lastName: "Okafor", email: "maya.okafor@example.com", phone: "(205) 555-0100", grade: "9th", gender: "Female",
  schoolName: "Central High", emergencyContactName: "Ada Okafor", emergencyContactPhone: "205-555-0199", adult: "on", agrees: "on",
};

async function held(): Promise<string> {
  const v = await visitor(t.app);
  const res = await v.post("/api/events/2/create-payment-intent").set("x-forwarded-for", "203.0.113.90").send({ option: "full", formSessionId: `read-${Date.now()}`, registrationData: { ...ATHLETE, registrationType: "full" } });
  expect(res.status).toBe(200);
  return res.body.registrationId as string;
}

describe("a registration read whole", () => {
  it("answers the registration, its athletes and its days in one statement on MySQL", async () => {
    const reference = await held();
    const sql: string[] = [];
    const listener = (q: { sql: string }) => void sql.push(q.sql);
    t.db.on("query", listener);
    const r = await findByReference(t.db, reference);
    t.db.off("query", listener);
    expect(r).toMatchObject({ reference, status: "pending_payment", athletes: [{ position: 1, firstName: "Maya", waiver: null, withdrawnAt: null }] });
    expect(r!.dayIds.length).toBeGreaterThan(0);
    expect(sql).toHaveLength(backend === "mysql" ? 1 : 3);
  });

  it.skipIf(backend !== "mysql")("under its lock, sees the athletes and days written by the transaction it waited for", async () => {
    const reference = await held();
    const before = (await findByReference(t.db, reference))!;
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let locked!: () => void;
    const lockTaken = new Promise<void>((resolve) => (locked = resolve));
    const writer = t.db.transaction(async (trx) => {
      const r = (await lockByReference(trx, reference))!;
      await updateAthlete(trx, r.id, 1, { ...r.athletes[0]!, firstName: "Changed" });
      await replaceDays(trx, r.id, [r.dayIds[0]!]);
      locked();
      await released;
    });
    await lockTaken;
    const reader = t.db.transaction((trx) => lockByReference(trx, reference));
    await someoneWaits(t.db);
    release();
    await writer;
    const seen = (await reader)!;
    expect(seen.athletes[0]!.firstName).toBe("Changed");
    expect(seen.dayIds).toEqual([before.dayIds[0]]);
  });
});
