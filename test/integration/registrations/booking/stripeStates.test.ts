import { afterAll, describe, expect, it } from "vitest";
import { bookingApp } from "./helpers.ts";
import { textOf, visitor } from "../../../support/http.ts";
import { PROCESSING_HOLD_MS } from "../../../../src/registrations/booking/paymentHandler.ts";

/**
 * The states Stripe produces that a plain 4242 never does, on a registration: 3-D Secure (requires_action) and a
 * payment that stays `processing` until the webhook decides.
 */
const t = bookingApp({
  webhooks: "asIs",
  async eachTest(app) {
    app.fake.autoDeliver = true;
    app.fake.confirmProcessing = false;
    app.fake.processingOutcome = "succeeded";
    app.fake.processingSettleMs = null;
  },
});
afterAll(() => {
  t.fake.confirmProcessing = false;
});

const ATHLETE = {
  firstName: "Casey", lastName: "Lane", email: "casey.lane@example.com", phone: "(205) 555-0100", grade: "10th", gender: "Male",
  schoolName: "Central High", clubName: "Steel City WC", emergencyContactName: "Pat Lane", emergencyContactPhone: "205-555-0199", adult: "on", agrees: "on",
};
let n = 0;
async function held(address: string) {
  const v = await visitor(t.app);
  const res = await v.post("/api/events/2/create-payment-intent").set("x-forwarded-for", address)
    .send({ option: "full", formSessionId: `states-${Date.now()}-${n++}`, registrationData: { ...ATHLETE, registrationType: "full" } });
  expect(res.status).toBe(200);
  return { v, reference: res.body.registrationId as string, intentId: (res.body.clientSecret as string).split("_secret_")[0]! };
}
const registration = (reference: string) => t.db("registrations").where({ reference }).first();
const emails = (reference: string) => t.db("email_outbox").where({ reference: `registration:${reference}` });
const sweep = () => (t.app.locals.sweepExpiredHolds as () => Promise<number>)();

describe("a payment Stripe is still confirming (processing)", () => {
  it("keeps the hold (its places stay taken) until the webhook says succeeded: paid, one e-mail", async () => {
    t.fake.confirmProcessing = true;
    const { v, reference, intentId } = await held("198.51.100.61");
    const before = (await registration(reference)).reserved_until;
    expect(t.fake.confirm(intentId, { number: "4242424242424242" }).body).toMatchObject({ status: "processing" });
    const ret = await v.post("/api/events/2/stripe-payment-success").set("x-forwarded-for", "198.51.100.61").send({ paymentIntentId: intentId });
    expect(ret.status).toBe(202);
    expect(ret.body).toMatchObject({ status: "pending" });
    await t.fake.idle();
    const kept = await registration(reference);
    expect(kept.status).toBe("pending_payment");
    expect(new Date(kept.reserved_until).getTime()).toBeGreaterThan(Date.now() + PROCESSING_HOLD_MS - 60_000);
    expect(new Date(kept.reserved_until).getTime()).toBeGreaterThan(new Date(before).getTime());
    // The sweep leaves it (and would, even lapsed: Stripe says processing).
    await sweep();
    expect((await registration(reference)).status).toBe("pending_payment");
    // The confirmation page says processing, not "not confirmed".
    const waiting = await v.get(`/event-registration/2?paymentSuccess=true&paymentIntentId=${intentId}`);
    expect(textOf(waiting.text)).toContain("Your bank is still confirming the payment");

    t.fake.settleProcessing();
    await t.fake.idle();
    expect(await registration(reference)).toMatchObject({ status: "paid" });
    expect(await emails(reference)).toHaveLength(1);
    // Paid, however the page is reached: no query, Stripe's redirect parameters, a stale intent id.
    for (const query of ["", `?payment_intent=${intentId}&redirect_status=succeeded`, "?paymentSuccess=true&paymentIntentId=pi_stale"]) {
      expect(textOf((await v.get(`/event-registration/2${query}`)).text)).toContain("Payment Confirmed - Registration Complete!");
    }
  });
});

describe("3-D Secure (requires_action)", () => {
  it("Stripe's redirect back to /stripe-checkout (payment_intent, redirect_status) goes on to the confirmation", async () => {
    const res = await (await visitor(t.app)).get("/stripe-checkout?eventId=2&payment_intent=pi_123&payment_intent_client_secret=pi_123_secret_x&redirect_status=succeeded");
    expect(res.status).toBe(200);
    expect(res.headers.refresh).toBe("2; url=/event-registration/2?paymentSuccess=true&paymentIntentId=pi_123");
    expect(res.text).not.toContain("pi_123_secret_x");
  });

  it("a lapsed hold whose payer is in the challenge is not canceled; completing it pays the registration", async () => {
    const { v, reference, intentId } = await held("198.51.100.62");
    expect(t.fake.confirm(intentId, { number: "4000 0025 0000 3155" }).body).toMatchObject({ status: "requires_action" });
    await t.db("registrations").where({ reference }).update({ reserved_until: new Date(Date.now() - 60 * 60_000) });
    await sweep();
    expect(t.fake.intents.get(intentId)!.status).toBe("requires_action");
    expect((await registration(reference)).status).toBe("pending_payment");
    expect(t.fake.challenge(intentId, "complete").body).toMatchObject({ status: "succeeded" });
    const ret = await v.post("/api/events/2/stripe-payment-success").set("x-forwarded-for", "198.51.100.62").send({ paymentIntentId: intentId });
    expect(ret.body).toMatchObject({ status: "paid" });
    await t.fake.idle();
    expect(await registration(reference)).toMatchObject({ status: "paid" });
    expect(await emails(reference)).toHaveLength(1);
  });

  it("a failed challenge leaves the hold and the same intent payable", async () => {
    const { v, reference, intentId } = await held("198.51.100.63");
    t.fake.confirm(intentId, { number: "4000002500003155" });
    expect(t.fake.challenge(intentId, "fail").body).toMatchObject({ status: "requires_payment_method" });
    await t.fake.idle();
    expect(await registration(reference)).toMatchObject({ status: "pending_payment" });
    expect(t.fake.confirm(intentId, { number: "4242424242424242" }).status).toBe(200);
    const ret = await v.post("/api/events/2/stripe-payment-success").set("x-forwarded-for", "198.51.100.63").send({ paymentIntentId: intentId });
    expect(ret.body).toMatchObject({ status: "paid" });
  });
});

describe("a refund that fails", () => {
  it("leaves the registration paid, sends no 'refunded' e-mail, and is listed as failed for the operator", async () => {
    const { v, reference, intentId } = await held("198.51.100.64");
    t.fake.confirm(intentId, { number: "4242424242424242" });
    expect((await v.post("/api/events/2/stripe-payment-success").set("x-forwarded-for", "198.51.100.64").send({ paymentIntentId: intentId })).body).toMatchObject({ status: "paid" });
    await t.fake.idle();
    t.fake.refundBehaviour = "pending_then_failed";
    try {
      // Made in Stripe's dashboard (or by an operator's command): pending at first.
      await t.gateway.refundIntent(intentId, { idempotencyKey: `dashboard-${reference}`, reason: "operator" });
      await t.fake.idle();
      const payment = await t.db("payments").where({ provider_payment_id: intentId }).first();
      expect(await t.db("payment_refunds").where({ payment_id: payment.id }).first()).toMatchObject({ status: "pending" });
      expect(await registration(reference)).toMatchObject({ status: "paid" });
      t.fake.settleRefunds();
      await t.fake.idle();
      expect(await t.db("payment_refunds").where({ payment_id: payment.id }).first()).toMatchObject({ status: "failed", failure_reason: "expired_or_canceled_card" });
      expect(await registration(reference)).toMatchObject({ status: "paid", amount_refunded_cents: 0 });
      expect((await emails(reference)).map((e: { kind: string }) => e.kind)).toEqual(["registration_confirmation"]);
    } finally {
      t.fake.refundBehaviour = "immediate";
    }
  });
});
