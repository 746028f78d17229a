/**
 * Issue 41 item 7: a code applied in one tab while the card is confirmed in another. Whatever the interleaving, the
 * answer and the outcome agree: 200 "applied" means the registration has the code and was paid the discounted amount;
 * 409 "nothing changed" means it has no code and was paid the list price. The payment is never in review because of
 * a code that was refused. On MySQL in the integration-mysql project (the race needs real row locks).
 */
import { describe, expect, it } from "vitest";
import { bookingApp } from "./helpers.ts";
import { visitor } from "../../../support/http.ts";
import { insertCode } from "../../../../src/discounts/repository.ts";

// Stripe's webhooks are delivered: the one the confirmation sends can land while the code is being applied.
const t = bookingApp({
  async setup(app) {
    await insertCode(app.db, { code: "TABRACE10", type: "percent", value: 10, eventId: null, kind: "both", maxRedemptions: null, startsAt: null, expiresAt: null }, new Date());
    await insertCode(app.db, { code: "TABFREE", type: "percent", value: 100, eventId: null, kind: "both", maxRedemptions: null, startsAt: null, expiresAt: null }, new Date());
  },
});

const ATHLETE = {
  firstName: "Jo", lastName: "Park", email: "jo.park@example.com", phone: "(205) 555-0170", grade: "9th", gender: "Female",
  schoolName: "Central High", emergencyContactName: "Kim Park", emergencyContactPhone: "205-555-0171", adult: "on", agrees: "on",
};
const LIST = 29900;
const DISCOUNTED = 26910;
let seq = 0;

async function payingTwoTabs(delayMs: number, action: "apply" | "remove" | "free" = "apply") {
  const n = ++seq;
  const v = await visitor(t.app);
  const ip = `198.51.101.${(n % 250) + 1}`;
  const held = await v.post("/api/events/2/create-payment-intent").set("x-forwarded-for", ip)
    .send({ option: "full", formSessionId: `code-tab-${Date.now()}-${n}`, registrationData: { ...ATHLETE, registrationType: "full" } });
  expect(held.status, JSON.stringify(held.body)).toBe(200);
  const reference = held.body.registrationId as string;
  const intentId = (held.body.clientSecret as string).split("_secret_")[0]!;
  const apply = () => v.post("/api/validate-discount").set("x-forwarded-for", ip).send({ discountCode: action === "free" ? "TABFREE" : "TABRACE10", originalPrice: 299, eventId: 2 });
  if (action === "remove") expect((await apply()).status).toBe(200);
  const [code] = await Promise.all([
    action !== "remove" ? apply() : v.post("/api/validate-discount").set("x-forwarded-for", ip).send({ eventId: 2, remove: true }),
    (async () => {
      await new Promise((r) => setTimeout(r, delayMs));
      // The other tab's card, charged whatever amount the PaymentIntent asks for at that instant.
      t.fake.confirm(intentId, { number: "4242 4242 4242 4242" });
    })(),
  ]);
  // A free registration is completed by its own button; the card confirmed meanwhile was refused (canceled).
  if (action === "free" && code.status === 200) {
    const free = await v.post("/api/events/2/stripe-payment-success").set("x-forwarded-for", ip).send({ freeRegistration: true, discountCode: "TABFREE", eventId: 2, amount: 0, paymentIntentId: `free_registration_${n}` });
    expect(free.status, JSON.stringify(free.body)).toBe(200);
    return { reference, intentId, code };
  }
  // The browser's return comes after (the webhook may have come already); one waiting for the amount change is sent again.
  let settled = "";
  for (let i = 0; i < 50 && settled !== "paid"; i++) {
    const ret = await v.post("/api/events/2/stripe-payment-success").set("x-forwarded-for", ip).send({ paymentIntentId: intentId });
    settled = ret.body.status;
    if (settled !== "paid") await new Promise((r) => setTimeout(r, 20));
  }
  return { reference, intentId, code };
}

describe("a code applied in another tab while the card is confirmed", () => {
  it("answers what happened: applied and paid discounted, or nothing changed and paid in full; never in review (30 runs)", async () => {
    const outcomes = { applied: 0, refused: 0 };
    for (let round = 0; round < 3; round++) {
      const runs = await Promise.all(Array.from({ length: 10 }, (_, i) => payingTwoTabs((i * 41 + round * 13) % 400)));
      await t.fake.idle();
      for (const { reference, intentId, code } of runs) {
        expect([200, 409], JSON.stringify(code.body)).toContain(code.status);
        const r = await t.db("registrations").where({ reference }).first();
        const redemption = await t.db("discount_redemptions").where({ registration_id: r.id }).whereNot({ status: "released" }).first();
        const payments = await t.db("payments").where({ kind: "registration", reference });
        const charged = t.fake.intents.get(intentId)!;
        expect(charged.status).toBe("succeeded");
        expect(payments.map((p: { status: string }) => p.status), reference).toEqual(["paid"]);
        expect(r.status, reference).toBe("paid");
        if (code.status === 200) {
          outcomes.applied++;
          expect(code.body).toMatchObject({ valid: true });
          expect({ amount: Number(r.amount_cents), paid: Number(r.amount_paid_cents), charged: charged.amount, code: redemption?.status }).toEqual({ amount: DISCOUNTED, paid: DISCOUNTED, charged: DISCOUNTED, code: "redeemed" });
        } else {
          outcomes.refused++;
          // Refused while the card is confirmed, or after the payment settled (the checkout is no longer pending).
          expect(code.body.message).toMatch(/can no longer change it|There is no registration waiting for payment/);
          expect({ amount: Number(r.amount_cents), paid: Number(r.amount_paid_cents), charged: charged.amount, code: redemption }).toEqual({ amount: LIST, paid: LIST, charged: LIST, code: undefined });
        }
      }
    }
    expect(outcomes.applied + outcomes.refused).toBe(30);
  });

  it("a code that makes it free while the card is confirmed: free and nothing charged, or nothing changed and paid in full (30 runs)", async () => {
    for (let round = 0; round < 3; round++) {
      const runs = await Promise.all(Array.from({ length: 10 }, (_, i) => payingTwoTabs((i * 41 + round * 13) % 400, "free")));
      await t.fake.idle();
      for (const { reference, intentId, code } of runs) {
        expect([200, 409], JSON.stringify(code.body)).toContain(code.status);
        const r = await t.db("registrations").where({ reference }).first();
        const redemption = await t.db("discount_redemptions").where({ registration_id: r.id }).whereNot({ status: "released" }).first();
        const payments = (await t.db("payments").where({ kind: "registration", reference })).map((p: { status: string }) => p.status).sort();
        const charged = t.fake.intents.get(intentId)!;
        expect(r.status, reference).toBe("paid");
        if (code.status === 200) {
          expect({ amount: Number(r.amount_cents), intent: charged.status, code: redemption?.status, payments }).toEqual({ amount: 0, intent: "canceled", code: "redeemed", payments: ["canceled", "paid"] });
        } else {
          expect({ amount: Number(r.amount_cents), paid: Number(r.amount_paid_cents), charged: charged.amount, intent: charged.status, code: redemption, payments }).toEqual({ amount: LIST, paid: LIST, charged: LIST, intent: "succeeded", code: undefined, payments: ["paid"] });
        }
      }
    }
  });

  it("removing the code while the card is confirmed: removed and paid in full, or nothing changed and paid discounted (30 runs)", async () => {
    for (let round = 0; round < 3; round++) {
      const runs = await Promise.all(Array.from({ length: 10 }, (_, i) => payingTwoTabs((i * 41 + round * 13) % 400, "remove")));
      await t.fake.idle();
      for (const { reference, intentId, code } of runs) {
        expect([200, 409], JSON.stringify(code.body)).toContain(code.status);
        const r = await t.db("registrations").where({ reference }).first();
        const redemption = await t.db("discount_redemptions").where({ registration_id: r.id }).whereNot({ status: "released" }).first();
        const payments = await t.db("payments").where({ kind: "registration", reference });
        const charged = t.fake.intents.get(intentId)!;
        expect(payments.map((p: { status: string }) => p.status), reference).toEqual(["paid"]);
        expect(r.status, reference).toBe("paid");
        const expected = code.status === 200 ? { amount: LIST, paid: LIST, charged: LIST, code: undefined } : { amount: DISCOUNTED, paid: DISCOUNTED, charged: DISCOUNTED, code: "redeemed" };
        expect({ amount: Number(r.amount_cents), paid: Number(r.amount_paid_cents), charged: charged.amount, code: redemption?.status }).toEqual(expected);
      }
    }
  });
});
