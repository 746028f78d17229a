import { describe, expect, it } from "vitest";
import { changesApp, paidChangesKit, until } from "./helpers.ts";
import { sentText } from "../../../support/mail.ts";
import request from "supertest";
import { backend } from "../../../support/app.ts";
import { csrfFrom, executableScripts, textOf, visitor } from "../../../support/http.ts";
import { secretTokenHash } from "../../../../src/http/secretLinks.ts";
import { placesLeft, placesTaken } from "../../../../src/events/repository.ts";
import { insertEntry } from "../../../../src/registrations/waitlist/tables/entries.ts";
import type { JobQueue } from "../../../../src/db/jobQueue.ts";

const t = changesApp();

const ATHLETE = {
  firstName: "Maya",
  lastName: "Ortiz",
  email: "maya.parent@example.com",
  phone: "(702) 555-0100",
  grade: "9th",
  gender: "Female",
  schoolName: "Desert High",
  clubName: "Vegas WC",
  tShirtSize: "Small",
  emergencyContactName: "Ana Ortiz",
  emergencyContactPhone: "702-555-0199", adult: "on",
  specialRequirements: "",
  agrees: "on",
};
let seq = 0;
let address = 10;

/** A paid 2-day registration for event 2 (Saturday June 5 and Monday June 7); its manage link from the e-mail. */
async function paidRegistration(extra: Record<string, unknown> = {}) {
  const v = await visitor(t.app);
  const formSessionId = `manage-test-form-${String(++seq).padStart(4, "0")}-${Date.now()}`;
  const res = await v
    .post("/api/events/2/create-payment-intent")
    .set("x-forwarded-for", `203.0.113.${address++}`)
    .send({ option: "2day", formSessionId, registrationData: { ...ATHLETE, registrationType: "2day", day1: true, day3: true, ...extra } });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  const reference = res.body.registrationId as string;
  const intentId = (res.body.clientSecret as string).split("_secret_")[0]!;
  expect(t.fake.confirm(intentId, { number: "4242 4242 4242 4242" }).status).toBe(200);
  expect((await v.post("/api/events/2/stripe-payment-success").send({ paymentIntentId: intentId })).body.status).toBe("paid");
  const email = await t.db("email_outbox").where({ reference: `registration:${reference}`, kind: "registration_confirmation" }).first();
  const link = /https?:\/\/[^\s]+\/my-registration\/([A-Za-z0-9_-]{43})/.exec(sentText(t.mailDir, email));
  expect(link, "the confirmation e-mail carries the manage link").not.toBeNull();
  return { v, reference, intentId, email, path: `/my-registration/${link![1]}`, token: link![1]! };
}

const kit = paidChangesKit(t);
/** A paid team of `n` athletes for event 2 ($199 each); the coach's manage link from the roster e-mail. */
const paidTeam = (n: number) => kit.paidTeam(n, "", { email: "coach.brooks@example.com", teamName: "Steel City WC" });

const refundsOf = async (reference: string) => {
  const payment = await t.db("payments").where({ kind: "registration", reference }).first();
  return t.db("payment_refunds").where({ payment_id: payment.id }).orderBy("id");
};

const row = (reference: string) => t.db("registrations").where({ reference }).first();
const athlete = async (reference: string) => t.db("registration_athletes").where({ registration_id: (await row(reference)).id }).first();
const days = async (reference: string) =>
  (await t.db("registration_days as rd").join("event_days as d", "d.id", "rd.event_day_id").where("rd.registration_id", (await row(reference)).id).orderBy("d.sort_order").select("d.label")).map(
    (d: { label: string }) => d.label,
  );
const emailsOf = (reference: string, kind: string) => t.db("email_outbox").where({ reference: `registration:${reference}`, kind }).orderBy("id");

/** The manage page's form values as a browser without JavaScript posts them back (a fresh browser: its own CSRF token). */
async function freshBrowser(path: string) {
  const agent = request.agent(t.app);
  // Each browser has its own address, so the manage routes' limit per address counts each apart.
  const ip = `198.18.${Math.floor(address / 250)}.${address++ % 250}`;
  const get = (url: string) => agent.get(url).set("x-forwarded-for", ip);
  const page = await get(path);
  const token = csrfFrom(page.text);
  const version = /name="version" value="(\d+)"/.exec(page.text)?.[1];
  return { get, page, token, version: version ?? "", post: (url: string, fields: Record<string, string>) => agent.post(url).set("x-forwarded-for", ip).type("form").send({ ...fields, _csrf: token }) };
}

const formOf = (overrides: Record<string, string> = {}) => {
  const { agrees: _a, ...rest } = ATHLETE;
  return { ...rest, day1: "on", day3: "on", ...overrides };
};

describe("the private manage link", () => {
  it("is in the confirmation e-mail and on the confirmation page, stores only its hash, and opens from any browser", async () => {
    const { v, reference, intentId, email, path, token } = await paidRegistration();
    expect(email.text_body).toContain("Hi Maya,");
    expect(email.text_body).toMatch(/- Saturday, June 5: 9:00 AM - 4:00 PM PDT/);
    // The e-mail's link; the confirmation page's own is written beside it when the browser's return settled the
    // payment (the webhook may settle it first: then the page writes it), so it is left out here.
    const links = (await t.db("registration_manage_links").where({ registration_id: (await row(reference)).id })).filter((l: { sent_by: string | null }) => l.sent_by !== "page");
    expect(links).toHaveLength(1);
    expect(links[0].token_hash).toBe(secretTokenHash(token));
    expect(JSON.stringify(links)).not.toContain(token);

    // The confirmation page shows a link of its own (the same on a reload), only to the visitor who paid.
    const confirmed = await v.get(`/event-registration/2?paymentSuccess=true&paymentIntentId=${intentId}`);
    const pageLink = /href="(\/my-registration\/[A-Za-z0-9_-]{43})"/.exec(confirmed.text)?.[1];
    expect(pageLink).toBeDefined();
    const again = await v.get(`/event-registration/2?paymentSuccess=true&paymentIntentId=${intentId}`);
    expect(again.text).toContain(`href="${pageLink}"`);
    expect(await t.db("registration_manage_links").where({ registration_id: (await row(reference)).id })).toHaveLength(2);

    for (const p of [path, pageLink!]) {
      const page = await request(t.app).get(p).expect(200);
      const text = textOf(page.text);
      for (const part of [reference, "Paid", "National Champ Camp", "June 5-7, 2027", "9:00 AM - 4:00 PM PDT", "2 Days", "Saturday, June 5; Monday, June 7", "Maya Ortiz", "$238.00", "You can change these by the end of May 28 (Pacific time)", "Canceled 30 days or more before the camp's first day: a full refund."]) {
        expect(text, part).toContain(part);
      }
      expect(page.headers["cache-control"]).toContain("no-store");
      expect(page.headers["referrer-policy"]).toBe("same-origin");
      expect(executableScripts(page.text), "works without JavaScript").toEqual([]);
    }
    const ics = await request(t.app).get(`${path}/calendar.ics`).expect(200);
    expect(ics.headers["content-type"]).toContain("text/calendar");
    expect(ics.text.match(/BEGIN:VEVENT/g)).toHaveLength(2);
  });

  it("answers the same 404 page for an unknown, malformed or revoked token", async () => {
    const { path, token } = await paidRegistration();
    await t.db("registration_manage_links").where({ token_hash: secretTokenHash(token) }).update({ revoked_at: new Date() });
    const bodies: string[] = [];
    for (const p of [path, "/my-registration/" + "A".repeat(43), "/my-registration/short", "/my-registration/" + "%27%22".repeat(30), `${path}/calendar.ics`]) {
      const res = await request(t.app).get(p);
      expect(res.status, p).toBe(404);
      expect(textOf(res.text), p).toContain("Link Not Found");
      bodies.push(textOf(res.text).replace(/csrf[^ ]*/g, ""));
    }
    expect(new Set(bodies.slice(0, 4)).size).toBe(1);
  });
});

describe("changes until the freeze date", () => {
  it("changes the shirt size, the emergency contact and a day with the same messages as registration, and e-mails the contact", async () => {
    const { reference, path } = await paidRegistration();
    const b = await freshBrowser(path);
    const before = await row(reference);

    const bad = await b.post(`${path}/details`, { ...formOf({ emergencyContactPhone: "555", day2: "on" }), version: b.version });
    expect(bad.status).toBe(400);
    expect(textOf(bad.text)).toContain("Please enter a valid 10-digit phone number");
    expect(textOf(bad.text)).toContain("You must select exactly 2 days to match your chosen package");
    expect((await row(reference)).version).toBe(before.version);

    const ok = await b.post(`${path}/details`, { ...formOf({ tShirtSize: "Large", emergencyContactName: "Luis Ortiz", emergencyContactPhone: "702-555-0123", day3: "", day2: "on" }), version: b.version });
    expect(ok.status).toBe(303);
    expect(ok.headers.location).toBe(path);
    expect(await athlete(reference)).toMatchObject({ shirt_size: "Large", emergency_contact_name: "Luis Ortiz", emergency_contact_phone: "702-555-0123" });
    expect(await days(reference)).toEqual(["Saturday, June 5", "Sunday, June 6"]);
    const after = await row(reference);
    expect(after.version).toBe(before.version + 1);
    expect(after.amount_paid_cents).toBe(23800);
    const [mail] = await emailsOf(reference, "registration_changed");
    expect(mail.to_address).toBe("maya.parent@example.com");
    for (const part of ["Hi Maya,", "shirt size, emergency contact, days", "- Sunday, June 6: 9:00 AM - 4:00 PM PDT", "Luis Ortiz"]) expect(mail.text_body, part).toContain(part);
    expect(textOf((await b.get(path)).text)).toContain("Your changes are saved.");

    // The tab still showing the older version is refused and shown the registration as it stands.
    const stale = await b.post(`${path}/details`, { ...formOf({ tShirtSize: "XL" }), version: b.version });
    expect(stale.status).toBe(409);
    expect(textOf(stale.text)).toContain("This registration was changed in another window or tab.");
    expect((await athlete(reference)).shirt_size).toBe("Large");
  });

  it("after the freeze date only the medical notes change", async () => {
    const { reference, path } = await paidRegistration();
    await t.db("events").where({ id: 2 }).update({ changes_freeze_at: new Date(Date.now() - 60_000) });
    const b = await freshBrowser(path);
    expect(textOf(b.page.text)).toContain("The deadline for changes has passed: only the medical notes can still change");
    expect(b.page.text).not.toContain('name="tShirtSize"');
    const res = await b.post(`${path}/details`, { ...formOf({ tShirtSize: "XXL", firstName: "Someone" }), specialRequirements: "Asthma: inhaler in bag", version: b.version });
    expect(res.status).toBe(303);
    expect(await athlete(reference)).toMatchObject({ shirt_size: "Small", first_name: "Maya", special_requirements: "Asthma: inhaler in bag" });
    expect((await emailsOf(reference, "registration_changed"))[0].text_body).toContain("medical notes and special requirements");
  });

  it.runIf(backend === "mysql")("two tabs saving at once on MySQL: one change wins, the other is told, one e-mail", async () => {
    const { reference, path } = await paidRegistration();
    const [a, b] = [await freshBrowser(path), await freshBrowser(path)];
    const results = await Promise.all([
      a.post(`${path}/details`, { ...formOf({ tShirtSize: "Medium" }), version: a.version }),
      b.post(`${path}/details`, { ...formOf({ tShirtSize: "XL" }), version: b.version }),
    ]);
    expect(results.map((r) => r.status).sort()).toEqual([303, 409]);
    const winner = results[0].status === 303 ? "Medium" : "XL";
    expect((await athlete(reference)).shirt_size).toBe(winner);
    expect(await emailsOf(reference, "registration_changed")).toHaveLength(1);
  });
});

describe("a cheaper package", () => {
  it("moves a full-camp registration to 2 days and refunds the $61 difference; never to a dearer package, never with the wrong days", async () => {
    const { reference, path } = await paidRegistration({ registrationType: "full", day1: undefined, day3: undefined });
    expect((await row(reference)).amount_paid_cents).toBe(29900);
    const b = await freshBrowser(path);
    expect(textOf(b.page.text)).toContain("2 Days ($238.00): you get back $61.00");
    expect(textOf(b.page.text)).toContain("1 Day ($119.00): you get back $180.00");

    const wrongDays = await b.post(`${path}/package`, { registrationType: "2day", day1: "on", version: b.version });
    expect(wrongDays.status).toBe(400);
    expect(textOf(wrongDays.text)).toContain("You must select exactly 2 days to match your chosen package");
    expect((await b.post(`${path}/package`, { registrationType: "full", day1: "on", day2: "on", day3: "on", version: b.version })).status).toBe(400);
    expect((await row(reference)).package_code).toBe("full");

    const ok = await b.post(`${path}/package`, { registrationType: "2day", day1: "on", day3: "on", version: b.version });
    expect(ok.status).toBe(303);
    expect(await row(reference)).toMatchObject({ package_code: "2day", package_label: "2 Days", list_price_cents: 23800, amount_cents: 23800, amount_paid_cents: 29900, status: "paid", version: 2 });
    expect(await days(reference)).toEqual(["Saturday, June 5", "Monday, June 7"]);
    const [refund] = await refundsOf(reference);
    expect(refund).toMatchObject({ amount_cents: 6100, request_key: `downgrade:registration:${(await row(reference)).id}:v1` });
    await until(async () => (await row(reference)).amount_refunded_cents === 6100);
    expect((await row(reference)).status).toBe("paid");
    expect((await emailsOf(reference, "registration_changed"))[0].text_body).toContain("package from Full Camp (3 Days) to 2 Days, $61.00 refunded to your card");
    // The same form again (a second tab, a re-post): refused, nothing refunded twice.
    expect((await b.post(`${path}/package`, { registrationType: "1day", day1: "on", version: b.version })).status).toBe(409);
    expect(await refundsOf(reference)).toHaveLength(1);
    // Cancelling later refunds the policy's share of what is still paid for.
    const page = textOf((await b.get(`${path}/cancel`)).text);
    expect(page).toContain("You get back $238.00 (100% of $238.00).");
  });
});

describe("cancellation under the policy", () => {
  it("shows the refund first, frees the place at once, refunds in full 30+ days before, records it and e-mails a receipt", async () => {
    const { reference, path } = await paidRegistration();
    const left = await placesLeft(t.db, 2, new Date());
    const b = await freshBrowser(path);
    const confirm = await b.get(`${path}/cancel`).expect(200);
    expect(textOf(confirm.text)).toContain("You get back $238.00 (100% of $238.00).");
    expect(textOf(confirm.text)).toContain("Canceled 30 days or more before the camp's first day: a full refund.");
    expect(executableScripts(confirm.text)).toEqual([]);
    const version = /name="version" value="(\d+)"/.exec(confirm.text)![1]!;

    const res = await b.post(`${path}/cancel`, { version, scope: "all" });
    expect(res.status).toBe(303);
    expect(await placesLeft(t.db, 2, new Date())).toBe(left + 1);
    expect(await row(reference)).toMatchObject({ withdrawal_refund_cents: 23800 });
    const [receipt] = await emailsOf(reference, "registration_canceled");
    for (const part of ["Hi Maya,", "Maya Ortiz's registration for National Champ Camp", "Amount paid: $238.00", "a refund of $238.00 (100% of $238.00)"]) expect(receipt.text_body, part).toContain(part);
    const [refund] = await refundsOf(reference);
    expect(refund).toMatchObject({ amount_cents: 23800, request_key: `cancel:registration:${(await row(reference)).id}:all:v1` });

    // Stripe confirms it: the refund is recorded, the registration ends refunded, the payer hears of it.
    await until(async () => (await row(reference)).status === "refunded");
    expect((await refundsOf(reference))[0].status).toBe("succeeded");
    expect((await row(reference)).amount_refunded_cents).toBe(23800);
    expect(await emailsOf(reference, "registration_refunded")).toHaveLength(1);
    const roster = await t.db("registration_roster").where({ reference });
    expect(roster[0]).toMatchObject({ status: "refunded" });
    expect(Number(roster[0].amount_refunded)).toBe(238);
    const page = textOf((await b.get(path)).text);
    expect(page).toContain("Refunded $238.00");
    expect(page).toContain("Nothing can change any more");

    // Once more (a re-post): nothing more happens.
    expect((await b.post(`${path}/cancel`, { version, scope: "all" })).status).toBe(409);
    expect(await refundsOf(reference)).toHaveLength(1);
  });

  it("gives back half 7 to 29 days before the first day", async () => {
    const soon = new Date(Date.now() + 20 * 86_400_000);
    const original = await t.db("events").where({ id: 4 }).first("start_date", "end_date");
    const v = await visitor(t.app);
    const res = await v.post("/api/events/4/create-payment-intent").set("x-forwarded-for", `203.0.113.${address++}`).send({ option: "full", formSessionId: `manage-half-${Date.now()}`, registrationData: { ...ATHLETE, registrationType: "full" } });
    const reference = res.body.registrationId as string;
    const intentId = (res.body.clientSecret as string).split("_secret_")[0]!;
    t.fake.confirm(intentId, { number: "4242 4242 4242 4242" });
    expect((await v.post("/api/events/4/stripe-payment-success").send({ paymentIntentId: intentId })).body.status).toBe("paid");
    const mail = await t.db("email_outbox").where({ reference: `registration:${reference}`, kind: "registration_confirmation" }).first();
    const path = `/my-registration/${/\/my-registration\/([A-Za-z0-9_-]{43})/.exec(sentText(t.mailDir, mail))![1]}`;
    await t.db("events").where({ id: 4 }).update({ start_date: soon.toISOString().slice(0, 10), end_date: soon.toISOString().slice(0, 10) });
    try {
      const b = await freshBrowser(path);
      const confirm = await b.get(`${path}/cancel`);
      expect(textOf(confirm.text)).toContain("You get back $100.00 (50% of $200.00).");
      const version = /name="version" value="(\d+)"/.exec(confirm.text)![1]!;
      expect((await b.post(`${path}/cancel`, { version, scope: "all" })).status).toBe(303);
      expect(await row(reference)).toMatchObject({ status: "withdrawn", withdrawal_refund_cents: 10000 });
      await until(async () => (await refundsOf(reference))[0]?.status === "succeeded");
      await until(async () => (await row(reference)).amount_refunded_cents === 10000);
      expect((await row(reference)).status).toBe("withdrawn");
      expect((await emailsOf(reference, "registration_canceled"))[0].text_body).toContain("a refund of $100.00 (50% of $200.00)");
    } finally {
      await t.db("events").where({ id: 4 }).update(original);
    }
  });

  it("offers the place a cancellation frees to the waiting list at once", async () => {
    const { reference, path } = await paidRegistration();
    const capacity = (await t.db("events").where({ id: 2 }).first("capacity")).capacity as number;
    await t.db("events").where({ id: 2 }).update({ capacity: await placesTaken(t.db, 2, new Date()) });
    try {
      const now = new Date();
      const entry = await t.db.transaction((trx) =>
        insertEntry(trx, 2, { kind: "individual", places: 1, packageCode: "full", firstName: "Lina", lastName: "Park", email: "lina.park@example.com", phone: "(702) 555-0111", teamName: undefined }, "leave-hash-manage-test", now),
      );
      const b = await freshBrowser(path);
      const version = /name="version" value="(\d+)"/.exec((await b.get(`${path}/cancel`)).text)![1]!;
      expect((await b.post(`${path}/cancel`, { version, scope: "all" })).status).toBe(303);
      // Its full refund may already have succeeded at Stripe (then "refunded"): either way its place is free.
      expect(["withdrawn", "refunded"]).toContain((await row(reference)).status);
      await (t.app.locals.offerQueue as JobQueue).drain();
      expect((await t.db("waiting_list_entries").where({ id: entry.id }).first()).status).toBe("offered");
      expect(await t.db("email_outbox").where({ to_address: "lina.park@example.com", kind: "waiting_list_offer" })).toHaveLength(1);
    } finally {
      const held = await t.db("waiting_list_holds").pluck("registration_id");
      await t.db("waiting_list_holds").delete();
      await t.db("registrations").whereIn("id", held).delete();
      await t.db("waiting_list_entries").delete();
      await t.db("events").where({ id: 2 }).update({ capacity });
    }
  });

  it("lets a coach cancel one athlete (one place, one share) while the team keeps its minimum, or the whole team", async () => {
    const { reference, path } = await paidTeam(6);
    const left = await placesLeft(t.db, 2, new Date());
    const b = await freshBrowser(path);
    const confirm = await b.get(`${path}/cancel`);
    const text = textOf(confirm.text);
    expect(text).toContain("Cancel the whole team");
    expect(text).toContain("You get back $1,194.00 (100% of $1,194.00).");
    expect(text).toContain("You get back $199.00 (100% of $199.00).");
    const version = /name="version" value="(\d+)"/.exec(confirm.text)![1]!;
    expect((await b.post(`${path}/cancel`, { version, scope: "athlete", athlete: "6" })).status).toBe(303);
    expect(await placesLeft(t.db, 2, new Date())).toBe(left + 1);
    expect(await row(reference)).toMatchObject({ status: "paid", places: 5 });
    const roster = await t.db("registration_roster").where({ reference }).orderBy("athlete_name");
    expect(roster.map((r: { status: string }) => r.status)).toEqual(["paid", "paid", "paid", "paid", "paid", "withdrawn"]);
    expect((await emailsOf(reference, "registration_canceled"))[0].text_body).toContain("Kid6 Brooks's registration");
    // The athlete's family hears it too, at the roster's address, and its link no longer opens.
    const [told] = await emailsOf(reference, "registration_athlete_withdrawn");
    expect(told).toMatchObject({ to_address: "kid6@example.com" });
    expect(told.text_body).toContain("withdrew Kid6 Brooks from");
    expect(told.text_body).toContain("any refund goes to the card that paid");
    await until(async () => (await row(reference)).amount_refunded_cents === 19900);

    // At 5 athletes no single one can go; the whole team can.
    const again = await b.get(`${path}/cancel`);
    expect(textOf(again.text)).toContain("so no single athlete can be canceled");
    const v2 = /name="version" value="(\d+)"/.exec(again.text)![1]!;
    expect((await b.post(`${path}/cancel`, { version: v2, scope: "athlete", athlete: "1" })).status).toBe(409);
    expect((await b.post(`${path}/cancel`, { version: v2, scope: "all" })).status).toBe(303);
    expect(await placesLeft(t.db, 2, new Date())).toBe(left + 6);
    expect((await refundsOf(reference)).map((r: { amount_cents: number }) => r.amount_cents)).toEqual([19900, 99500]);
    await until(async () => (await row(reference)).status === "refunded");
  });

  it.runIf(backend === "mysql")("two tabs cancelling at once on MySQL: one cancellation, one refund, the place freed once", async () => {
    const { reference, path } = await paidRegistration();
    const left = await placesLeft(t.db, 2, new Date());
    const [a, b] = [await freshBrowser(path), await freshBrowser(path)];
    const results = await Promise.all([a.post(`${path}/cancel`, { version: a.version, scope: "all" }), b.post(`${path}/cancel`, { version: b.version, scope: "all" })]);
    expect(results.map((r) => r.status).sort()).toEqual([303, 409]);
    expect(await refundsOf(reference)).toHaveLength(1);
    expect(await emailsOf(reference, "registration_canceled")).toHaveLength(1);
    expect(await placesLeft(t.db, 2, new Date())).toBe(left + 1);
  });
});

describe("the coach's roster and the families' own links", () => {
  it("sends a family its link; the family corrects its athlete, signs the waiver; the roster shows who signed and who is missing", async () => {
    const { reference, path } = await paidTeam(6);
    const coach = await freshBrowser(path);
    const roster = textOf(coach.page.text);
    expect(roster).toContain("Roster");
    expect(roster.match(/Missing: waiver and medical release/g)).toHaveLength(6);
    expect(coach.page.text.match(/Send family link/g)).toHaveLength(6);

    // Each family got its link when the team was paid; the coach sends Kid2's again.
    expect(await emailsOf(reference, "registration_family_link")).toHaveLength(6);
    expect((await coach.post(`${path}/family`, { athlete: "2" })).status).toBe(303);
    const mail = (await emailsOf(reference, "registration_family_link")).at(-1);
    expect(mail.to_address).toBe("kid2@example.com");
    for (const part of ["Hi Parent 2,", "Dana Brooks has registered Kid2 Brooks for National Champ Camp with Steel City WC", "- Saturday, June 5: 9:00 AM - 4:00 PM PDT"]) expect(mail.text_body, part).toContain(part);
    const familyPath = `/my-registration/${/\/my-registration\/([A-Za-z0-9_-]{43})/.exec(sentText(t.mailDir, mail))![1]}`;

    const family = await freshBrowser(familyPath);
    const page = textOf(family.page.text);
    expect(page).toContain("Kid2 Brooks");
    expect(page).toContain("Registered and paid for by Dana Brooks.");
    expect(page).not.toContain("Kid3 Brooks");
    // A family's link does not cancel or send links.
    expect((await family.get(`${familyPath}/cancel`)).status).toBe(403);
    expect((await family.post(`${familyPath}/cancel`, { version: family.version, scope: "all" })).status).toBe(403);
    expect((await row(reference)).status).toBe("paid");

    const athleteFields = (over: Record<string, string> = {}) => ({
      "athlete[firstName]": "Kid2", "athlete[lastName]": "Brooks", "athlete[age]": "12", "athlete[email]": "kid2@example.com", "athlete[shirtSize]": "XL",
      "athlete[parentName]": "Parent 2", "athlete[parentPhoneNumber]": "205-555-0100", ...over,
    });
    const bad = await family.post(`${familyPath}/details`, { ...athleteFields({ "athlete[email]": "nope", "athlete[lastName]": "" }), version: family.version });
    expect(bad.status).toBe(400);
    expect(textOf(bad.text)).toContain("This field is required");
    const ok = await family.post(`${familyPath}/details`, { ...athleteFields({ "athlete[parentPhoneNumber]": "205-555-0177" }), specialRequirements: "Asthma", version: family.version });
    expect(ok.status).toBe(303);
    const kid2 = await t.db("registration_athletes").where({ registration_id: (await row(reference)).id, position: 2 }).first();
    expect(kid2).toMatchObject({ shirt_size: "XL", emergency_contact_phone: "205-555-0177", special_requirements: "Asthma" });
    const [changed] = await emailsOf(reference, "registration_changed");
    expect(changed.to_address).toBe("coach.brooks@example.com");
    expect(changed.text_body).toContain("Kid2 Brooks: shirt size, parent's contact, medical notes and special requirements");

    const minor = await family.post(`${familyPath}/waiver`, { signedName: "Kid Two", relationship: "Athlete (18 or older)", agrees: "on" });
    expect(minor.status).toBe(400);
    expect(textOf(minor.text)).toContain("An athlete under 18 needs a parent or legal guardian to sign.");
    expect(textOf((await family.post(`${familyPath}/waiver`, { signedName: "Parent Two", relationship: "Parent" })).text)).toContain("Please tick the box to agree");
    expect((await family.post(`${familyPath}/waiver`, { signedName: "Parent Two", relationship: "Parent", agrees: "on" })).status).toBe(303);
    expect(textOf((await family.get(familyPath)).text)).toMatch(/Signed by Parent Two \(Parent\) on .* version 2026-11-26\./);

    const view = await t.db("registration_roster").where({ reference }).orderBy("athlete_name");
    expect(view.filter((r: { waiver_version: string | null }) => r.waiver_version === "2026-11-26")).toHaveLength(1);
    expect(view.find((r: { athlete_name: string }) => r.athlete_name === "Kid2 Brooks")).toMatchObject({ waiver_signed_by: "Parent Two, Parent" });
    expect(view.filter((r: { waiver_version: string | null }) => r.waiver_version === null)).toHaveLength(5);
    const after = textOf((await coach.get(path)).text);
    expect(after.match(/Missing: waiver and medical release/g)).toHaveLength(5);
    expect(after).toContain("Waiver signed (version 2026-11-26) by Parent Two, Parent");

    // Once the coach cancels that athlete, the family's link stops working.
    const cancel = await coach.get(`${path}/cancel`);
    const version = /name="version" value="(\d+)"/.exec(cancel.text)![1]!;
    expect((await coach.post(`${path}/cancel`, { version, scope: "athlete", athlete: "2" })).status).toBe(303);
    expect((await family.get(familyPath)).status).toBe(404);
  });
});

describe("reminders before the freeze date", () => {
  it("e-mails each family still missing the waiver once, whoever runs the job and however often", async () => {
    const { reference } = await paidTeam(6);
    const id = (await row(reference)).id;
    // Paid weeks ago: the families' link e-mails at payment went out before the reminders' window.
    await t.db("registration_reminders").where({ registration_id: id, kind: "family_link_at_payment" }).update({ sent_at: new Date(Date.now() - 30 * 86_400_000) });
    await t.db("registration_athletes").where({ registration_id: id, position: 1 }).update({ waiver_version: "2026-11-26", waiver_signed_name: "Parent One", waiver_signer_relationship: "Parent", waiver_signed_at: new Date() });
    const reminders = () => emailsOf(reference, "registration_family_reminder");
    const send = t.app.locals.sendFreezeReminders as () => Promise<number>;
    // Weeks before the freeze date: nothing yet.
    await send();
    expect(await reminders()).toHaveLength(0);
    await t.db("events").where({ id: 2 }).update({ changes_freeze_at: new Date(Date.now() + 3 * 86_400_000) });
    await Promise.all([send(), send(), send()]);
    await send();
    const sent = await reminders();
    expect(sent.map((m: { to_address: string }) => m.to_address).sort()).toEqual(["kid2@example.com", "kid3@example.com", "kid4@example.com", "kid5@example.com", "kid6@example.com"]);
    expect(sent[0].subject).toMatch(/^Reminder: Kid\d Brooks: National Champ Camp with Steel City WC/);
    expect(sent[0].text_body).toContain("still needs the waiver and medical release, and details can change only by ");
    const token = /\/my-registration\/([A-Za-z0-9_-]{43})/.exec(sentText(t.mailDir, sent[0]))![1]!;
    expect((await request(t.app).get(`/my-registration/${token}`)).status).toBe(200);
  });
});

describe("Lost your confirmation?", () => {
  it("answers the same for a registered and an unknown address, and e-mails a new link only to the registered one", async () => {
    const { reference } = await paidRegistration();
    const page = await request(t.app).get("/events/2").expect(200);
    expect(textOf(page.text)).toContain("Lost your confirmation?");
    const answers: string[] = [];
    for (const email of ["MAYA.parent@example.com", "nobody@example.com"]) {
      const v = await visitor(t.app, "/events/2");
      const res = await v.form("/events/2/lost-confirmation", { email });
      expect(res.status).toBe(303);
      expect(res.headers.location).toBe("/events/2#lost-confirmation");
      answers.push(textOf((await v.get("/events/2")).text).match(/Check your inbox[^.]*\./)?.[0] ?? "");
    }
    expect(answers[0]).toContain("Check your inbox");
    expect(answers[1]).toBe(answers[0]);
    // The links go out after the answer (its time says nothing either).
    await until(async () => (await emailsOf(reference, "registration_manage_link")).length === 1);
    const [mail] = await emailsOf(reference, "registration_manage_link");
    expect(mail.to_address).toBe("maya.parent@example.com");
    const token = /\/my-registration\/([A-Za-z0-9_-]{43})/.exec(sentText(t.mailDir, mail))![1]!;
    expect((await request(t.app).get(`/my-registration/${token}`)).status).toBe(200);
    expect(await t.db("email_outbox").where({ to_address: "nobody@example.com" })).toHaveLength(0);
  });

  it("is rate-limited per address", async () => {
    const v = await visitor(t.app, "/events/2");
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) statuses.push((await v.form("/events/2/lost-confirmation", { email: "x@example.com" }).set("x-forwarded-for", "198.51.100.77")).status);
    expect(statuses.slice(0, 5)).toEqual([303, 303, 303, 303, 303]);
    expect(statuses[5]).toBe(429);
  });
});

describe("the camp's policy pages", () => {
  it("publishes the waiver, the medical release and the cancellation policy, linked from the agreement and /terms", async () => {
    for (const [path, words] of [
      ["/camp-waiver", "Liability Waiver"],
      ["/camp-medical-release", "Medical Release"],
      ["/camp-cancellation-policy", "Canceled 29 to 7 days before the camp's first day: 50% of the amount paid back."],
      ["/terms", "Canceled less than 7 days before the first day, or once the camp has started: no refund."],
    ] as const) {
      expect(textOf((await request(t.app).get(path).expect(200)).text), path).toContain(words);
    }
    const form = (await request(t.app).get("/register/2")).text;
    for (const href of ["/terms", "/camp-waiver", "/camp-medical-release", "/camp-cancellation-policy"]) expect(form, href).toContain(`href="${href}"`);
    expect(textOf(form).replace(/ ([,.])/g, "$1")).toContain("I agree to the terms and conditions, the camp's liability waiver and medical release, and confirm the information above is correct.");
    const team = (await request(t.app).get("/team-register/2")).text;
    for (const href of ["/camp-waiver", "/camp-medical-release", "/camp-cancellation-policy"]) expect(team, href).toContain(`href="${href}"`);
  });
});

it("keeps the place counted while the registration changes", async () => {
  const left = await placesLeft(t.db, 2, new Date());
  const { path } = await paidRegistration();
  const b = await freshBrowser(path);
  await b.post(`${path}/details`, { ...formOf({ tShirtSize: "Medium" }), version: b.version });
  expect(await placesLeft(t.db, 2, new Date())).toBe(left - 1);
});
