/**
 * A visitor charged at Stripe reloads the payment step before the webhook lands (issue 41 item 6): the page says
 * "Payment received", never the 502 "Payment system is temporarily unavailable", on /stripe-checkout and on the
 * registration's own payment step, for a card that went through and one the bank is still confirming.
 */
import { afterAll, describe, expect, it } from "vitest";
import { bookingApp } from "./helpers.ts";
import { textOf, visitor } from "../../../support/http.ts";

const t = bookingApp({ webhooks: "never", async eachTest(app) { app.fake.confirmProcessing = false; } });
afterAll(() => {
  t.fake.confirmProcessing = false;
});

const ATHLETE = {
  firstName: "Reese", lastName: "Hall", email: "reese.hall@example.com", phone: "(205) 555-0140", grade: "11th", gender: "Male",
  schoolName: "Central High", emergencyContactName: "Sam Hall", emergencyContactPhone: "205-555-0141", adult: "on", agrees: "on",
};
let n = 0;
async function held() {
  const v = await visitor(t.app);
  const res = await v.post("/api/events/2/create-payment-intent").send({ option: "full", formSessionId: `reload-${Date.now()}-${n++}`, registrationData: { ...ATHLETE, registrationType: "full" } });
  expect(res.status).toBe(200);
  return { v, reference: res.body.registrationId as string, intentId: (res.body.clientSecret as string).split("_secret_")[0]! };
}
const registration = (reference: string) => t.db("registrations").where({ reference }).first();

describe("reloading the payment step after the card was charged, before the webhook", () => {
  for (const page of ["/stripe-checkout?eventId=2", "/register/2?step=payment"]) {
    it(`${page}: "Payment received", the registration paid once, no second charge offered`, async () => {
      const { v, reference, intentId } = await held();
      expect(t.fake.confirm(intentId, { number: "4242424242424242" }).body).toMatchObject({ status: "succeeded" });
      expect((await registration(reference)).status).toBe("pending_payment");

      const reload = await v.get(page);
      expect(reload.status).toBe(200);
      const text = textOf(reload.text);
      expect(text).toContain("Payment received");
      expect(text).not.toContain("temporarily unavailable");
      expect(text).not.toContain("Complete Payment - $");
      expect(reload.text).not.toContain("_secret_");
      expect(await registration(reference)).toMatchObject({ status: "paid" });
      expect(await t.db("payments").where({ reference, status: "paid" })).toHaveLength(1);
      // A second reload still says so (the registration is paid now).
      expect((await v.get(page)).status).toBe(200);
    });

    it(`${page}: a payment the bank is still confirming (processing) says "Payment received" and keeps the hold`, async () => {
      t.fake.confirmProcessing = true;
      const { v, reference, intentId } = await held();
      expect(t.fake.confirm(intentId, { number: "4242424242424242" }).body).toMatchObject({ status: "processing" });
      const reload = await v.get(page);
      expect(reload.status).toBe(200);
      const text = textOf(reload.text);
      expect(text).toContain("Payment received");
      expect(text).toContain("Your bank is still confirming");
      expect(text).not.toContain("Complete Payment - $");
      expect(reload.text).not.toContain("_secret_");
      expect((await registration(reference)).status).toBe("pending_payment");
    });
  }

  it("/stripe-checkout?option=team: a coach's team charged before the webhook says \"Payment received\"", async () => {
    const v = await visitor(t.app);
    const athletes = Array.from({ length: 5 }, (_, i) => ({ firstName: `Kid${i}`, lastName: "Hall", age: 13, email: `kid${i}.hall@example.com`, shirtSize: "Medium", parentName: `Parent ${i}`, parentPhoneNumber: "205-555-0142" }));
    const res = await v.post("/api/team-registration").send({
      eventId: 2, coachInfo: { firstName: "Dana", lastName: "Hall", email: "dana.hall@example.com", phone: "(205) 555-0143", teamName: "Hall WC" },
      athletes, pricePerAthlete: 199, totalAmount: 995, discountedAmount: 995, discountCode: null,
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const intentId = (res.body.clientSecret as string).split("_secret_")[0]!;
    expect(t.fake.confirm(intentId, { number: "4242424242424242" }).body).toMatchObject({ status: "succeeded" });
    const reload = await v.get("/stripe-checkout?eventId=2&option=team");
    expect(reload.status).toBe(200);
    expect(textOf(reload.text)).toContain("Payment received");
    expect(textOf(reload.text)).not.toContain("temporarily unavailable");
  });
});
