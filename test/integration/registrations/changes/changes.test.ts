import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { sentText } from "../../../support/mail.ts";
import request from "supertest";
import { createPayingTestApp, type PayingTestApp } from "../../../support/app.ts";
import { textOf } from "../../../support/http.ts";
import { athleteFields, paidChangesKit, teamAthlete, until } from "../../../support/paidChanges.ts";
import { placesTaken } from "../../../../src/events/repository.ts";
import { CHANGE_TEXT } from "../../../../src/shared/registrations/changeTexts.ts";
import { MANAGE_TEXT } from "../../../../src/shared/registrations/changeTexts.ts";

/**
 * A paid registration's changes that cost money, through the real routes and the offline Stripe: an individual's
 * upgrade to a dearer package and a coach's new athletes, each paid through a PaymentIntent of its own (README:
 * Managing a registration after payment). Runs on SQLite and again on MySQL + Redis.
 */
let t: PayingTestApp;
let kit: ReturnType<typeof paidChangesKit>;

beforeAll(async () => {
  t = await createPayingTestApp({ TRUST_PROXY_HOPS: "1" });
  kit = paidChangesKit(t);
});
afterAll(async () => {
  await t?.close();
});
beforeEach(async () => {
  t.fake.autoDeliver = true;
  await t.fake.idle();
  await t.db("events").where({ id: 2 }).update({ changes_freeze_at: null, capacity: 200 });
});

const changesOf = async (reference: string) => t.db("registration_changes").where({ registration_id: (await kit.row(reference)).id }).orderBy("id");
const changePayments = (id: number) => t.db("payments").where({ kind: "registration_change", reference: String(id) });
const sweep = () => (t.app.locals.sweepExpiredHolds as () => Promise<number>)();
const pay = (intentId: string) => expect(t.fake.confirm(intentId, { number: "4242 4242 4242 4242" }).status).toBe(200);

describe("moving to a dearer package", () => {
  it("prices the difference, takes it through a new PaymentIntent, then applies the package and its days", async () => {
    const { reference, path } = await kit.paidRegistration();
    const b = await kit.browser(path);
    expect(textOf((await b.get(path)).text)).toContain("Choose a bigger package");
    const page = await b.get(`${path}/upgrade`).expect(200);
    expect(textOf(page.text)).toContain("Full Camp (3 Days) ($299.00): you pay $61.00 more");
    expect(textOf(page.text)).not.toContain("Single Day ($119.00)");

    // Not dearer: registration's own wording of the problem, nothing written.
    const cheaper = await b.post(`${path}/upgrade`, { version: b.version, registrationType: "1day", day1: "on" });
    expect(cheaper.status).toBe(400);
    expect(textOf(cheaper.text)).toContain(CHANGE_TEXT.notDearer);
    expect(await changesOf(reference)).toHaveLength(0);

    const posted = await b.post(`${path}/upgrade`, { version: b.version, registrationType: "full" });
    expect(posted.status).toBe(303);
    const [change] = await changesOf(reference);
    expect(change).toMatchObject({ kind: "upgrade", status: "pending", amount_cents: 6100, priced_version: 1, places: 0 });
    expect(posted.headers.location).toBe(`${path}/changes/${change.id}`);
    // The same form again (a double click, Back): the same change.
    expect((await b.post(`${path}/upgrade`, { version: b.version, registrationType: "full" })).headers.location).toBe(`${path}/changes/${change.id}`);
    expect(await changesOf(reference)).toHaveLength(1);

    const payPage = await b.get(posted.headers.location!).expect(200);
    expect(textOf(payPage.text)).toContain("Package: 2 Days to Full Camp");
    expect(payPage.text).toContain('data-testid="change-total">$61.00');
    const intentId = kit.intentOf(payPage.text)!;
    expect(intentId).toBeDefined();
    await b.get(posted.headers.location!).expect(200);
    expect(await changePayments(change.id)).toHaveLength(1);

    // The manage page shows the waiting change: what it is, its amount and a link to its page.
    const manage = await b.get(path);
    expect(textOf(manage.text)).toContain(CHANGE_TEXT.pendingLine(CHANGE_TEXT.pendingUpgrade("Full Camp (3 Days)"), "$61.00", false));
    expect(manage.text).toContain(`href="${posted.headers.location}"`);

    // While it waits for its payment, nothing else changes the registration.
    const details = await b.post(`${path}/details`, { version: b.version, firstName: "Maya", lastName: "Ortiz", email: "maya.parent@example.com", phone: "(702) 555-0100", grade: "9th", gender: "Female", schoolName: "Desert High", tShirtSize: "Large", emergencyContactName: "Ana Ortiz", emergencyContactPhone: "702-555-0199", adult: "on", day1: "on", day3: "on" });
    expect(details.status).toBe(409);
    expect(textOf(details.text)).toContain(CHANGE_TEXT.pendingElsewhere);

    // The return call only settles this change's own PaymentIntent, under its own registration's link.
    const foreign = await b.json(`${posted.headers.location!}/paid`, { paymentIntentId: "pi_someone_else" });
    expect(foreign.status).toBe(403);
    expect(foreign.body).toMatchObject({ success: false, error: CHANGE_TEXT.notYours });
    expect((await b.json(`${path}/changes/999999/paid`, { paymentIntentId: intentId })).status).toBe(404);

    pay(intentId);
    const answer = await b.json(`${posted.headers.location!}/paid`, { paymentIntentId: intentId });
    expect(answer.body).toMatchObject({ status: "paid" });
    const r = await kit.row(reference);
    expect(r).toMatchObject({ package_code: "full", list_price_cents: 29900, amount_cents: 29900, amount_paid_cents: 29900, version: 2, status: "paid" });
    expect(await t.db("registration_days").where({ registration_id: r.id })).toHaveLength(3);
    expect((await changesOf(reference))[0]).toMatchObject({ status: "paid" });
    expect(await kit.netPaid(reference)).toBe(29900);
    const [mail] = await t.db("email_outbox").where({ reference: `registration:${reference}`, kind: "registration_changed" });
    expect(mail.text_body).toContain("package from 2 Days to Full Camp (3 Days), $61.00 paid");
    expect(textOf((await b.get(posted.headers.location!)).text)).toContain(CHANGE_TEXT.paid);
    const after = await b.get(path);
    expect(textOf(after.text)).not.toContain(CHANGE_TEXT.pendingHeading);
    expect(after.text).not.toContain(`href="${posted.headers.location}"`);
    // A return call from another tab, after: nothing more.
    expect((await b.json(`${posted.headers.location!}/paid`, { paymentIntentId: intentId })).body).toMatchObject({ status: "paid" });
    expect(await kit.row(reference)).toMatchObject({ amount_paid_cents: 29900, version: 2 });
  });

  it("cancelling later refunds over both payments: the registration's and the upgrade's", async () => {
    const { reference, path } = await kit.paidRegistration();
    const b = await kit.browser(path);
    const posted = await b.post(`${path}/upgrade`, { version: b.version, registrationType: "full" });
    const intentId = kit.intentOf((await b.get(posted.headers.location!)).text)!;
    pay(intentId);
    expect((await b.json(`${posted.headers.location!}/paid`, { paymentIntentId: intentId })).body.status).toBe("paid");

    const c = await kit.browser(`${path}/cancel`);
    expect(textOf((await c.get(`${path}/cancel`)).text)).toContain("You get back $299.00 (100% of $299.00).");
    expect((await c.post(`${path}/cancel`, { version: c.version, scope: "all" })).status).toBe(303);
    const own = await t.db("payments").where({ kind: "registration", reference }).first();
    const ownRefund = await t.db("payment_refunds").where({ payment_id: own.id }).first();
    expect(Number(ownRefund.amount_cents)).toBe(23800);
    const [change] = await changesOf(reference);
    const changeRefund = await t.db("payment_refunds").where({ payment_id: (await changePayments(change.id))[0].id }).first();
    expect(Number(changeRefund.amount_cents)).toBe(6100);
    // One group: the registration's reference on its own payment and on its upgrade's.
    expect((await t.db("payments").where({ group_reference: reference }).orderBy("id").select("kind")).map((p) => p.kind)).toEqual(["registration", "registration_change"]);
    await until(async () => (await kit.row(reference)).status === "refunded");
    expect(await kit.row(reference)).toMatchObject({ amount_refunded_cents: 29900 });
  });

  it("refuses a registration paid with a discount code, after the freeze date, and from a family's link", async () => {
    const { path } = await kit.paidRegistration();
    await t.db("events").where({ id: 2 }).update({ changes_freeze_at: new Date(Date.now() - 60_000) });
    const b = await kit.browser(path);
    const page = await b.get(`${path}/upgrade`).expect(200);
    expect(textOf(page.text)).toContain("The deadline for changes has passed");
    expect(textOf((await b.get(path)).text)).not.toContain("Choose a bigger package");
    expect((await b.post(`${path}/upgrade`, { version: b.version, registrationType: "full" })).status).toBe(409);
    expect((await request(t.app).get("/my-registration/not-a-token/upgrade")).status).toBe(404);
  });

  it("a payment that arrives after the registration changed is refunded, and the registration stays as it was", async () => {
    const { reference, path } = await kit.paidRegistration();
    const b = await kit.browser(path);
    const posted = await b.post(`${path}/upgrade`, { version: b.version, registrationType: "full" });
    const intentId = kit.intentOf((await b.get(posted.headers.location!)).text)!;
    // Something moved the registration on after the upgrade was priced (what the guard at settlement is for).
    await t.db("registrations").where({ reference }).update({ version: 5 });
    pay(intentId);
    const answer = await b.json(`${posted.headers.location!}/paid`, { paymentIntentId: intentId });
    expect(answer.body.status).toBe("refunded");
    expect(await kit.row(reference)).toMatchObject({ package_code: "2day", amount_paid_cents: 23800, version: 5 });
    expect((await changesOf(reference))[0]).toMatchObject({ status: "rejected" });
    await until(async () => (await changePayments((await changesOf(reference))[0].id))[0].status === "refunded");
    expect(await kit.netPaid(reference)).toBe(23800);
    await until(async () => (await t.db("email_outbox").where({ reference: `registration:${reference}`, kind: "registration_change_refunded" })).length === 1);
  });

  it("an unpaid upgrade lapses through the sweep, or is cancelled by its registrant; then other changes go ahead", async () => {
    const { reference, path } = await kit.paidRegistration();
    const b = await kit.browser(path);
    const first = await b.post(`${path}/upgrade`, { version: b.version, registrationType: "full" });
    await b.get(first.headers.location!);
    await t.db("registration_changes").where({ registration_id: (await kit.row(reference)).id }).update({ reserved_until: new Date(Date.now() - 1000) });
    expect(await sweep()).toBeGreaterThanOrEqual(1);
    const [lapsed] = await changesOf(reference);
    expect(lapsed.status).toBe("expired");
    expect((await changePayments(lapsed.id))[0].status).toBe("canceled");
    expect(textOf((await b.get(first.headers.location!)).text)).toContain(CHANGE_TEXT.lapsed);
    expect(textOf((await b.get(path)).text)).not.toContain(CHANGE_TEXT.pendingHeading);

    const second = await b.post(`${path}/upgrade`, { version: b.version, registrationType: "full" });
    expect(second.headers.location).not.toBe(first.headers.location);
    await b.get(second.headers.location!);
    expect((await b.get(path)).text).toContain(`href="${second.headers.location}"`);
    const cancelled = await b.post(`${second.headers.location!}/cancel`, {});
    expect(cancelled.status).toBe(303);
    const manage = await b.get(path);
    expect(textOf(manage.text)).not.toContain(CHANGE_TEXT.pendingHeading);
    expect(manage.text).not.toContain(`href="${second.headers.location}"`);
    expect((await changesOf(reference))[1]).toMatchObject({ status: "cancelled" });
    // Nothing waits now: a cheaper package is allowed again.
    expect((await b.post(`${path}/package`, { version: b.version, registrationType: "1day", day1: "on" })).status).toBe(303);
    expect(await kit.row(reference)).toMatchObject({ package_code: "1day", version: 2 });
    expect(await kit.netPaid(reference)).toBe(11900);
  });
});

describe("adding athletes to a paid team", () => {
  it("holds the new place, takes $199 through a new PaymentIntent, then the athlete joins the team", async () => {
    const { reference, path } = await kit.paidTeam(5, "add");
    const b = await kit.browser(path);
    expect(textOf((await b.get(path)).text)).toContain("Add athletes");
    expect(textOf((await b.get(`${path}/athletes`).expect(200)).text)).toContain("$199.00 per athlete");

    // Without JavaScript, another row comes back from the server with the values kept.
    const more = await b.post(`${path}/athletes`, { ...athleteFields(0, teamAthlete(6)), addRow: "1" });
    expect(more.status).toBe(200);
    expect(more.text).toContain('name="athletes[1][firstName]"');
    expect(more.text).toContain('value="Kid6"');

    // The team form's own messages; nothing held.
    const young = await b.post(`${path}/athletes`, athleteFields(0, { ...teamAthlete(6), age: 6 }));
    expect(young.status).toBe(400);
    expect(textOf(young.text)).toContain("Athletes must be 10 to 19 years old");
    const half = await b.post(`${path}/athletes`, { "athletes[0][firstName]": "Sam" });
    expect(half.status).toBe(400);
    expect(await changesOf(reference)).toHaveLength(0);

    const before = await placesTaken(t.db, 2, new Date());
    const posted = await b.post(`${path}/athletes`, athleteFields(0, teamAthlete(6)));
    expect(posted.status).toBe(303);
    const [change] = await changesOf(reference);
    expect(change).toMatchObject({ kind: "add_athletes", places: 1, amount_cents: 19900, status: "pending" });
    expect(await placesTaken(t.db, 2, new Date())).toBe(before + 1);

    const payPage = await b.get(posted.headers.location!).expect(200);
    expect(textOf(payPage.text)).toContain("Kid6 Brooks (age 12, shirt 4XL)");
    const waiting = await b.get(path);
    expect(textOf(waiting.text)).toContain(CHANGE_TEXT.pendingLine(CHANGE_TEXT.pendingAthletes(["Kid6 Brooks"]), "$199.00", false));
    expect(waiting.text).toContain(`href="${posted.headers.location}"`);
    const intentId = kit.intentOf(payPage.text)!;
    pay(intentId);
    expect((await b.json(`${posted.headers.location!}/paid`, { paymentIntentId: intentId })).body.status).toBe("paid");
    const r = await kit.row(reference);
    expect(r).toMatchObject({ places: 6, amount_cents: 119400, amount_paid_cents: 119400, list_price_cents: 119400, version: 2 });
    expect(await t.db("registration_athletes").where({ registration_id: r.id })).toHaveLength(6);
    expect(await placesTaken(t.db, 2, new Date())).toBe(before + 1);
    expect(await kit.netPaid(reference)).toBe(119400);
    expect(textOf((await b.get(path)).text)).not.toContain(CHANGE_TEXT.pendingHeading);
    const [mail] = await t.db("email_outbox").where({ reference: `registration:${reference}`, kind: "registration_changed" });
    expect(mail.text_body).toContain("1 athlete added (Kid6 Brooks), $199.00 paid");
    expect(mail.text_body).toContain("Hi Dana,");

    // The new athlete's family got its own link when the change was paid (once); the coach can send it again.
    const familyMails = () => t.db("email_outbox").where({ kind: "registration_family_link", to_address: "kid6@example.com" });
    expect(await familyMails()).toHaveLength(1);
    const roster = await b.get(path);
    expect(textOf(roster.text)).toContain("Kid6 Brooks");
    expect((await b.post(`${path}/family`, { athlete: "6" })).status).toBe(303);
    expect(await familyMails()).toHaveLength(2);
  });

  it("frees the held places when the change lapses (the sweep) or is cancelled, and tells the waiting list", async () => {
    const { reference, path } = await kit.paidTeam(5, "lapse");
    const b = await kit.browser(path);
    const before = await placesTaken(t.db, 2, new Date());
    const first = await b.post(`${path}/athletes`, { ...athleteFields(0, teamAthlete(6, "l")), ...athleteFields(1, teamAthlete(7, "l")) });
    expect(first.status).toBe(303);
    expect(await placesTaken(t.db, 2, new Date())).toBe(before + 2);
    await b.get(first.headers.location!);
    await t.db("registration_changes").where({ registration_id: (await kit.row(reference)).id }).update({ reserved_until: new Date(Date.now() - 1000) });
    expect(await placesTaken(t.db, 2, new Date())).toBe(before);
    await sweep();
    expect((await changesOf(reference))[0].status).toBe("expired");

    const second = await b.post(`${path}/athletes`, athleteFields(0, teamAthlete(8, "l")));
    expect(await placesTaken(t.db, 2, new Date())).toBe(before + 1);
    expect((await b.post(`${second.headers.location!}/cancel`, {})).status).toBe(303);
    expect(await placesTaken(t.db, 2, new Date())).toBe(before);
    expect(await kit.row(reference)).toMatchObject({ places: 5, version: 1 });
  });

  it("refuses more athletes than places left, and a family's link", async () => {
    const { reference, path } = await kit.paidTeam(5, "full");
    await t.db("events").where({ id: 2 }).update({ capacity: await placesTaken(t.db, 2, new Date()) });
    const b = await kit.browser(path);
    const refused = await b.post(`${path}/athletes`, athleteFields(0, teamAthlete(6, "f")));
    expect(refused.status).toBe(409);
    expect(textOf(refused.text)).toContain(CHANGE_TEXT.notEnoughPlaces(0, 1));
    expect(await changesOf(reference)).toHaveLength(0);

    expect((await b.post(`${path}/family`, { athlete: "1" })).status).toBe(303);
    const mail = await t.db("email_outbox").where({ kind: "registration_family_link", to_address: "kid1full@example.com" }).first();
    const family = `/my-registration/${/\/my-registration\/([A-Za-z0-9_-]{43})/.exec(sentText(t.mailDir, mail))![1]!}`;
    const f = await kit.browser(family);
    const familyPage = await f.get(`${family}/athletes`);
    expect(familyPage.status).toBe(403);
    expect(textOf(familyPage.text)).toContain("This link is for one athlete; only the coach's link can do that.");
    expect((await f.post(`${family}/athletes`, athleteFields(0, teamAthlete(6, "f")))).status).toBe(403);
  });

  it("a payment that arrives after the hold lapsed takes the places only while they are still free", async () => {
    for (const full of [true, false]) {
      const { reference, path } = await kit.paidTeam(5, full ? "latefull" : "latefree");
      const b = await kit.browser(path);
      const posted = await b.post(`${path}/athletes`, athleteFields(0, teamAthlete(6, full ? "lf" : "lo")));
      const intentId = kit.intentOf((await b.get(posted.headers.location!)).text)!;
      await t.db("registration_changes").where({ registration_id: (await kit.row(reference)).id }).update({ reserved_until: new Date(Date.now() - 1000) });
      if (full) await t.db("events").where({ id: 2 }).update({ capacity: await placesTaken(t.db, 2, new Date()) });
      pay(intentId);
      const answer = await b.json(`${posted.headers.location!}/paid`, { paymentIntentId: intentId });
      expect(answer.body.status).toBe(full ? "refunded" : "paid");
      expect(await kit.row(reference)).toMatchObject({ places: full ? 5 : 6, amount_paid_cents: full ? 99500 : 119400 });
      expect((await changesOf(reference))[0].status).toBe(full ? "rejected" : "paid");
      expect(await kit.netPaid(reference)).toBe(full ? 99500 : 119400);
      await t.db("events").where({ id: 2 }).update({ capacity: 200 });
    }
  });

  it("keeps to the per-team ceiling and the visitor's cap on places held unpaid", async () => {
    const { reference, path } = await kit.paidTeam(5, "cap");
    const limits = t.config.registrationLimits;
    const saved = { ...limits };
    try {
      limits.maxTeamAthletes = 6;
      const b = await kit.browser(path);
      const tooMany = await b.post(`${path}/athletes`, { ...athleteFields(0, teamAthlete(6, "c")), ...athleteFields(1, teamAthlete(7, "c")) });
      expect(tooMany.status).toBe(400);
      expect(textOf(tooMany.text)).toContain(CHANGE_TEXT.teamFull(6));
      limits.maxTeamAthletes = 60;
      limits.maxHeldPlacesPerVisitor = 1;
      const capped = await b.post(`${path}/athletes`, { ...athleteFields(0, teamAthlete(6, "c")), ...athleteFields(1, teamAthlete(7, "c")) });
      expect(capped.status).toBe(409);
      expect(textOf(capped.text)).toContain("at most 1 at once");
      expect(await changesOf(reference)).toHaveLength(0);
      expect((await b.post(`${path}/athletes`, athleteFields(0, teamAthlete(6, "c")))).status).toBe(303);
    } finally {
      Object.assign(limits, saved);
    }
  });

  it("a stale version still stops an individual's change with registration's message", async () => {
    const { path } = await kit.paidRegistration();
    const b = await kit.browser(path);
    const stale = await b.post(`${path}/upgrade`, { version: "7", registrationType: "full" });
    expect(stale.status).toBe(409);
    expect(textOf(stale.text)).toContain(MANAGE_TEXT.stale);
  });
});
