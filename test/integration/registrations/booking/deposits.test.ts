import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import request from "supertest";
import { createPayingTestApp, type PayingTestApp } from "../../../support/app.ts";
import { textOf, visitor } from "../../../support/http.ts";
import type { FakeStripe } from "../../../../src/payments/offline/fakeStripeServer.ts";
import { placesLeft } from "../../../../src/events/repository.ts";
import { CARD_CONSENT_VERSION } from "../../../../src/shared/registrations/deposits.ts";
import { insertCode } from "../../../../src/discounts/repository.ts";
import { until } from "../../../support/until.ts";

let t: PayingTestApp;
let fake: FakeStripe;

beforeAll(async () => {
  t = await createPayingTestApp();
  fake = t.fake;
});
afterAll(async () => {
  await t?.close();
});
beforeEach(async () => {
  fake.autoDeliver = true;
  await fake.idle();
});

type V = Awaited<ReturnType<typeof visitor>>;
const ATHLETE = {
  firstName: "Jordan", lastName: "Reyes", email: "jordan@example.com", phone: "(205) 555-0100", grade: "10th", gender: "Male", schoolName: "Central High",
  emergencyContactName: "Maria Reyes", emergencyContactPhone: "205-555-0199", adult: "on", agrees: "on",
};
const COACH = { firstName: "Dana", lastName: "Brooks", email: "coach.brooks@example.com", phone: "(205) 555-0142", teamName: "Steel City WC" };
const teamOf = (n: number) => Array.from({ length: n }, (_, i) => ({
  firstName: `Kid${i}`, lastName: "Brooks", age: 12, email: `kid${i}@example.com`, shirtSize: "Medium", parentName: `Parent ${i}`, parentPhoneNumber: "205-555-0100",
}));
let formSeq = 0;
const newFormId = () => `deposit-form-session-${String(++formSeq).padStart(6, "0")}-${Date.now()}`;
const intentIdOf = (clientSecret: string) => clientSecret.split("_secret_")[0]!;
const apiStart = (v: V, eventId: number, data: Record<string, unknown> = {}, formSessionId = newFormId()) =>
  v.post(`/api/events/${eventId}/create-payment-intent`).send({ option: "full", formSessionId, registrationData: { ...ATHLETE, registrationType: "full", ...data } });
const when = (v: unknown) => (v instanceof Date ? v : new Date(typeof v === "number" || /^\d+$/.test(String(v)) ? Number(v) : String(v)));

async function stored(reference: string) {
  const registration = await t.db("registrations").where({ reference }).first();
  const payments = await t.db("payments").where({ kind: "registration", reference });
  const emails = await t.db("email_outbox").where({ reference: `registration:${reference}` }).orderBy("id");
  return { registration, payments, emails };
}

describe("a deposit chosen with a code that brings the price to the deposit or below", () => {
  it("is paid in full (no more than the deposit) and says why, on the JSON call and without JavaScript: never 'no longer offered'", async () => {
    await insertCode(t.db, { code: "BELOWDEP", type: "fixed", value: 23000, eventId: null, kind: "both", maxRedemptions: null, startsAt: null, expiresAt: null }, new Date());
    const v = await visitor(t.app);
    const res = await v.post("/api/events/2/create-payment-intent")
      .send({ option: "full", formSessionId: newFormId(), discountCode: "BELOWDEP", registrationData: { ...ATHLETE, registrationType: "full", paymentPlan: "deposit" } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({ amount: 69, deposit: null, notice: "With this code the price, $69.00, is no more than the $75.00 deposit: it is paid in full today, and nothing is owed later." });
    const { registration } = await stored(res.body.registrationId);
    expect({ amount: Number(registration.amount_cents), plan: registration.payment_plan, deposit: registration.deposit_cents }).toEqual({ amount: 6900, plan: "full", deposit: null });
    expect(fake.intents.get(intentIdOf(res.body.clientSecret))!.amount).toBe(6900);

    // Without JavaScript: step 2 says the same.
    const page = await visitor(t.app);
    const form = await page.form("/register/2", { ...ATHLETE, registrationType: "full", paymentPlan: "deposit", discountCode: "BELOWDEP", formSessionId: newFormId() });
    expect(form.status).toBe(303);
    const step2 = textOf((await page.get(form.headers.location!)).text);
    expect(step2).toContain("With this code the price, $69.00, is no more than the $75.00 deposit");
    expect(step2).not.toContain("no longer offered");
  });
});

describe("a deposit plan shown beside paying in full", () => {
  it("the event page, step 1 and the team form show both plans for a camp with a policy, none for the clinic", async () => {
    const champ = textOf((await request(t.app).get("/events/2").expect(200)).text);
    expect(champ).toContain("Pay in full $299.00 · Pay today $75.00, then $224.00 on May 22, 2027");
    const tour = textOf((await request(t.app).get("/events/4").expect(200)).text);
    expect(tour).toContain("Pay in full $200.00 · Pay today $50.00, then $150.00 on June 1, 2027");
    const clinic = textOf((await request(t.app).get("/events/3").expect(200)).text);
    expect(clinic).not.toContain("Pay today");

    const step1 = await request(t.app).get("/register/2").expect(200);
    expect(textOf(step1.text)).toContain("How would you like to pay?");
    expect(step1.text).toContain('<input type="radio" name="paymentPlan" checked="" value="full"/>');
    expect(textOf(step1.text)).toContain("Pay today $75.00, then $224.00 on May 22, 2027");
    expect((await request(t.app).get("/register/3").expect(200)).text).not.toContain('name="paymentPlan"');

    // The team form: its summary counts complete athletes (none yet: no plan shown until one is complete).
    const teamForm = await request(t.app).get("/team-register/2").expect(200);
    expect(teamForm.text).toContain('"depositOffer"');
  });
});

describe("paying a deposit", () => {
  it("holds the place for the full price, charges the deposit, and once paid is deposit_paid with its place, the consent and what is owed", async () => {
    fake.autoDeliver = false;
    const before = await placesLeft(t.db, 2, new Date());
    const v = await visitor(t.app);
    const res = await apiStart(v, 2, { paymentPlan: "deposit" });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ success: true, amount: 75, deposit: { totalCents: 29900, balanceCents: 22400, dueText: "May 22, 2027" } });
    expect(res.body.deposit.consentText).toMatch(/^I authorize Ironside to save this card and charge it for the remaining balance of \$224\.00 on May 22, 2027/);
    const reference = res.body.registrationId as string;
    const intentId = intentIdOf(res.body.clientSecret);
    expect(fake.intents.get(intentId)).toMatchObject({ amount: 7500, metadata: { kind: "registration", reference } });

    const held = await stored(reference);
    expect(held.registration).toMatchObject({ status: "pending_payment", amount_cents: 29900, payment_plan: "deposit", deposit_cents: 7500, card_consent_version: CARD_CONSENT_VERSION });
    expect(when(held.registration.balance_due_at).toISOString()).toBe("2027-05-22T07:00:00.000Z");
    expect(held.registration.card_consent_text).toBe(res.body.deposit.consentText);

    expect(fake.confirm(intentId, { number: "4242 4242 4242 4242" }).status).toBe(200);
    const done = await v.post("/api/events/2/stripe-payment-success").send({ paymentIntentId: intentId });
    expect(done.body).toMatchObject({ success: true, status: "paid" });

    // The PaymentIntent saved the card on the registration's Customer, for the balance off session.
    expect(fake.intents.get(intentId)).toMatchObject({ customer: held.registration.stripe_customer_id, setup_future_usage: "off_session" });
    expect(held.registration.stripe_customer_id).toMatch(/^cus_/);
    await until(async () => (await stored(reference)).registration.card_last4 !== null);
    const paid = await stored(reference);
    expect(paid.registration).toMatchObject({ status: "deposit_paid", amount_cents: 29900, amount_paid_cents: 7500, card_brand: "visa", card_last4: "4242", card_exp_month: 12, card_exp_year: 2034 });
    expect(paid.registration.payment_method_id).toMatch(/^pm_/);
    expect(paid.payments).toEqual([expect.objectContaining({ status: "paid", amount_cents: 7500 })]);
    expect(await placesLeft(t.db, 2, new Date())).toBe(before - 1);
    expect(paid.emails).toHaveLength(1);
    expect(paid.emails[0].kind).toBe("registration_confirmation");
    expect(paid.emails[0].text_body).toContain("$75.00");
    expect(paid.emails[0].text_body).toContain("$224.00 on May 22, 2027, charged to the card you paid the deposit with");

    const page = textOf((await v.get(`/event-registration/2?paymentSuccess=true&paymentIntentId=${intentId}`)).text);
    expect(page).toContain("Payment Confirmed - Registration Complete!");
    expect(page).toContain("$224.00 due on May 22, 2027");
  });

  it("without JavaScript the plan radio posts: step 2 shows today's deposit, the balance and its date, and the consent", async () => {
    const v = await visitor(t.app);
    const formSessionId = newFormId();
    const res = await v.form("/register/2", { ...ATHLETE, formSessionId, registrationType: "full", paymentPlan: "deposit" });
    expect(res.status).toBe(303);
    const row = await t.db("registrations").where({ form_session_id: formSessionId }).first();
    expect(row).toMatchObject({ payment_plan: "deposit", deposit_cents: 7500, amount_cents: 29900 });
    const step2 = textOf((await v.get("/register/2?step=payment")).text);
    expect(step2).toContain("Balance on May 22, 2027");
    expect(step2).toContain("Pay today $75.00");
    expect(step2).toContain("I authorize Ironside to save this card and charge it for the remaining balance of $224.00 on May 22, 2027");
    // Back shows the plan chosen; choosing full again charges the full price (a new version of the same registration).
    expect((await v.get("/register/2?step=1")).text).toContain('<input type="radio" name="paymentPlan" checked="" value="deposit"/>');
    await v.form("/register/2", { ...ATHLETE, formSessionId, registrationType: "full", paymentPlan: "full" });
    const again = await t.db("registrations").where({ form_session_id: formSessionId }).first();
    expect(again).toMatchObject({ payment_plan: "full", deposit_cents: null, card_consent_text: null, version: row.version + 1 });
    const live = await t.db("payments").where({ kind: "registration", reference: row.reference, status: "pending" }).first();
    expect(fake.intents.get(live.provider_payment_id)).toMatchObject({ amount: 29900, setup_future_usage: null });
  });

  it("a team's deposit is per athlete", async () => {
    const v = await visitor(t.app);
    const res = await v.post("/api/team-registration").send({ eventId: 2, coachInfo: COACH, athletes: teamOf(5), formSessionId: newFormId(), paymentPlan: "deposit" });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ amount: 375 });
    const row = (await stored(res.body.registrationId)).registration;
    expect(row).toMatchObject({ kind: "team", amount_cents: 99500, payment_plan: "deposit", deposit_cents: 37500 });
    expect(fake.intents.get(intentIdOf(res.body.clientSecret))).toMatchObject({ amount: 37500 });
  });

  it("refuses a plan the event does not offer now, or an unknown one, holding nothing", async () => {
    const v = await visitor(t.app);
    const count = async () => Number((await t.db("registrations").count({ n: "*" }).first())!.n);
    const n = await count();
    const clinic = await apiStart(v, 3, { paymentPlan: "deposit" });
    expect(clinic.status).toBe(409);
    expect(clinic.body.error).toBe("A deposit is no longer offered for this event: please choose Pay in full.");
    const unknown = await apiStart(v, 2, { paymentPlan: "later" });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error).toBe("Please choose how you would like to pay.");
    // The due date (14 days before the first day) less than 7 days away: pay in full only.
    const soon = new Date(Date.now() + 20 * 86_400_000);
    const original = await t.db("events").where({ id: 1 }).first("start_date");
    await t.db("events").where({ id: 1 }).update({ start_date: new Date(`${soon.toISOString().slice(0, 10)}T00:00:00Z`) });
    try {
      expect((await apiStart(v, 1, { paymentPlan: "deposit" })).status).toBe(409);
    } finally {
      await t.db("events").where({ id: 1 }).update({ start_date: original.start_date });
    }
    expect(await count()).toBe(n);
  });
});
