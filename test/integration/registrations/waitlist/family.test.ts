import { describe, expect, it } from "vitest";
import { waitlistApp } from "./helpers.ts";
import { sentText } from "../../../support/mail.ts";
import { textOf, visitor } from "../../../support/http.ts";
import type { JobQueue } from "../../../../src/db/jobQueue.ts";
import { placesDrift } from "../../../../src/events/places.ts";
import { placesTaken } from "../../../../src/events/repository.ts";
import { setCapacity } from "../../../../src/registrations/waitlist/capacity.ts";
import { WAITLIST_TEXT } from "../../../../src/shared/registrations/waitingList.ts";
import { SIBLING_TEXT } from "../../../../src/shared/registrations/siblings.ts";

/**
 * A waiting-list entry of siblings is offered ONE registration of all its places (SQLite here, MySQL + Redis in
 * integration-mysql): the offer link opens the individual form with that many athletes, which registers exactly
 * that many, paid once with the sibling discount; a declined or lapsed offer frees all its places at once, and the
 * event's count of places always equals its rows (`npm run capacity -- check`).
 */
const EVENT = 2;
/** Event 2's full package, and the sibling discount set below: 3 x $299.00 - 2 x $25.00. */
const FULL_CENTS = 29_900;
const FAMILY_OF_3_CENTS = 3 * FULL_CENTS - 2 * 2_500;

const t = waitlistApp({
  async setup(app) {
    await app.db("events").where({ id: EVENT }).update({ capacity: 3, sibling_discount_kind: "fixed", sibling_discount_value: 2_500 });
  },
});
type V = Awaited<ReturnType<typeof visitor>>;

let seq = 0;
const formId = () => `wl-family-${String(++seq).padStart(6, "0")}-${Date.now()}`;
async function newVisitor(): Promise<V> {
  const v = await visitor(t.app);
  const addr = `198.51.100.${(++seq % 250) + 1}`;
  return { ...v, get: (url: string) => v.get(url).set("x-forwarded-for", addr), post: (url: string) => v.post(url).set("x-forwarded-for", addr), form: (url: string, f: Record<string, string | string[]>) => v.form(url, f).set("x-forwarded-for", addr) };
}
const rounds = () => (t.app.locals.offerQueue as JobQueue).drain();
const sweep = () => (t.app.locals.sweepExpiredHolds as () => Promise<number>)();
const counted = () => placesTaken(t.db, EVENT, new Date());

const ATHLETE = {
  firstName: "Jordan", lastName: "Reyes", email: "jordan@example.com", phone: "(205) 555-0100", grade: "10th", gender: "Male",
  schoolName: "Central High", emergencyContactName: "Maria Reyes", emergencyContactPhone: "205-555-0199", adult: "on", agrees: "on", registrationType: "full",
};
/** Athletes 2 to n of the family, with the offered package (full: every day). */
function siblings(n: number): Record<string, string> {
  const out: Record<string, string> = { siblings: String(n - 1) };
  for (let a = 2; a <= n; a++) {
    Object.assign(out, { [`sibling${a}_firstName`]: `Kid${a}`, [`sibling${a}_lastName`]: "Reyes", [`sibling${a}_grade`]: "8th", [`sibling${a}_gender`]: "Female", [`sibling${a}_schoolName`]: "Central Middle", [`sibling${a}_registrationType`]: "full" });
  }
  return out;
}
const JOIN = { kind: "individual", places: "3", registrationType: "full", firstName: "Maria", lastName: "Reyes", phone: "(205) 555-0111" };
const linkIn = (text: string, path: string) => new RegExp(`https?://[^\\s]+(${path}/[A-Za-z0-9_-]+)`).exec(text)?.[1];
const lastEmail = async (to: string, kind: string) => sentText(t.mailDir, (await t.db("email_outbox").where({ to_address: to, kind }).orderBy("id", "desc"))[0]);
const entry = (email: string) => t.db("waiting_list_entries").where({ event_id: EVENT, contact_email: email }).first();
const offerHolds = async (email: string) =>
  t.db("waiting_list_holds as h").join("registrations as r", "r.id", "h.registration_id").where("h.entry_id", (await entry(email)).id).orderBy("h.place_number").select("r.*", "h.place_number");

async function joinConfirmed(email: string) {
  const v = await newVisitor();
  expect((await v.form(`/waiting-list/${EVENT}`, { ...JOIN, email })).status).toBe(200);
  expect((await v.form(linkIn(await lastEmail(email, "waiting_list_confirm"), "/waiting-list/confirm")!, {})).status).toBe(200);
  expect((await entry(email)).status).toBe("waiting");
}

describe("a waiting-list family of 3 siblings", () => {
  it("is offered one pending registration of 3 places at the family price, counted once", async () => {
    // The event is full: three walk-ins hold every place.
    const walkIns = await Promise.all([1, 2, 3].map(() => newVisitor()));
    for (const v of walkIns) {
      const held = await v.post(`/api/events/${EVENT}/create-payment-intent`).send({ option: "full", formSessionId: formId(), registrationData: ATHLETE });
      expect(held.status, JSON.stringify(held.body)).toBe(200);
    }
    await joinConfirmed("family.a@example.com");
    // Their holds lapse: the 3 places go to the family, as one registration.
    await t.db("registrations").where({ event_id: EVENT, status: "pending_payment" }).update({ reserved_until: new Date(Date.now() - 1000) });
    await sweep();
    await rounds();
    expect((await entry("family.a@example.com")).status).toBe("offered");
    const holds = await offerHolds("family.a@example.com");
    expect(holds.map((r) => [r.kind, Number(r.places), r.status, Number(r.place_number), Number(r.amount_cents)])).toEqual([["individual", 3, "pending_payment", 1, FAMILY_OF_3_CENTS]]);
    expect(await counted()).toBe(3);
    expect(await placesDrift(t.db)).toEqual([]);
    // The e-mail gives the price with the sibling discount and says one form, one payment.
    const mail = await lastEmail("family.a@example.com", "waiting_list_offer");
    expect(mail).toContain("The price: $299.00 per athlete (Full Camp (3 Days)), $25.00 off each additional athlete: $847.00 for 3 places.");
    expect(mail).toContain("held for 3 athletes: one form and one payment for all of them");
  });

  it("opens, from the offer link, the form with 3 athletes that cannot be more or fewer, and is paid once with the discount", async () => {
    const link = linkIn(await lastEmail("family.a@example.com", "waiting_list_offer"), "/waiting-list/offer")!;
    const [hold] = await offerHolds("family.a@example.com");
    const family = await newVisitor();
    const offerPage = textOf((await family.get(link)).text);
    expect(offerPage).toContain("Register your 3 athletes (one form, one payment)");
    expect(offerPage).toContain("Price: $299.00 per athlete (Full Camp (3 Days)), $25.00 off each additional athlete: $847.00 for 3 places.");
    expect(offerPage).not.toContain("Register Athlete 2");
    const take = await family.form(`${link}/take`, { place: "1" });
    expect([take.status, take.headers.location]).toEqual([303, `/register/${EVENT}`]);

    // The form: the held row's id, athletes 1 to 3 with the offered package, no "Add a sibling" and no "Remove".
    const form = await family.get(`/register/${EVENT}`);
    expect(form.text).toContain(hold.form_session_id);
    for (const a of [2, 3]) expect(form.text).toContain(`data-testid="athlete-${a}"`);
    expect(form.text).not.toContain(`data-testid="athlete-4"`);
    expect(form.text).toMatch(/name="siblings" value="2"/);
    expect(form.text).toMatch(/name="sibling3_registrationType" checked="" value="full"/);
    const text = textOf(form.text);
    expect(text).toContain(SIBLING_TEXT.offerHint(3));
    expect(text).not.toContain(SIBLING_TEXT.add);
    expect(text).not.toContain(SIBLING_TEXT.remove(2));
    expect(text).toContain("$847.00");

    // A sibling added or removed anyway (a crafted post, without and with JavaScript) is refused and changes nothing.
    const added = await family.form(`/register/${EVENT}`, { ...ATHLETE, ...siblings(3), formSessionId: hold.form_session_id, siblingIntent: "add-sibling" });
    expect(added.status).toBe(409);
    expect(textOf(added.text)).toContain(SIBLING_TEXT.offerFixed(3));
    expect(added.text).not.toContain(`data-testid="athlete-4"`);
    const four = await family.form(`/register/${EVENT}`, { ...ATHLETE, ...siblings(4), formSessionId: hold.form_session_id });
    expect(four.status).toBe(409);
    expect(textOf(four.text)).toContain(SIBLING_TEXT.offerFixed(3));
    const two = await family.post(`/api/events/${EVENT}/create-payment-intent`).send({ option: "full", formSessionId: hold.form_session_id, registrationData: { ...ATHLETE, ...siblings(2) } });
    expect([two.status, two.body.error]).toEqual([409, SIBLING_TEXT.offerFixed(3)]);
    expect(await t.db("registrations").where({ id: hold.id }).first()).toMatchObject({ places: 3, amount_cents: FAMILY_OF_3_CENTS, version: 1 });
    expect(await t.db("registration_athletes").where({ registration_id: hold.id })).toHaveLength(0);
    expect(await counted()).toBe(3);

    // Three athletes, sent from two tabs at once beside a fourth athlete from a third: the same registration of 3 places,
    // priced with the sibling discount, one PaymentIntent, paid once.
    const post = (n: number) => family.post(`/api/events/${EVENT}/create-payment-intent`).send({ option: "full", formSessionId: hold.form_session_id, registrationData: { ...ATHLETE, ...siblings(n) } });
    const tabs = await Promise.all([post(3), post(4), post(3)]);
    expect(tabs.map((r) => r.status), JSON.stringify(tabs.map((r) => r.body))).toEqual([200, 409, 200]);
    const [held] = tabs;
    expect(tabs[2].body.clientSecret).toBe(held.body.clientSecret);
    expect(held.body).toMatchObject({ registrationId: hold.reference, amount: FAMILY_OF_3_CENTS / 100 });
    expect(held.body.family.map((l: { siblingDiscountCents: number }) => l.siblingDiscountCents)).toEqual([0, 2_500, 2_500]);
    const intentId = (held.body.clientSecret as string).split("_secret_")[0]!;
    expect(t.fake.confirm(intentId, { number: "4242 4242 4242 4242" }).status).toBe(200);
    expect((await family.post(`/api/events/${EVENT}/stripe-payment-success`).send({ paymentIntentId: intentId })).body.status).toBe("paid");
    expect(await t.db("registrations").where({ id: hold.id }).first()).toMatchObject({ status: "paid", places: 3, amount_paid_cents: FAMILY_OF_3_CENTS });
    expect(await t.db("registration_athletes").where({ registration_id: hold.id }).orderBy("position").pluck("first_name")).toEqual(["Jordan", "Kid2", "Kid3"]);
    expect(await t.db("payments").where({ kind: "registration", reference: hold.reference })).toHaveLength(1);
    expect(await counted()).toBe(3);
    expect(await placesDrift(t.db)).toEqual([]);
    await (t.app.locals.askForOfferRounds as () => Promise<number>)();
    await rounds();
    expect((await entry("family.a@example.com")).status).toBe("registered");
  });

  it("gives all 3 places back when an offer is declined (the next family is offered them) and when an offer lapses", async () => {
    // Two more families wait; 3 places more are offered to the first.
    await joinConfirmed("family.b@example.com");
    await joinConfirmed("family.c@example.com");
    expect(await setCapacity(t.db, EVENT, 6, new Date())).toMatchObject({ ok: true });
    await rounds();
    expect((await entry("family.b@example.com")).status).toBe("offered");
    expect((await entry("family.c@example.com")).status).toBe("waiting");
    expect(await counted()).toBe(6);

    const declined = await (await newVisitor()).form(`${linkIn(await lastEmail("family.b@example.com", "waiting_list_offer"), "/waiting-list/offer")!}/decline`, {});
    expect(textOf(declined.text)).toContain(WAITLIST_TEXT.declined);
    expect((await offerHolds("family.b@example.com")).map((r) => [r.status, Number(r.places)])).toEqual([["canceled", 3]]);
    // The 3 places freed go to the next family at once (the decline wakes the offer queue): it needs all 3.
    await rounds();
    expect((await entry("family.b@example.com")).status).toBe("declined");
    expect((await entry("family.c@example.com")).status).toBe("offered");
    expect((await offerHolds("family.c@example.com")).map((r) => [r.status, Number(r.places)])).toEqual([["pending_payment", 3]]);
    expect(await counted()).toBe(6);
    expect(await placesDrift(t.db)).toEqual([]);

    // The next family's offer runs out: its one registration lapses and its 3 places are free again.
    const [c] = await offerHolds("family.c@example.com");
    await t.db("registrations").where({ id: c.id }).update({ reserved_until: new Date(Date.now() - 1000) });
    await sweep();
    await rounds();
    expect((await entry("family.c@example.com")).status).toBe("expired");
    expect((await t.db("registrations").where({ id: c.id }).first()).status).toBe("expired");
    expect(await counted()).toBe(3);
    expect(await placesDrift(t.db)).toEqual([]);
    const api = (await (await newVisitor()).get(`/api/events/${EVENT}`)).body as { placesLeft: number };
    expect(api.placesLeft).toBe(3);
  });
});
