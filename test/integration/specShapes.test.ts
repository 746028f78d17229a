/**
 * Every POST call of the spec's call tables (shared spec: events.md section 7, shop.md section 7), sent with exactly the
 * fields of its table and nothing else, as a client written to the spec sends them: each answers as the spec says
 * (status and the fields its "answer read" column names). Issue 41 item 5.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPayingTestApp, type PayingTestApp } from "../support/app.ts";
import { visitor } from "../support/http.ts";
import { insertCode } from "../../src/discounts/repository.ts";

let t: PayingTestApp;
beforeAll(async () => {
  t = await createPayingTestApp();
  const now = new Date();
  await insertCode(t.db, { code: "SPEC10", type: "percent", value: 10, eventId: null, kind: "both", maxRedemptions: null, startsAt: null, expiresAt: null }, now);
  await insertCode(t.db, { code: "SPECFREE", type: "percent", value: 100, eventId: null, kind: "both", maxRedemptions: null, startsAt: null, expiresAt: null }, now);
});
afterAll(async () => {
  await t?.close();
});

let seq = 0;
/** A spec client's form session id: its own random string per form. */
const formSessionId = () => `spec_form_${Date.now()}_${String(++seq).padStart(4, "0")}`;
/** events.md section 3, "Athlete registration fields" and "Stored registration values": the personal fields. */
const PERSONAL = {
  firstName: "Riley", lastName: "Stone", email: "riley.stone@example.com", phone: "(702) 555-0150", grade: "10th", gender: "Male",
  schoolName: "Desert High", clubName: "Vegas WC", emergencyContactName: "Pat Stone", emergencyContactPhone: "702-555-0151", specialRequirements: "",
  agrees: true, tShirtSize: "Medium", contactName: "Pat Stone",
};
/** registrationData of create-payment-intent: personal fields, day1-3, medicalReleaseAccepted, eventId, registrationType. */
const registrationData = (eventId: number, registrationType = "full") => ({ ...PERSONAL, day1: true, day2: true, day3: true, medicalReleaseAccepted: true, eventId, registrationType });
const intentIdOf = (clientSecret: string) => clientSecret.split("_secret_")[0]!;

describe("the spec's calls, with exactly the fields of its tables", () => {
  it("POST /api/events/{id}/create-payment-intent, /api/validate-discount (then forceNewIntent) and /api/events/{id}/stripe-payment-success (paid)", async () => {
    const v = await visitor(t.app);
    const form = formSessionId();
    const intent = await v.post("/api/events/2/create-payment-intent").send({ option: "full", registrationData: registrationData(2), formSessionId: form });
    expect(intent.status, JSON.stringify(intent.body)).toBe(200);
    expect(intent.body).toMatchObject({ success: true, amount: 299, isFreeRegistration: false, clientSecret: expect.any(String), registrationId: expect.any(String) });

    const code = await v.post("/api/validate-discount").send({ discountCode: "SPEC10", originalPrice: 299 });
    expect(code.status, JSON.stringify(code.body)).toBe(200);
    expect(code.body).toMatchObject({ success: true, valid: true, message: expect.any(String), discount: { discountAmount: 29.9, finalPrice: 269.1 } });

    // The spec's client asks for a new intent with the discounted amount (the server prices it itself).
    const again = await v.post("/api/events/2/create-payment-intent")
      .send({ option: "full", registrationData: registrationData(2), formSessionId: form, discountedAmount: 269.1, discountCode: "SPEC10", forceNewIntent: true });
    expect(again.status, JSON.stringify(again.body)).toBe(200);
    expect(again.body).toMatchObject({ success: true, amount: 269.1, isFreeRegistration: false, registrationId: intent.body.registrationId });

    const intentId = intentIdOf(again.body.clientSecret);
    expect(t.fake.confirm(intentId, { number: "4242 4242 4242 4242" }).status).toBe(200);
    const paid = await v.post("/api/events/2/stripe-payment-success").send({ paymentIntentId: intentId, registrationData: registrationData(2) });
    expect(paid.status, JSON.stringify(paid.body)).toBe(200);
    expect(await t.db("registrations").where({ reference: intent.body.registrationId }).first()).toMatchObject({ status: "paid", amount_paid_cents: 26910 });
  });

  it("POST /api/events/{id}/stripe-payment-success (free): freeRegistration, discountCode, eventId, amount 0, a marker paymentIntentId, the personal fields", async () => {
    const v = await visitor(t.app);
    const form = formSessionId();
    const intent = await v.post("/api/events/2/create-payment-intent").send({ option: "full", registrationData: registrationData(2), formSessionId: form });
    expect(intent.status).toBe(200);
    const code = await v.post("/api/validate-discount").send({ discountCode: "SPECFREE", originalPrice: 299 });
    expect(code.body).toMatchObject({ success: true, valid: true, discount: { finalPrice: 0 } });
    const free = await v.post("/api/events/2/stripe-payment-success")
      .send({ freeRegistration: true, discountCode: "SPECFREE", eventId: 2, amount: 0, paymentIntentId: `free_registration_${Date.now()}`, ...PERSONAL });
    expect(free.status, JSON.stringify(free.body)).toBe(200);
    expect(await t.db("registrations").where({ reference: intent.body.registrationId }).first()).toMatchObject({ status: "paid", amount_cents: 0 });
  });

  it("POST /api/team-registration: eventId, coachInfo, athletes, pricePerAthlete, totalAmount, discountedAmount, discountCode", async () => {
    const v = await visitor(t.app);
    const athletes = Array.from({ length: 5 }, (_, i) => ({
      firstName: `Ath${i}`, lastName: "Stone", age: 14, email: `ath${i}@example.com`, shirtSize: "Medium", parentName: `Parent ${i}`, parentPhoneNumber: "702-555-0160",
    }));
    const res = await v.post("/api/team-registration").send({
      eventId: 2, coachInfo: { firstName: "Dana", lastName: "Brooks", email: "dana.brooks@example.com", phone: "(702) 555-0170", teamName: "Vegas WC" },
      athletes, pricePerAthlete: 199, totalAmount: 995, discountedAmount: 995, discountCode: null,
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({ clientSecret: expect.any(String), amount: 995 });
  });

  it("POST /api/clinician-request: the coach form's fields with numberOfAthletes and the event (DESIGN: the clinic's, not the spec's fixed 2)", async () => {
    const v = await visitor(t.app);
    const days = (await v.get("/api/events/3")).body.days as { date: string }[];
    const fields = {
      fullName: "Dana Reyes", title: "Head Coach", collegeName: "Ironwood University", email: "dana.reyes@ironwood.example.edu", cellPhone: "(817) 555-0134",
      schoolPhone: "817-555-0100", schoolWebsite: "athletics.ironwood.example.edu", divisionLevel: "D1", conference: "Big 12", numberOfAthletes: 12,
      areasOfInterest: ["Lightweight (125-141 lbs)"], notes: "",
    };
    const res = await v.post("/api/clinician-request").send({ ...fields, daysAttending: [days[0]!.date], eventId: 3 });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body).toMatchObject({ success: true });
    // The spec's fixed eventId 2 and June 5-7 are a defect of the original (DESIGN): a clear refusal, nothing stored.
    const fixed = await v.post("/api/clinician-request").send({ ...fields, daysAttending: ["June 5"], eventId: 2 });
    expect(fixed.status).toBe(404);
    expect(fixed.body).toEqual({ success: false, error: "College coach registration is not offered for this event." });
  });

  it("POST /api/cart/add (a cart item's fields), /api/cart/checkout ({items, customerInfo}) and /api/contact", async () => {
    const v = await visitor(t.app);
    const added = await v.post("/api/cart/add").send({
      id: "item-1", shopifyProductId: "1001", shopifyVariantId: "2001", productHandle: "heavyweight-tee", productTitle: "Heavyweight Tee", variantTitle: "S / Black",
      price: 32, compareAtPrice: null, quantity: 1, productImage: "/images/tee.svg", productType: "Product", vendor: "Ironside", selectedSize: "S", selectedColor: "Black",
      variantOptions: { Size: "S", Color: "Black" },
    });
    expect(added.status, JSON.stringify(added.body)).toBe(200);
    const cart = (await v.get("/api/cart")).body;
    expect(cart).toMatchObject({ success: true, itemCount: 1 });
    const checkout = await v.post("/api/cart/checkout").send({ items: cart.cartItems, customerInfo: { firstName: "Riley", lastName: "Stone", email: "riley.stone@example.com", phone: "(702) 555-0150" } });
    // A physical order needs a US shipping address (DESIGN: shipping for shop orders), which the spec's payload lacks:
    // the spec's error branch, its 'Please fill in all required fields.' in `message` (and `error`), nothing started.
    expect(checkout.status).toBe(400);
    expect(checkout.body).toMatchObject({ success: false, message: "Please fill in all required fields.", error: "Please fill in all required fields." });
    expect(Object.keys(checkout.body.fieldErrors)).toEqual(expect.arrayContaining(["shippingAddress.line1", "shippingAddress.city"]));
    expect(await t.db("orders").count({ n: "*" }).first()).toMatchObject({ n: 0 });
    const shipped = await v.post("/api/cart/checkout").send({
      items: cart.cartItems, customerInfo: { firstName: "Riley", lastName: "Stone", email: "riley.stone@example.com", phone: "(702) 555-0150" },
      shippingAddress: { name: "Riley Stone", line1: "1 Main St", city: "Las Vegas", state: "NV", zip: "89101" },
    });
    expect(shipped.status, JSON.stringify(shipped.body)).toBe(200);
    expect(shipped.body.clientSecret).toEqual(expect.any(String));

    const contact = await v.post("/api/contact").send({ name: "Riley Stone", email: "riley.stone@example.com", phone: "(702) 555-0150", subject: "Camp question", message: "Is there a weigh-in on day one?" });
    expect(contact.status, JSON.stringify(contact.body)).toBeLessThan(300);
    expect(contact.body).toMatchObject({ success: true });
  });
});
