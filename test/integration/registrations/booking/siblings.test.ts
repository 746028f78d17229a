import { afterEach, describe, expect, it } from "vitest";
import { bookingApp } from "./helpers.ts";
import { textOf, visitor } from "../../../support/http.ts";
import { sentText } from "../../../support/mail.ts";
import { insertCode } from "../../../../src/discounts/repository.ts";
import { placesLeft } from "../../../../src/events/repository.ts";
import { Writable } from "node:stream";
import { ROSTER_COLUMNS, runExport } from "../../../../src/cli/export.ts";

/** Siblings in one registration (issue 43): one guardian, one payment, one place each, the sibling discount from the second athlete. */
const t = bookingApp({
  async setup(app) {
    await insertCode(app.db, { code: "FAMILY10", type: "fixed", value: 1000, eventId: null, kind: "both", maxRedemptions: 1, startsAt: null, expiresAt: null }, new Date());
  },
});

const ATHLETE = {
  firstName: "Jordan",
  lastName: "Reyes",
  email: "jordan@example.com",
  phone: "(205) 555-0100",
  grade: "10th",
  gender: "Male",
  schoolName: "Central High",
  emergencyContactName: "Maria Reyes",
  emergencyContactPhone: "205-555-0199",
  guardianName: "Maria Reyes",
  guardianEmail: "maria@example.com",
  guardianPhone: "205-555-0199",
  agrees: "on",
};
/** The second athlete: the 2-day package, June 5 and 6. */
const SISTER = { siblings: "1", sibling2_firstName: "Ana", sibling2_lastName: "Reyes", sibling2_grade: "7th", sibling2_gender: "Female", sibling2_schoolName: "Central Middle", sibling2_registrationType: "2day", sibling2_day1: "on", sibling2_day2: "on", sibling2_tShirtSize: "Small" };

let formSeq = 0;
const newFormId = () => `sibling-form-${String(++formSeq).padStart(6, "0")}-${Date.now()}`;
const intentIdOf = (clientSecret: string) => clientSecret.split("_secret_")[0]!;
const apiStart = (v: Awaited<ReturnType<typeof visitor>>, eventId: number, registrationData: Record<string, unknown>, formSessionId = newFormId()) =>
  v.post(`/api/events/${eventId}/create-payment-intent`).send({ option: "full", formSessionId, registrationData: { ...ATHLETE, registrationType: "full", ...registrationData } });

async function setSiblingDiscount(eventId: number, kind: string, value: number) {
  await t.db("events").where({ id: eventId }).update({ sibling_discount_kind: kind, sibling_discount_value: value });
}

afterEach(async () => {
  await t.db("events").update({ sibling_discount_kind: "none", sibling_discount_value: 0, capacity: 200 });
});

describe("two siblings in one registration", () => {
  it("holds two places, prices each athlete with 10% off the second, charges the sum once and marks both paid", async () => {
    await setSiblingDiscount(2, "percent", 10);
    t.fake.autoDeliver = false;
    const v = await visitor(t.app);
    const res = await apiStart(v, 2, { ...SISTER, amount: 1 });
    expect(res.status).toBe(200);
    // $299 (full) + $238 (2 days) less 10% of $238 ($23.80) = $513.20, whatever the browser sent.
    expect(res.body).toMatchObject({ success: true, amount: 513.2 });
    expect(res.body.family).toEqual([
      { name: "Jordan Reyes", packageLabel: "Full Event", days: ["Saturday, June 5", "Sunday, June 6", "Monday, June 7"], listCents: 29900, siblingDiscountCents: 0 },
      { name: "Ana Reyes", packageLabel: "2 Days", days: ["Saturday, June 5", "Sunday, June 6"], listCents: 23800, siblingDiscountCents: 2380 },
    ]);
    const reference = res.body.registrationId as string;
    const row = await t.db("registrations").where({ reference }).first();
    expect(row).toMatchObject({ kind: "individual", places: 2, list_price_cents: 51320, amount_cents: 51320, status: "pending_payment" });
    const athletes = await t.db("registration_athletes").where({ registration_id: row.id }).orderBy("position");
    expect(athletes.map((a) => [a.first_name, a.package_code, a.list_price_cents, a.sibling_discount_cents, a.day_ids, a.email, a.emergency_contact_name])).toEqual([
      ["Jordan", "full", 29900, 0, expect.any(String), "jordan@example.com", "Maria Reyes"],
      ["Ana", "2day", 23800, 2380, expect.any(String), "jordan@example.com", "Maria Reyes"],
    ]);
    const intentId = intentIdOf(res.body.clientSecret);
    expect(t.fake.intents.get(intentId)).toMatchObject({ amount: 51320 });

    // Step 2 without JavaScript lists both athletes and the sibling discount.
    const step2 = textOf((await v.get("/register/2?step=payment")).text);
    for (const part of ["Athlete 1: Jordan Reyes", "Athlete 2: Ana Reyes", "2 Days (Saturday, June 5, Sunday, June 6), $238.00", "Sibling discount", "-$23.80", "$513.20"]) expect(step2).toContain(part);

    expect(t.fake.confirm(intentId, { number: "4242 4242 4242 4242" }).status).toBe(200);
    const done = await v.post("/api/events/2/stripe-payment-success").send({ paymentIntentId: intentId });
    expect(done.status).toBe(200);
    expect(await t.db("registrations").where({ reference }).first()).toMatchObject({ status: "paid", amount_paid_cents: 51320 });
    const payments = await t.db("payments").where({ kind: "registration", reference });
    expect(payments).toHaveLength(1);
    expect(payments[0]).toMatchObject({ amount_cents: 51320, status: "paid" });

    // One e-mail, to the guardian, naming both athletes and the discount.
    const emails = await t.db("email_outbox").where({ reference: `registration:${reference}` });
    expect(emails).toHaveLength(1);
    for (const part of ["Jordan Reyes", "Ana Reyes", "Sibling discount", "-$23.80", "$513.20"]) expect(emails[0].text_body, part).toContain(part);

    // The roster: one row per athlete with its own package, days and sibling discount.
    const roster = await t.db("registration_roster").where({ reference }).orderBy("athlete_name");
    expect(roster.map((r) => [r.athlete_name, r.package, r.days, Number(r.sibling_discount), r.status])).toEqual([
      ["Ana Reyes", "2 Days", "Saturday, June 5, Sunday, June 6", 23.8, "paid"],
      ["Jordan Reyes", "Full Camp (3 Days)", "Saturday, June 5, Sunday, June 6, Monday, June 7", 0, "paid"],
    ]);

    // The export (npm run export -- registrations): the same rows, the sibling discount in its own column.
    let csv = "";
    await runExport(t.db, { name: "registrations", eventId: 2 }, new Writable({ write: (c: Buffer, _e, done) => ((csv += c.toString("utf8")), done()) }));
    const ana = csv.split("\r\n").find((line) => line.startsWith(`${reference},`) && line.includes("Ana Reyes"))!.split(",");
    expect(ana.at(ROSTER_COLUMNS.indexOf("sibling_discount") - ROSTER_COLUMNS.length)).toBe("23.80");
    expect(csv.split("\r\n")[0]).toContain(",sibling_discount");
  });

  it("leaves the spec's one-athlete request as it was: one place, the package price, no discount", async () => {
    await setSiblingDiscount(2, "fixed", 2500);
    const v = await visitor(t.app);
    const res = await v.post("/api/events/2/create-payment-intent").send({ option: "full", formSessionId: newFormId(), registrationData: { ...ATHLETE } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ amount: 299, family: null });
    const row = await t.db("registrations").where({ reference: res.body.registrationId }).first();
    expect(row).toMatchObject({ places: 1, amount_cents: 29900 });
    expect(await t.db("registration_athletes").where({ registration_id: row.id }).first()).toMatchObject({ package_code: null, sibling_discount_cents: null });
  });

  it("a sibling added on Back makes the same registration hold one more place and the same PaymentIntent charge the new sum", async () => {
    await setSiblingDiscount(2, "fixed", 2500);
    const v = await visitor(t.app);
    const formSessionId = newFormId();
    const one = await apiStart(v, 2, {}, formSessionId);
    expect(one.body.amount).toBe(299);
    const two = await apiStart(v, 2, { ...SISTER }, formSessionId);
    expect(two.body.registrationId).toBe(one.body.registrationId);
    expect(two.body.amount).toBe(299 + 238 - 25);
    expect(intentIdOf(two.body.clientSecret)).toBe(intentIdOf(one.body.clientSecret));
    expect(t.fake.intents.get(intentIdOf(two.body.clientSecret))).toMatchObject({ amount: 51200 });
    expect(await t.db("registrations").where({ reference: one.body.registrationId }).first()).toMatchObject({ places: 2, amount_cents: 51200 });
    // Removing her again: one place, one price.
    const back = await apiStart(v, 2, { siblings: "0" }, formSessionId);
    expect(back.body.amount).toBe(299);
    expect(await t.db("registrations").where({ reference: one.body.registrationId }).first()).toMatchObject({ places: 1, amount_cents: 29900 });
  });

  it("takes both the sibling discount and a code: the code on the family's total after the discount, its one use held", async () => {
    await setSiblingDiscount(2, "fixed", 2500);
    const v = await visitor(t.app);
    const res = await apiStart(v, 2, { ...SISTER, discountCode: "FAMILY10" });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    // $299 + $238 - $25 (sibling) = $512, less the code's $10 = $502.
    expect(res.body.amount).toBe(502);
    expect(res.body.discount).toMatchObject({ code: "FAMILY10" });
    expect(await t.db("registrations").where({ reference: res.body.registrationId }).first()).toMatchObject({ list_price_cents: 51200, amount_cents: 50200 });
    // The code's one use is this family's: another family is refused it.
    const other = await apiStart(await visitor(t.app), 2, { ...SISTER, discountCode: "FAMILY10" });
    expect(other.status).toBe(422);
  });

  it("charges the event's deposit per athlete: two deposits now, the balance later", async () => {
    await setSiblingDiscount(2, "fixed", 2500);
    const v = await visitor(t.app);
    const res = await apiStart(v, 2, { ...SISTER, paymentPlan: "deposit" });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({ amount: 150, deposit: { totalCents: 51200, balanceCents: 51200 - 15000 } });
    expect(await t.db("registrations").where({ reference: res.body.registrationId }).first()).toMatchObject({ places: 2, payment_plan: "deposit", deposit_cents: 15000 });
  });

  it("takes a family's places all or none: two siblings for the last place are refused and hold nothing", async () => {
    const v = await visitor(t.app);
    const taken = await t.db("event_places").where({ event_id: 3 }).first();
    await t.db("events").where({ id: 3 }).update({ capacity: Number(taken.taken) + 1 });
    const before = await t.db("registrations").count({ n: "*" }).first();
    const res = await apiStart(v, 3, { ...SISTER, sibling2_registrationType: "full" });
    expect(res.status).toBe(409);
    expect(res.body.error).toBe("This event is sold out: every place is taken or held. Please choose another event.");
    expect((await t.db("registrations").count({ n: "*" }).first())!.n).toBe(before!.n);
    expect((await t.db("event_places").where({ event_id: 3 }).first()).taken).toBe(taken.taken);
  });

  it("reports a sibling's missing fields under its own names and holds nothing", async () => {
    const v = await visitor(t.app);
    const res = await apiStart(v, 2, { siblings: "1", sibling2_firstName: "Ana" });
    expect(res.status).toBe(400);
    expect(res.body.fieldErrors).toMatchObject({ sibling2_lastName: "This field is required", sibling2_gender: "This field is required" });
  });
});

describe("the form without JavaScript", () => {
  it("adds a sibling and removes one by posting the form, holding nothing; then registers the family", async () => {
    await setSiblingDiscount(2, "fixed", 2500);
    const v = await visitor(t.app);
    const formSessionId = newFormId();
    const before = await t.db("registrations").count({ n: "*" }).first();
    const added = await v.form("/register/2", { ...ATHLETE, formSessionId, registrationType: "full", siblingIntent: "add-sibling" });
    expect(added.status).toBe(200);
    const page = textOf(added.text);
    expect(page).toContain("Athlete 2");
    expect(page).toContain("Remove athlete 2");
    expect(page).toContain("$25.00 off each additional athlete");
    expect(added.text).toContain('name="sibling2_firstName"');
    expect(added.text).toContain(`value="${formSessionId}"`);
    expect((await t.db("registrations").count({ n: "*" }).first())!.n).toBe(before!.n);

    const removed = await v.form("/register/2", { ...ATHLETE, formSessionId, ...SISTER, siblingIntent: "remove-sibling-2" });
    expect(removed.text).not.toContain('name="sibling2_firstName"');

    const held = await v.form("/register/2", { ...ATHLETE, formSessionId, registrationType: "full", ...SISTER });
    expect(held.status).toBe(303);
    const row = await t.db("registrations").where({ form_session_id: formSessionId }).first();
    expect(row).toMatchObject({ places: 2, amount_cents: 29900 + 23800 - 2500 });
    // Back shows both athletes again.
    const back = await v.get("/register/2?step=1");
    expect(back.text).toContain('value="Ana"');
  });
});

/** A paid family of two for event 2 (Jordan full $299, Ana 2 days $238 less the discount); its manage link from the e-mail. */
async function paidFamily(discount: [string, number]) {
  await setSiblingDiscount(2, ...discount);
  const v = await visitor(t.app);
  const res = await apiStart(v, 2, { ...SISTER });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  const reference = res.body.registrationId as string;
  const intentId = intentIdOf(res.body.clientSecret);
  expect(t.fake.confirm(intentId, { number: "4242 4242 4242 4242" }).status).toBe(200);
  expect((await v.post("/api/events/2/stripe-payment-success").send({ paymentIntentId: intentId })).body.status).toBe("paid");
  const email = await t.db("email_outbox").where({ reference: `registration:${reference}`, kind: "registration_confirmation" }).first();
  const link = /\/my-registration\/([A-Za-z0-9_-]{43})/.exec(sentText(t.mailDir, email));
  return { v, reference, path: `/my-registration/${link![1]}` };
}

const refundsOf = async (reference: string) =>
  t.db("payment_refunds as f").join("payments as p", "p.id", "f.payment_id").where("p.reference", reference).orderBy("f.id").select("f.amount_cents", "f.request_key");

describe("a family once paid", () => {
  it("shows each athlete and the sibling discount on the manage page, and offers no package change", async () => {
    const { v, path } = await paidFamily(["fixed", 2500]);
    const page = textOf((await v.get(path)).text);
    for (const part of ["Jordan Reyes and Ana Reyes", "Athlete 1 Jordan Reyes: Full Event", "Athlete 2 Ana Reyes: 2 Days (Saturday, June 5, Sunday, June 6), $238.00", "Sibling discount -$25.00", "Amount paid $512.00"]) expect(page).toContain(part);
    expect(page).not.toContain("Choose a bigger package");
    expect(page).not.toContain("not given yet");
  });

  it("changes one athlete's days within its own package: the athlete's row, the e-mail, the page; the price and the others stay", async () => {
    const { v, reference, path } = await paidFamily(["percent", 10]);
    const before = await t.db("registrations").where({ reference }).first();
    const days = (await t.db("event_days").where({ event_id: 2 }).orderBy(["sort_order", "id"]).pluck("id")).map(Number);
    const page = await v.get(path);
    // Ana's 2-day package offers a choice; Jordan's full event does not.
    expect(textOf(page.text)).toContain("Ana Reyes: tick 2 days for their package");
    expect(textOf(page.text)).not.toContain("Jordan Reyes: tick");
    const version = /name="version" value="(\d+)"/.exec(page.text)![1]!;
    const athleteRows = () => t.db("registration_athletes").where({ registration_id: before.id }).orderBy("position").select("position", "day_ids", "package_code", "list_price_cents", "sibling_discount_cents");
    const rowsBefore = await athleteRows();
    const registrationDays = () => t.db("registration_days").where({ registration_id: before.id }).orderBy("event_day_id").pluck("event_day_id");
    const daysBefore = await registrationDays();

    // Bad input: one day for a 2-day package, an athlete with no choice, a stale version: a message, nothing changed.
    const one = await v.form(`${path}/athlete-days`, { version, athlete: "2", day3: "on" });
    expect(one.status).toBe(400);
    expect(textOf(one.text)).toContain("You must select exactly 2 days to match your chosen package");
    expect((await v.form(`${path}/athlete-days`, { version, athlete: "1", day1: "on", day2: "on" })).status).toBe(400);
    expect((await v.form(`${path}/athlete-days`, { version, athlete: "7", day2: "on", day3: "on" })).status).toBe(400);
    expect((await v.form(`${path}/athlete-days`, { version: String(Number(version) - 1), athlete: "2", day2: "on", day3: "on" })).status).toBe(409);
    expect(await athleteRows()).toEqual(rowsBefore);

    const ok = await v.form(`${path}/athlete-days`, { version, athlete: "2", day2: "on", day3: "on" });
    expect(ok.status).toBe(303);
    const after = await athleteRows();
    expect(after[1]).toEqual({ ...rowsBefore[1], day_ids: `${days[1]},${days[2]}` });
    expect(after[0]).toEqual(rowsBefore[0]);
    // The first athlete's days are the registration's: unchanged.
    expect(await registrationDays()).toEqual(daysBefore);
    const row = await t.db("registrations").where({ reference }).first();
    expect(row).toMatchObject({ version: before.version + 1, amount_cents: before.amount_cents, amount_paid_cents: before.amount_paid_cents, places: 2 });
    const mail = await t.db("email_outbox").where({ reference: `registration:${reference}`, kind: "registration_changed" }).first();
    expect(mail.text_body).toContain("days of Ana Reyes");
    expect(textOf((await v.get(path)).text)).toContain("Athlete 2 Ana Reyes: 2 Days (Sunday, June 6, Monday, June 7)");

    // The same post again (a second tab) is refused as stale; nothing more changes.
    expect((await v.form(`${path}/athlete-days`, { version, athlete: "2", day1: "on", day3: "on" })).status).toBe(409);
    expect(await athleteRows()).toEqual(after);

    // Two tabs post other days at once: the registration's lock lets one through, the other is stale.
    const shown = String(row.version);
    const both = await Promise.all([
      v.form(`${path}/athlete-days`, { version: shown, athlete: "2", day1: "on", day3: "on" }),
      v.form(`${path}/athlete-days`, { version: shown, athlete: "2", day1: "on", day2: "on" }),
    ]);
    expect(both.map((r) => r.status).sort()).toEqual([303, 409]);
    const won = both[0].status === 303 ? `${days[0]},${days[2]}` : `${days[0]},${days[1]}`;
    expect((await athleteRows())[1].day_ids).toBe(won);
    expect((await t.db("registrations").where({ reference }).first()).version).toBe(row.version + 1);
    expect(await t.db("email_outbox").where({ reference: `registration:${reference}`, kind: "registration_changed" })).toHaveLength(2);
  });

  it("offers no athlete's days to one athlete's registration, and refuses the post", async () => {
    const v = await visitor(t.app);
    const res = await apiStart(v, 2, { registrationType: "2day", day1: "on", day2: "on" });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const reference = res.body.registrationId as string;
    const intentId = intentIdOf(res.body.clientSecret);
    expect(t.fake.confirm(intentId, { number: "4242 4242 4242 4242" }).status).toBe(200);
    expect((await v.post("/api/events/2/stripe-payment-success").send({ paymentIntentId: intentId })).body.status).toBe("paid");
    const email = await t.db("email_outbox").where({ reference: `registration:${reference}`, kind: "registration_confirmation" }).first();
    const path = `/my-registration/${/\/my-registration\/([A-Za-z0-9_-]{43})/.exec(sentText(t.mailDir, email))![1]}`;
    const page = await v.get(path);
    expect(textOf(page.text)).not.toContain("Change an athlete's days");
    const version = /name="version" value="(\d+)"/.exec(page.text)![1]!;
    const row = await t.db("registrations").where({ reference }).first();
    expect((await v.form(`${path}/athlete-days`, { version, athlete: "1", day2: "on", day3: "on" })).status).toBe(409);
    expect(await t.db("registrations").where({ reference }).first()).toEqual(row);
  });

  it("cancels one athlete with a refund of its own share, never more; the rest of the family stays", async () => {
    const { v, reference, path } = await paidFamily(["percent", 10]);
    const left = await placesLeft(t.db, 2, new Date());
    const cancel = await v.get(`${path}/cancel`);
    const text = textOf(cancel.text);
    expect(text).toContain("Ana Reyes: $214.20 back");
    expect(text).toContain("Jordan Reyes: $299.00 back");
    const version = /name="version" value="(\d+)"/.exec(cancel.text)![1]!;
    const res = await v.form(`${path}/cancel`, { version, scope: "athlete", athlete: "2" });
    expect(res.status).toBe(303);
    const row = await t.db("registrations").where({ reference }).first();
    expect(row).toMatchObject({ status: "paid", places: 1 });
    expect(await placesLeft(t.db, 2, new Date())).toBe(left + 1);
    // Her share: $238.00 less 10% = $214.20, not half of the $513.20 paid.
    expect((await refundsOf(reference)).map((r) => r.amount_cents)).toEqual([21420]);
    const ana = await t.db("registration_athletes").where({ registration_id: row.id, position: 2 }).first();
    expect(ana.withdrawn_at).not.toBeNull();
    expect(ana.withdrawal_refund_cents).toBe(21420);

    // One e-mail: the receipt to the guardian, naming Ana and her share.
    const receipts = await t.db("email_outbox").where({ reference: `registration:${reference}` }).whereIn("kind", ["registration_canceled", "registration_athlete_withdrawn"]);
    expect(receipts.map((e) => [e.kind, e.to_address])).toEqual([["registration_canceled", "maria@example.com"]]);
    expect(receipts[0].text_body).toContain("Ana Reyes");

    // The same post again (a second tab) refunds nothing more; the last athlete goes only with the whole registration.
    expect((await v.form(`${path}/cancel`, { version, scope: "athlete", athlete: "2" })).status).toBe(409);
    const again = await v.get(`${path}/cancel`);
    const v2 = /name="version" value="(\d+)"/.exec(again.text)![1]!;
    expect((await v.form(`${path}/cancel`, { version: v2, scope: "athlete", athlete: "1" })).status).toBe(409);
    expect((await v.form(`${path}/cancel`, { version: v2, scope: "all" })).status).toBe(303);
    const refunds = (await refundsOf(reference)).map((r) => r.amount_cents);
    expect(refunds).toEqual([21420, 29900]);
    expect(refunds.reduce((a, b) => a + b, 0)).toBe(51320);
  });
});
