import { describe, expect, it } from "vitest";
import { waitlistApp } from "./helpers.ts";
import { sentText } from "../../../support/mail.ts";
import { textOf, visitor } from "../../../support/http.ts";
import type { JobQueue } from "../../../../src/db/jobQueue.ts";
import { Writable } from "node:stream";
import { WAITLIST_TEXT } from "../../../../src/shared/registrations/waitingList.ts";
import { runExport, WAITING_LIST_COLUMNS } from "../../../../src/cli/export.ts";
import { setCapacity } from "../../../../src/registrations/waitlist/capacity.ts";
import { parseCapacityArgs } from "../../../../src/cli/capacity.ts";

/**
 * The waiting list end to end, through the real routes and the offline Stripe fake (SQLite here, MySQL + Redis in
 * integration-mysql): a sold-out event, a family of 2 and a team of 6 in line; refunds free places; each gets an
 * offer that holds its places as one registration, registers and pays through the normal forms; an offer left to
 * expire goes on. A family of siblings in detail (the sibling discount, the form's fixed athletes): family.test.ts.
 */
const t = waitlistApp({
  async setup(app) {
    await app.db("events").where({ id: EVENT }).update({ capacity: CAPACITY });
  },
});
type V = Awaited<ReturnType<typeof visitor>>;

const EVENT = 2;
const CAPACITY = 10;

let seq = 0;
const formId = () => `wl-form-${String(++seq).padStart(6, "0")}-${Date.now()}`;
const ip = () => `198.51.100.${(++seq % 250) + 1}`;
const intentIdOf = (clientSecret: string) => clientSecret.split("_secret_")[0]!;
const rounds = () => (t.app.locals.offerQueue as JobQueue).drain();
const sweep = () => (t.app.locals.sweepExpiredHolds as () => Promise<number>)();

async function newVisitor(): Promise<V> {
  const v = await visitor(t.app);
  const addr = ip();
  return { ...v, post: (url: string) => v.post(url).set("x-forwarded-for", addr), form: (url: string, f: Record<string, string | string[]>) => v.form(url, f).set("x-forwarded-for", addr) };
}

const ATHLETE = {
  firstName: "Maya", lastName: "Okafor", email: "maya@example.com", phone: "(205) 555-0100", grade: "9th", gender: "Female",
  schoolName: "Central High", emergencyContactName: "Ada Okafor", emergencyContactPhone: "205-555-0199", adult: "on", agrees: "on",
};
const athletes = (n: number) =>
  Array.from({ length: n }, (_, i) => ({ firstName: `Kid${i + 1}`, lastName: "Brooks", age: 12, email: `kid${i + 1}@example.com`, shirtSize: "Small", parentName: `Parent ${i + 1}`, parentPhoneNumber: "205-555-0100" }));
const COACH = { firstName: "Dana", lastName: "Brooks", email: "coach.brooks@example.com", phone: "(205) 555-0142", teamName: "Steel City WC" };

/** Pays a held registration's PaymentIntent with a test card and returns through the browser's path. */
async function pay(v: V, clientSecret: string, option?: string) {
  const intentId = intentIdOf(clientSecret);
  expect(t.fake.confirm(intentId, { number: "4242 4242 4242 4242" }).status).toBe(200);
  const done = await v.post(`/api/events/${EVENT}/stripe-payment-success`).send({ paymentIntentId: intentId, ...(option ? { option } : {}) });
  expect(done.body.status).toBe("paid");
  return intentId;
}

async function registerIndividual(v: V, form = formId(), email = "maya@example.com") {
  const res = await v.post(`/api/events/${EVENT}/create-payment-intent`).send({ option: "full", formSessionId: form, registrationData: { ...ATHLETE, email, registrationType: "full" } });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return { reference: res.body.registrationId as string, intentId: await pay(v, res.body.clientSecret) };
}

async function registerTeam(v: V, size: number, form = formId()) {
  const res = await v.post("/api/team-registration").send({ eventId: EVENT, coachInfo: COACH, athletes: athletes(size), formSessionId: form });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  const reference = (await t.db("registrations").where({ form_session_id: form }).first()).reference as string;
  return { reference, intentId: await pay(v, res.body.clientSecret, "team") };
}

async function refund(intentId: string) {
  await t.gateway.refundIntent(intentId, { idempotencyKey: `refund-${intentId}`, reason: "canceled by the family" });
  await t.fake.idle();
}

const JOIN = { firstName: "Lena", lastName: "Park", email: "lena.park@example.com", phone: "(205) 555-0111", kind: "individual", places: "2", registrationType: "full" };
const linkIn = (text: string, path: string) => new RegExp(`https?://[^\\s]+(${path}/[A-Za-z0-9_-]+)`).exec(text)?.[1];
const emailsTo = (to: string, kind: string) => t.db("email_outbox").where({ to_address: to, kind }).orderBy("id");

/** Asks to join (the page says to check the e-mail; nothing is in line yet), then opens the e-mailed confirmation link. */
async function joinConfirmed(v: V, form: Record<string, string>) {
  const asked = await v.form(`/waiting-list/${EVENT}`, form);
  expect(asked.status, textOf(asked.text)).toBe(200);
  expect(textOf(asked.text)).toContain(WAITLIST_TEXT.checkEmail);
  const mails = await emailsTo(form.email!, "waiting_list_confirm");
  const link = linkIn(sentText(t.mailDir, mails.at(-1)), "/waiting-list/confirm")!;
  expect(textOf((await v.get(link)).text)).toContain("Confirm My Place in Line");
  const page = await v.form(link, {});
  expect(page.status, textOf(page.text)).toBe(200);
  return { page, link };
}

async function entry(email: string) {
  return t.db("waiting_list_entries").where({ event_id: EVENT, contact_email: email }).orderBy("id", "desc").first();
}

describe("waiting list", () => {
  let individuals: { reference: string; intentId: string }[] = [];
  let teamPaid: { reference: string; intentId: string };

  it("fills the event: paid individuals and a team take every place", async () => {
    const buyer = await newVisitor();
    individuals = [await registerIndividual(buyer), await registerIndividual(await newVisitor(), formId(), "second@example.com")];
    teamPaid = await registerTeam(await newVisitor(), 6);
    // Two more places, held by a visitor who will not pay (left to lapse in the expiry test).
    const stay = await newVisitor();
    const last = await stay.post(`/api/events/${EVENT}/create-payment-intent`).send({ option: "full", formSessionId: formId(), registrationData: { ...ATHLETE, registrationType: "full" } });
    expect(last.status).toBe(200);
    const other = await newVisitor();
    expect((await other.post(`/api/events/${EVENT}/create-payment-intent`).send({ option: "full", formSessionId: formId(), registrationData: { ...ATHLETE, registrationType: "full" } })).status).toBe(200);
    const page = await (await newVisitor()).get(`/register/${EVENT}`);
    expect(textOf(page.text)).toContain("Sold Out");
  });

  it("refuses a bad join form with the registration's messages and stores nothing; refuses joining an event with places", async () => {
    const v = await newVisitor();
    const bad = await v.form(`/waiting-list/${EVENT}`, { ...JOIN, email: "lena@nowhere", phone: "123", places: "7" });
    expect(bad.status).toBe(400);
    const text = textOf(bad.text);
    expect(text).toContain("Please enter a valid email address");
    expect(text).toContain("Please enter a valid 10-digit phone number");
    expect(text).toContain(WAITLIST_TEXT.places(10));
    expect(await t.db("waiting_list_entries")).toHaveLength(0);
    expect(await t.db("waiting_list_requests")).toHaveLength(0);

    const open = await v.form("/waiting-list/1", { ...JOIN, registrationType: "full" });
    expect(open.status).toBe(409);
    expect(textOf(open.text)).toContain(WAITLIST_TEXT.notSoldOut);
    expect(await t.db("waiting_list_entries")).toHaveLength(0);
    expect(await t.db("waiting_list_requests")).toHaveLength(0);
  });

  it("joins a family of 2 and a team of 6 in order once each confirms its e-mail, each with an e-mail whose link leaves the list", async () => {
    const family = await newVisitor();
    const sent = await family.form(`/waiting-list/${EVENT}`, JOIN);
    expect(textOf(sent.text)).toContain(WAITLIST_TEXT.confirmFirst(24));
    // Not in line until the e-mailed link is opened; the link's token is stored only as its hash.
    expect(await t.db("waiting_list_entries")).toHaveLength(0);
    const [ask] = await emailsTo(JOIN.email, "waiting_list_confirm");
    const confirmLink = linkIn(sentText(t.mailDir, ask), "/waiting-list/confirm")!;
    expect(JSON.stringify(await t.db("waiting_list_requests"))).not.toContain(confirmLink.split("/").pop());
    // Opening the link (a mail scanner may) changes nothing: its button confirms.
    const opened = await family.get(confirmLink);
    expect(textOf(opened.text)).toContain("Waiting for 2 places, Full Camp (3 Days).");
    expect(await t.db("waiting_list_entries")).toHaveLength(0);
    const joined = await family.form(confirmLink, {});
    expect(textOf(joined.text)).toContain("You are number 1 on the waiting list.");
    const coach = await newVisitor();
    const { page: team } = await joinConfirmed(coach, { ...JOIN, kind: "team", places: "6", email: COACH.email, firstName: "Dana", teamName: "Steel City WC" });
    // The page the link opens says where the entry stands and what it waits for.
    expect(textOf(team.text)).toContain("You are number 2 on the waiting list. Place in line 1 family or team is ahead of you Waiting for A team of 6 (Steel City WC).");
    expect(textOf(joined.text)).toContain("Place in line Next: nobody is ahead of you Waiting for 2 places, Full Camp (3 Days).");
    // The place-in-line page names the event (title, date, place), as every waiting-list page does.
    const event = await t.db("events").where({ id: EVENT }).first("title", "date_text", "location");
    for (const page of [opened, joined]) expect(textOf(page.text)).toContain(`${event.title} · ${event.date_text} · ${event.location}`);
    // The same address again is refused.
    const again = await coach.form(`/waiting-list/${EVENT}`, { ...JOIN, kind: "team", places: "6", email: COACH.email });
    expect(again.status).toBe(409);
    expect(textOf(again.text)).toContain(WAITLIST_TEXT.alreadyOn);

    expect(await entry(JOIN.email)).toMatchObject({ position: 1, places: 2, kind: "individual", package_code: "full", status: "waiting" });
    expect(await entry(COACH.email)).toMatchObject({ position: 2, places: 6, kind: "team", package_code: "team", status: "waiting" });
    const [mail] = await emailsTo(JOIN.email, "waiting_list_joined");
    expect(sentText(t.mailDir, mail)).toContain("You are number 1 on the waiting list");
    const leave = linkIn(sentText(t.mailDir, mail), "/waiting-list/leave");
    expect(leave).toBeDefined();
    // The token is stored only as its hash.
    expect(JSON.stringify(await entry(JOIN.email))).not.toContain(leave!.split("/").pop());
    // The leave page asks first (a mail scanner's GET changes nothing).
    const asked = await family.get(leave!);
    expect(textOf(asked.text)).toContain("Leave the Waiting List");
    expect((await entry(JOIN.email)).status).toBe("waiting");
    // The event page says how many wait and offers to join.
    const eventPage = textOf((await family.get(`/events/${EVENT}`)).text);
    expect(eventPage).toContain("2 families and teams are waiting");
    expect(eventPage).toContain("Join the Waiting List");
  });

  it("offers 2 freed places to the family (not to the team behind, which does not fit), who register both athletes on one form and pay once", async () => {
    await refund(individuals[0]!.intentId);
    await rounds();
    expect((await entry(JOIN.email)).status).toBe("waiting");
    // One place is free and nobody in line fits it: the line keeps nothing back, so the API shows it for sale.
    const api = (await (await newVisitor()).get(`/api/events/${EVENT}`)).body as { placesLeft: number; registrationStatus: string };
    expect([api.placesLeft, api.registrationStatus]).toEqual([1, "open"]);
    await refund(individuals[1]!.intentId);
    await rounds();
    const offered = await entry(JOIN.email);
    expect(offered.status).toBe("offered");
    expect((await entry(COACH.email)).status).toBe("waiting");
    const holds = await t.db("waiting_list_holds as h").join("registrations as r", "r.id", "h.registration_id").where("h.entry_id", offered.id).select("r.*");
    // One registration of both places (siblings register together), as a team's offer is.
    expect(holds.map((r: { kind: string; status: string; places: number }) => [r.kind, r.status, Number(r.places)])).toEqual([["individual", "pending_payment", 2]]);
    const [mail] = await emailsTo(JOIN.email, "waiting_list_offer");
    const link = linkIn(sentText(t.mailDir, mail), "/waiting-list/offer")!;
    expect(sentText(t.mailDir, mail)).toContain("2 places at");
    // The offer says what the places cost, at today's price: each and in all.
    const price = /The price: (\$(\d+)\.00 per athlete \(.+\): \$(\d+)\.00 for 2 places)\./.exec(sentText(t.mailDir, mail));
    expect(price && Number(price[3]) === 2 * Number(price[2]), sentText(t.mailDir, mail)).toBe(true);
    // The confirmation link's page now says the places are held, until when.
    const [confirmMail] = await emailsTo(JOIN.email, "waiting_list_confirm");
    const standing = textOf((await (await newVisitor()).get(linkIn(sentText(t.mailDir, confirmMail), "/waiting-list/confirm")!)).text);
    expect(standing).toMatch(/Places Are Held for You 2 places, Full Camp \(3 Days\)\. They are held for you until .+: open the personal link in the offer e-mail/);
    expect(standing).toContain("Decline the Offer");

    // Someone else sees the event sold out and cannot take the held places, not even with a held form's id.
    const stranger = await newVisitor();
    expect(textOf((await stranger.get(`/register/${EVENT}`)).text)).toContain("Sold Out");
    const taken = await stranger.post(`/api/events/${EVENT}/create-payment-intent`).send({ option: "full", formSessionId: holds[0].form_session_id, registrationData: { ...ATHLETE, registrationType: "full" } });
    expect(taken.status).toBe(409);
    expect((await stranger.post(`/api/events/${EVENT}/create-payment-intent`).send({ option: "full", formSessionId: formId(), registrationData: { ...ATHLETE, registrationType: "full" } })).status).toBe(409);

    const family = await newVisitor();
    const offerPage = await family.get(link);
    expect(textOf(offerPage.text)).toContain("Register Your 2 Athletes");
    expect(textOf(offerPage.text)).toContain(`Price: ${price![1]}.`);
    // A held place is named by its button alone, never an "Athlete 1:" label standing empty before it.
    expect(textOf(offerPage.text)).not.toMatch(/Athlete 1:/);
    const take = await family.form(`${link}/take`, { place: "1" });
    expect(take.status).toBe(303);
    expect(take.headers.location).toBe(`/register/${EVENT}`);
    const form = await family.get(`/register/${EVENT}`);
    const formSessionId = holds[0].form_session_id as string;
    expect(form.text).toContain(formSessionId);
    expect(form.text).toContain('data-testid="athlete-2"');
    const sibling = { siblings: "1", sibling2_firstName: "Sib2", sibling2_lastName: "Okafor", sibling2_grade: "7th", sibling2_gender: "Female", sibling2_schoolName: "Central Middle", sibling2_registrationType: "full" };
    const held = await family.post(`/api/events/${EVENT}/create-payment-intent`).send({ option: "full", formSessionId, registrationData: { ...ATHLETE, firstName: "Sib1", registrationType: "full", ...sibling } });
    expect(held.status, JSON.stringify(held.body)).toBe(200);
    expect(held.body.registrationId).toBe(holds[0].reference);
    expect(held.body.amount).toBe(2 * Number(price![2]));
    await pay(family, held.body.clientSecret);
    const paid = await t.db("registrations").where({ id: holds[0].id }).first();
    expect(paid).toMatchObject({ status: "paid", places: 2 });
    expect(await t.db("registration_athletes").where({ registration_id: holds[0].id }).orderBy("position").pluck("first_name")).toEqual(["Sib1", "Sib2"]);
    expect(await t.db("payments").where({ kind: "registration", reference: holds[0].reference })).toHaveLength(1);
    // The minute's net asks for a round where offers are open; the round closes the paid offer.
    await (t.app.locals.askForOfferRounds as () => Promise<number>)();
    await rounds();
    expect((await entry(JOIN.email)).status).toBe("registered");
    expect(textOf((await family.get(link)).text)).toContain(`Registered (${holds[0].reference})`);
  });

  it("offers 6 places to the coach when the team of 6 is refunded, and the coach registers the team", async () => {
    await refund(teamPaid.intentId);
    await rounds();
    const offered = await entry(COACH.email);
    expect(offered.status).toBe("offered");
    const [hold] = await t.db("waiting_list_holds as h").join("registrations as r", "r.id", "h.registration_id").where("h.entry_id", offered.id).select("r.*");
    expect(hold).toMatchObject({ kind: "team", status: "pending_payment", places: 6 });
    const [mail] = await emailsTo(COACH.email, "waiting_list_offer");
    const link = linkIn(sentText(t.mailDir, mail), "/waiting-list/offer")!;
    const coach = await newVisitor();
    const take = await coach.form(`${link}/take`, { place: "1" });
    expect(take.headers.location).toBe(`/team-register/${EVENT}`);
    const form = await coach.get(`/team-register/${EVENT}`);
    expect(form.text).toContain(hold.form_session_id);
    const res = await coach.post("/api/team-registration").send({ eventId: EVENT, coachInfo: COACH, athletes: athletes(6), formSessionId: hold.form_session_id });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    await pay(coach, res.body.clientSecret, "team");
    expect(await t.db("registrations").where({ id: hold.id }).first()).toMatchObject({ status: "paid", places: 6 });
    expect(await t.db("registration_athletes").where({ registration_id: hold.id })).toHaveLength(6);
  });

  it("gives an offer left to expire to the next entry, and a declined offer too", async () => {
    const a = await newVisitor();
    await joinConfirmed(a, { ...JOIN, places: "1", email: "first@example.com" });
    const b = await newVisitor();
    await joinConfirmed(b, { ...JOIN, places: "1", email: "second.in.line@example.com" });
    const c = await newVisitor();
    await joinConfirmed(c, { ...JOIN, places: "1", email: "third@example.com" });
    // The two unpaid holds of the first test lapse: the sweep expires them and the first two in line get offers.
    await t.db("registrations").where({ event_id: EVENT, status: "pending_payment" }).whereNotIn("id", t.db("waiting_list_holds").select("registration_id")).update({ reserved_until: new Date(Date.now() - 60_000) });
    await sweep();
    await rounds();
    expect((await entry("first@example.com")).status).toBe("offered");
    expect((await entry("second.in.line@example.com")).status).toBe("offered");
    expect((await entry("third@example.com")).status).toBe("waiting");

    // The first offer's time runs out.
    const first = await entry("first@example.com");
    const [h] = await t.db("waiting_list_holds").where({ entry_id: first.id });
    await t.db("registrations").where({ id: h.registration_id }).update({ reserved_until: new Date(Date.now() - 1000) });
    await sweep();
    await rounds();
    expect((await entry("first@example.com")).status).toBe("expired");
    expect((await entry("third@example.com")).status).toBe("offered");
    const [mail] = await emailsTo("first@example.com", "waiting_list_offer");
    const ended = await a.get(linkIn(sentText(t.mailDir, mail), "/waiting-list/offer")!);
    expect(textOf(ended.text)).toContain(WAITLIST_TEXT.offerEnded);

    // The second declines: its place goes back, nobody is left to offer it to, and the event shows one place left.
    const [second] = await emailsTo("second.in.line@example.com", "waiting_list_offer");
    const declined = await b.form(`${linkIn(sentText(t.mailDir, second), "/waiting-list/offer")!}/decline`, {});
    expect(textOf(declined.text)).toContain(WAITLIST_TEXT.declined);
    await rounds();
    expect((await entry("second.in.line@example.com")).status).toBe("declined");
    const seconds = await t.db("waiting_list_holds as h").join("registrations as r", "r.id", "h.registration_id").where("h.entry_id", (await entry("second.in.line@example.com")).id).select("r.status");
    expect(seconds.map((r: { status: string }) => r.status)).toEqual(["canceled"]);
  });

  it("leaves the list by the e-mailed link", async () => {
    const v = await newVisitor();
    await joinConfirmed(v, { ...JOIN, places: "3", email: "leaver@example.com" });
    const [mail] = await emailsTo("leaver@example.com", "waiting_list_joined");
    const left = await v.form(linkIn(sentText(t.mailDir, mail), "/waiting-list/leave")!, {});
    expect(textOf(left.text)).toContain(WAITLIST_TEXT.left);
    expect((await entry("leaver@example.com")).status).toBe("left");
    expect((await v.get("/waiting-list/offer/not-a-real-token-at-all-xyz")).status).toBe(404);
  });

  it("leaves the list from the page the confirmation link opens (a form post), which then says so", async () => {
    const v = await newVisitor();
    // One place is free (the declined offer's): 2 places wait.
    const { page, link } = await joinConfirmed(v, { ...JOIN, places: "2", email: "standing@example.com" });
    const text = textOf(page.text);
    expect(text).toContain("Thank you: your e-mail address is confirmed.");
    // The entry offered 'third@example.com' waits ahead as an offer, not in line: this one is next.
    expect(text).toContain("You are number 1 on the waiting list.");
    expect(text).toContain("Waiting for 2 places, Full Camp (3 Days).");
    // Opened again, the link confirms nothing more and shows the same place.
    const again = textOf((await v.get(link)).text);
    expect(again).not.toContain("Thank you: your e-mail address is confirmed.");
    expect(again).toContain("You are number 1 on the waiting list.");
    expect(await t.db("waiting_list_entries").where({ contact_email: "standing@example.com" })).toHaveLength(1);

    const left = await v.form(`${link}/leave`, {});
    expect(left.status).toBe(200);
    expect(textOf(left.text)).toContain(WAITLIST_TEXT.left);
    expect((await entry("standing@example.com")).status).toBe("left");
    expect(textOf((await v.get(link)).text)).toContain(`Not on the List ${WAITLIST_TEXT.ended.left}`);
    // A confirmation link that names nothing.
    const unknown = await v.get("/waiting-list/confirm/not-a-real-token-at-all-xyz");
    expect(unknown.status).toBe(404);
    expect(textOf(unknown.text)).toContain(WAITLIST_TEXT.confirmExpired);
  });

  it("lists the line for admins (the waiting_list view) and in the CSV export: position, size, status, offered until", async () => {
    const rows = (await t.db("waiting_list").where({ event_id: EVENT }).orderBy("position")) as Record<string, unknown>[];
    expect(Object.keys(rows[0]!)).toEqual(WAITING_LIST_COLUMNS);
    expect(rows.map((r) => [Number(r.position), Number(r.size), r.status])).toEqual([
      [1, 2, "registered"], [2, 6, "registered"], [3, 1, "expired"], [4, 1, "declined"], [5, 1, "offered"], [6, 3, "left"], [7, 2, "left"],
    ]);
    expect(rows[1]!.offered_until).toBeTruthy();
    const chunks: Buffer[] = [];
    const out = new Writable({ write: (c: Buffer, _e, done) => (chunks.push(Buffer.from(c)), done()) });
    expect(await runExport(t.db, { name: "waiting-list", eventId: EVENT }, out)).toBe(7);
    const lines = Buffer.concat(chunks).toString("utf8").replace(/^\uFEFF/, "").split("\r\n");
    expect(lines[0]).toBe(WAITING_LIST_COLUMNS.join(","));
    expect(lines[2]).toMatch(/^2,National Champ Camp,2,team,6,team,registered,\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,0,Dana Park,coach.brooks@example.com,/);
  });

  it("offers the places an operator adds (npm run capacity) to the line at once, and refuses a capacity below the places taken", async () => {
    const v = await newVisitor();
    await joinConfirmed(v, { ...JOIN, places: "2", email: "raised@example.com" });
    expect(await setCapacity(t.db, EVENT, 3, new Date())).toMatchObject({ ok: false, reason: expect.stringContaining("cannot go below") });
    const raised = await setCapacity(t.db, EVENT, CAPACITY + 2, new Date());
    expect(raised).toMatchObject({ ok: true, from: CAPACITY, to: CAPACITY + 2, roundAsked: true });
    await rounds();
    expect((await entry("raised@example.com")).status).toBe("offered");
    expect(parseCapacityArgs(["2", "0"])).toMatchObject({ error: expect.stringContaining("PLACES must be") });
    expect(parseCapacityArgs(["2", "250"])).toEqual({ eventId: 2, capacity: 250 });
  });
});
