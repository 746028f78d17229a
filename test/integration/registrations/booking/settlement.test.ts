import { describe, expect, it } from "vitest";
import { bookingApp } from "./helpers.ts";
import { visitor } from "../../../support/http.ts";

/**
 * Opening day's settlement: a hold paid well within its time is settled under its registration's lock alone, so the
 * confirmation after the card never waits for the event's lock that every hold of the event queues for; a hold paid
 * in its last minute, or after it lapsed, takes every lock in order (src/registrations/booking/paymentHandler.ts).
 */
const t = bookingApp({ webhooks: "never" });

const ATHLETE = {
  firstName: "Maya", lastName: "Okafor", email: "maya.okafor@example.com", phone: "(205) 555-0100", grade: "9th", gender: "Female",
  schoolName: "Central High", emergencyContactName: "Ada Okafor", emergencyContactPhone: "205-555-0199", adult: "on", agrees: "on",
};
let seq = 0;

/** A family holds a 1-day place at event 2 and pays it at the fake Stripe; returns its reference and how to report back. */
async function heldAndCharged() {
  const v = await visitor(t.app);
  const ip = `198.51.100.${++seq}`;
  const held = await v
    .post("/api/events/2/create-payment-intent")
    .set("x-forwarded-for", ip)
    .send({ option: "1day", formSessionId: `settle-form-${seq}-${Date.now()}`, registrationData: { ...ATHLETE, registrationType: "1day", day1: true } });
  expect(held.status).toBe(200);
  const intentId = String(held.body.clientSecret).split("_secret_")[0]!;
  expect(t.fake.confirm(intentId, { number: "4242424242424242" }).status).toBe(200);
  const reference = String(held.body.registrationId);
  const report = () => v.post("/api/events/2/stripe-payment-success").set("x-forwarded-for", ip).send({ paymentIntentId: intentId });
  return { reference, report };
}

const statusOf = async (reference: string) => String((await t.db("registrations").where({ reference }).first("status")).status);

describe("settling a registration's payment", () => {
  it("pays a live hold while another transaction holds the event's lock (MySQL; SQLite has one connection, so there it is paid alone)", async () => {
    const { reference, report } = await heldAndCharged();
    if (t.backend !== "mysql") {
      expect((await report()).body.status).toBe("paid");
      expect(await statusOf(reference)).toBe("paid");
      return;
    }
    const order: string[] = [];
    let release!: () => void;
    const released = new Promise<void>((r) => (release = r));
    let locked!: () => void;
    const lockTaken = new Promise<void>((r) => (locked = r));
    const holder = t.db.transaction(async (trx) => {
      await trx("events").where({ id: 2 }).forUpdate().first("id");
      locked();
      await released;
      order.push("event lock released");
    });
    await lockTaken;
    // Whichever comes first: the answer (while the lock is held), or a readiness bound that lets the lock go.
    const bound = setTimeout(release, 8000);
    const answer = await report().then((res) => (order.push("answered"), res));
    release();
    clearTimeout(bound);
    await holder;
    expect(answer.status).toBe(200);
    expect(answer.body.status).toBe("paid");
    expect(order).toEqual(["answered", "event lock released"]);
    expect(await statusOf(reference)).toBe("paid");
  });

  it("pays a hold in its last minute with every lock, and refunds one that lapsed on a full event", async () => {
    const lapsing = await heldAndCharged();
    await t.db("registrations").where({ reference: lapsing.reference }).update({ reserved_until: new Date(Date.now() + 20_000) });
    expect((await lapsing.report()).body.status).toBe("paid");
    expect(await statusOf(lapsing.reference)).toBe("paid");

    const lapsed = await heldAndCharged();
    await t.db("registrations").where({ reference: lapsed.reference }).update({ reserved_until: new Date(Date.now() - 1000) });
    const capacity = Number((await t.db("events").where({ id: 2 }).first("capacity")).capacity);
    await t.db("events").where({ id: 2 }).update({ capacity: 0 });
    try {
      const res = await lapsed.report();
      expect(res.status).toBeLessThan(500);
      const payment = await t.db("payments").where({ kind: "registration", reference: lapsed.reference }).first("status");
      expect(["refund_pending", "refunded"]).toContain(payment.status);
      expect(await statusOf(lapsed.reference)).not.toBe("paid");
    } finally {
      await t.db("events").where({ id: 2 }).update({ capacity });
    }
  });
});
