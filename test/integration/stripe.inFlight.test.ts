import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, type TestApp } from "../support/app.ts";
import { visitor } from "../support/http.ts";
import { PAYMENT_STILL_CONFIRMING } from "../../src/registrations/core/money/payment.ts";

/**
 * The same form sent again while Stripe still runs its first request (slow or hung, its idempotency key in flight):
 * the visitor reads that the card company is still confirming, the hold stays, and the form works once Stripe answers.
 */
let t: TestApp;

beforeAll(async () => {
  t = await createTestApp({ TRUST_PROXY_HOPS: "1" });
});
afterAll(async () => {
  t.gateway.offline!.latencyMs = 0;
  await t?.close();
});

const ATHLETE = {
  firstName: "Slow", lastName: "Stripe", email: "slow.stripe@example.com", phone: "(205) 555-0100", grade: "10th", gender: "Male",
  schoolName: "Central High", clubName: "Steel City WC", emergencyContactName: "Pat Stripe", emergencyContactPhone: "205-555-0199", adult: "on", agrees: "on",
};

describe("a retry while Stripe still runs the first request", () => {
  it("says 'still confirming with the card company, try again in a minute' (409, never a 502), keeps the hold, and then works", async () => {
    const fake = t.gateway.offline!;
    const v = await visitor(t.app);
    const formSessionId = `in-flight-${Date.now()}`;
    const start = () => v.post("/api/events/1/create-payment-intent").set("x-forwarded-for", "203.0.113.41").send({ option: "full", formSessionId, registrationData: { ...ATHLETE, registrationType: "full" } });
    fake.latencyMs = 12_000;
    const first = await start();
    const again = await start();
    fake.latencyMs = 0;
    for (const res of [first, again]) {
      expect(res.status).toBe(409);
      expect(res.body).toMatchObject({ success: false, userFriendlyMessage: PAYMENT_STILL_CONFIRMING });
    }
    expect(await t.db("registrations").where({ form_session_id: formSessionId }).first("status")).toMatchObject({ status: "pending_payment" });
    // Once Stripe has answered the first request, the same form gets its PaymentIntent.
    let res = await start();
    for (let i = 0; i < 100 && res.status !== 200; i++) {
      await new Promise((r) => setTimeout(r, 200));
      res = await start();
    }
    expect(res.status).toBe(200);
    expect(res.body.clientSecret).toMatch(/^pi_/);
  });
});
