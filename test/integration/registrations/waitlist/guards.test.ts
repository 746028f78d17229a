import { describe, expect, it } from "vitest";
import { waitlistApp } from "./helpers.ts";
import { textOf, visitor } from "../../../support/http.ts";
import type { JobQueue } from "../../../../src/db/jobQueue.ts";
import { WAITLIST_TEXT } from "../../../../src/shared/registrations/waitingList.ts";
import { sentText } from "../../../support/mail.ts";
import { MANAGE_RATE_LIMIT } from "../../../../src/registrations/changes/routes/manageLink.tsx";
import { countPlacesFromRows } from "../../../support/places.ts";

/**
 * Each guard of the waiting list on its own (SQLite here, MySQL + Redis in integration-mysql), with a per-visitor cap
 * of 12 places and teams of at most 10: a request counts for nothing until its e-mail is confirmed and its link
 * lapses; joining only when the places asked for are not for sale; a team no larger than a team may be nor than the
 * event; one visitor (session or address) and one e-mail hold at most the cap in requests, entries, offers and held
 * places together; an offer's place counts against whoever takes it.
 */
type V = Awaited<ReturnType<typeof visitor>>;
const CAP = 12;
const t = waitlistApp({
  env: { MAX_HELD_PLACES_PER_VISITOR: String(CAP), MAX_TEAM_ATHLETES: "10" },
  // Events 1, 3 and 4 hold 20 places each, all taken by a paid filler (freeFor gives some back).
  async setup(app) {
    const now = new Date();
    for (const eventId of [1, 3, 4]) {
      await app.db("events").where({ id: eventId }).update({ capacity: 20 });
      await app.db("registrations").insert({
        reference: `RGUARD0${eventId}`, event_id: eventId, kind: "team", places: 20, status: "paid", package_code: "team", package_label: "Team Registration",
        list_price_cents: 398000, amount_cents: 398000, amount_paid_cents: 398000, contact_first_name: "Fill", contact_last_name: "Er", contact_email: "filler@example.com",
        contact_phone: "2055550100", form_session_id: `guard-filler-${eventId}-000000000`, agreed_at: now, created_at: now, updated_at: now, paid_at: now,
      });
    }
    await countPlacesFromRows(app.db, [1, 3, 4]);
  },
});

let seq = 0;
const nextIp = () => `192.0.2.${(++seq % 250) + 1}`;
/** A browser: its own session, at `ip` (a new address unless given). */
async function newVisitor(ip = nextIp()): Promise<V & { ip: string }> {
  const v = await visitor(t.app);
  return { ...v, ip, get: (url: string) => v.get(url).set("x-forwarded-for", ip), post: (url: string) => v.post(url).set("x-forwarded-for", ip), form: (url: string, f: Record<string, string | string[]>) => v.form(url, f).set("x-forwarded-for", ip) };
}
/** The same session from another address. */
const elsewhere = (v: V, ip = nextIp()): V => ({ ...v, get: (url: string) => v.agent.get(url).set("x-forwarded-for", ip), form: (url: string, f: Record<string, string | string[]>) => v.agent.post(url).type("form").send({ ...f, _csrf: v.token }).set("x-forwarded-for", ip) });

const family = (email: string, places = 1) => ({ kind: "individual", places: String(places), registrationType: "full", firstName: "Lena", lastName: "Park", email, phone: "(205) 555-0111" });
const team = (email: string, places: number) => ({ kind: "team", places: String(places), teamName: "Steel City WC", firstName: "Dana", lastName: "Brooks", email, phone: "(205) 555-0142" });
const ATHLETE = {
  firstName: "Maya", lastName: "Okafor", email: "maya@example.com", phone: "(205) 555-0100", grade: "9th", gender: "Female",
  schoolName: "Central High", emergencyContactName: "Ada Okafor", emergencyContactPhone: "205-555-0199", adult: "on", agrees: "on", registrationType: "full",
};
const hold = async (eventId: number, v?: V) =>
  (v ?? (await newVisitor())).post(`/api/events/${eventId}/create-payment-intent`).send({ option: "full", formSessionId: `guard-form-${++seq}-${Date.now()}`, registrationData: ATHLETE });
const confirmLink = async (email: string) => {
  const mails = await t.db("email_outbox").where({ to_address: email, kind: "waiting_list_confirm" }).orderBy("id");
  return /https?:\/\/[^\s]+(\/waiting-list\/confirm\/[A-Za-z0-9_-]+)/.exec(sentText(t.mailDir, mails.at(-1)))![1]!;
};
const rounds = async () => {
  await (t.app.locals.askForOfferRounds as () => Promise<number>)();
  await (t.app.locals.offerQueue as JobQueue).drain();
};
/** The filler gives `n` places back (as a refund would), and the line gets its round. */
async function freeFor(eventId: number, n: number) {
  await t.db("registrations").where({ reference: `RGUARD0${eventId}` }).decrement("places", n);
  await countPlacesFromRows(t.db, [eventId]);
  await rounds();
}
const entryOf = (eventId: number, email: string) => t.db("waiting_list_entries").where({ event_id: eventId, contact_email: email }).first();
const refusedCap = (res: { status: number; text: string }) => res.status === 409 && textOf(res.text).includes(WAITLIST_TEXT.visitorCap(CAP));

describe("a request counts only once its e-mail is confirmed", () => {
  it("unconfirmed, it gets no offer and keeps no place back; its link lapses after the confirmation window and the request is deleted", async () => {
    const v = await newVisitor();
    expect((await v.form("/waiting-list/1", family("unconfirmed@example.com"))).status).toBe(200);
    await freeFor(1, 1);
    expect(await t.db("waiting_list_entries").where({ event_id: 1 })).toHaveLength(0);
    expect(await t.db("waiting_list_holds")).toHaveLength(0);
    expect((await hold(1)).status).toBe(200);

    await t.db("waiting_list_requests").where({ contact_email: "unconfirmed@example.com" }).update({ confirm_by: new Date(Date.now() - 1000) });
    const link = await confirmLink("unconfirmed@example.com");
    const lapsed = await v.get(link);
    expect(lapsed.status).toBe(404);
    expect(textOf(lapsed.text)).toContain(WAITLIST_TEXT.confirmExpired);
    expect((await v.form(link, {})).status).toBe(404);
    expect(await t.db("waiting_list_entries").where({ event_id: 1 })).toHaveLength(0);
    // A day after its link lapsed, the minute's net deletes it with the contact details it held.
    await t.db("waiting_list_requests").where({ contact_email: "unconfirmed@example.com" }).update({ confirm_by: new Date(Date.now() - 2 * 86_400_000) });
    await rounds();
    expect(await t.db("waiting_list_requests").where({ contact_email: "unconfirmed@example.com" })).toHaveLength(0);
  });
});

describe("joining only when the places asked for are not for sale", () => {
  it("with 2 places for sale, 2 are to be registered now and 3 may wait", async () => {
    await freeFor(1, 2);
    const v = await newVisitor();
    const now = await v.form("/waiting-list/1", family("two@example.com", 2));
    expect(now.status).toBe(409);
    expect(textOf(now.text)).toContain(WAITLIST_TEXT.notSoldOut);
    expect((await v.form("/waiting-list/1", family("three@example.com", 3))).status).toBe(200);
    expect(await t.db("waiting_list_requests").where({ contact_email: "two@example.com" })).toHaveLength(0);
    for (let i = 0; i < 2; i++) expect((await hold(1)).status).toBe(200);
  });
});

describe("a team's size", () => {
  it("is at most MAX_TEAM_ATHLETES (10 here) and at most the event's capacity", async () => {
    const v = await newVisitor();
    const tooMany = await v.form("/waiting-list/3", team("big.team@example.com", 11));
    expect(tooMany.status).toBe(400);
    expect(textOf(tooMany.text)).toContain(WAITLIST_TEXT.places(10));
    await t.db("events").where({ id: 4 }).update({ capacity: 8 });
    await t.db("registrations").where({ reference: "RGUARD04" }).update({ places: 8 });
    await countPlacesFromRows(t.db, [4]);
    const biggerThanEvent = await v.form("/waiting-list/4", team("big.team@example.com", 9));
    expect(biggerThanEvent.status).toBe(400);
    expect(textOf(biggerThanEvent.text)).toContain(WAITLIST_TEXT.places(8));
    expect(await t.db("waiting_list_requests").where({ contact_email: "big.team@example.com" })).toHaveLength(0);
    await t.db("events").where({ id: 4 }).update({ capacity: 20 });
    await t.db("registrations").where({ reference: "RGUARD04" }).update({ places: 20 });
    await countPlacesFromRows(t.db, [4]);
  });
});

describe("the per-visitor cap over requests, entries, offers and held places", () => {
  it("one session or one address asks for at most 12 places in all", async () => {
    const v = await newVisitor();
    expect((await v.form("/waiting-list/3", team("cap.a@example.com", 8))).status).toBe(200);
    expect((await v.form("/waiting-list/4", family("cap.b@example.com", 4))).status).toBe(200);
    expect(refusedCap(await v.form("/waiting-list/4", family("cap.c@example.com", 1)))).toBe(true);
    // The same address with a new session, and the same session from a new address.
    expect(refusedCap(await (await newVisitor(v.ip)).form("/waiting-list/4", family("cap.c@example.com", 1)))).toBe(true);
    expect(refusedCap(await elsewhere(v).form("/waiting-list/4", family("cap.c@example.com", 1)))).toBe(true);
    expect((await (await newVisitor()).form("/waiting-list/4", family("cap.c@example.com", 1))).status).toBe(200);
  });

  it("places the visitor holds unpaid count too", async () => {
    const v = await newVisitor();
    for (let i = 0; i < 3; i++) expect((await hold(2, v)).status).toBe(200);
    expect(refusedCap(await v.form("/waiting-list/3", team("holder@example.com", 10)))).toBe(true);
    expect((await v.form("/waiting-list/3", family("holder@example.com", 4))).status).toBe(200);
  });

  it("one e-mail holds at most 12 places in line, whoever joins with it: at joining and at confirming", async () => {
    const a = await newVisitor();
    expect((await a.form("/waiting-list/3", team("one.email@example.com", 8))).status).toBe(200);
    expect((await a.form(await confirmLink("one.email@example.com"), {})).status).toBe(200);
    expect(await entryOf(3, "one.email@example.com")).toMatchObject({ status: "waiting", places: 8 });
    expect((await (await newVisitor()).form("/waiting-list/4", family("one.email@example.com", 4))).status).toBe(200);
    expect(refusedCap(await (await newVisitor()).form("/waiting-list/4", team("one.email@example.com", 5)))).toBe(true);

    // Two requests not yet confirmed, from two visitors: the second confirmed would pass the cap.
    const b = await newVisitor();
    const c = await newVisitor();
    expect((await b.form("/waiting-list/3", team("two.requests@example.com", 8))).status).toBe(200);
    const first = await confirmLink("two.requests@example.com");
    expect((await c.form("/waiting-list/4", team("two.requests@example.com", 5))).status).toBe(200);
    const second = await confirmLink("two.requests@example.com");
    expect((await b.form(first, {})).status).toBe(200);
    const refused = await c.form(second, {});
    expect(refused.status).toBe(409);
    expect(textOf(refused.text)).toContain(WAITLIST_TEXT.visitorCap(CAP));
    expect(await entryOf(4, "two.requests@example.com")).toBeUndefined();
  });
});

describe("an offer's places", () => {
  it("count against the joiner's cap while nobody took them, and against the cap of whoever takes one", async () => {
    // A family of 2 is offered its places at event 1 (two places free, the 3 siblings ahead do not fit).
    const joiner = await newVisitor();
    expect((await joiner.form("/waiting-list/1", family("offered@example.com", 2))).status).toBe(200);
    expect((await joiner.form(await confirmLink("offered@example.com"), {})).status).toBe(200);
    expect((await joiner.form(await confirmLink("three@example.com"), {})).status).toBe(200);
    await freeFor(1, 2);
    const offered = await entryOf(1, "offered@example.com");
    expect(offered.status).toBe("offered");
    // The joiner's 2 offered places and 10 more are the cap: one more is refused.
    expect((await joiner.form("/waiting-list/3", team("offered.more@example.com", 10))).status).toBe(200);
    expect(refusedCap(await joiner.form("/waiting-list/4", family("offered.more@example.com", 1)))).toBe(true);

    const [mail] = await t.db("email_outbox").where({ to_address: "offered@example.com", kind: "waiting_list_offer" });
    const link = /https?:\/\/[^\s]+(\/waiting-list\/offer\/[A-Za-z0-9_-]+)/.exec(sentText(t.mailDir, mail))![1]!;
    // A visitor with 12 places asked for cannot take the offer (its one registration holds both places).
    const full = await newVisitor();
    expect((await full.form("/waiting-list/3", team("full.visitor@example.com", 10))).status).toBe(200);
    expect((await full.form("/waiting-list/4", family("full.visitor@example.com", 2))).status).toBe(200);
    const refused = await full.form(`${link}/take`, { place: "1" });
    expect(refusedCap(refused)).toBe(true);
    const holds = await t.db("waiting_list_holds as h").join("registrations as r", "r.id", "h.registration_id").where("h.entry_id", offered.id).orderBy("h.place_number").select("r.id", "r.holder_session");
    expect(holds.map((h: { holder_session: string | null }) => h.holder_session)).toEqual([null]);

    // Another takes it: the place is now that visitor's held place (and the joiner's cap is freed of it).
    const taker = await newVisitor();
    expect((await taker.form(`${link}/take`, { place: "1" })).status).toBe(303);
    expect((await t.db("registrations").where({ id: holds[0].id }).first()).holder_session).not.toBeNull();
    expect((await taker.form("/waiting-list/3", team("taker@example.com", 10))).status).toBe(200);
    expect(refusedCap(await taker.form("/waiting-list/4", family("taker@example.com", 2)))).toBe(true);
  });
});

describe("wrong tokens in the waiting list's links", () => {
  it("are limited per address with the manage links' own counter: the offer, confirmation and leave links answer 429 past it", async () => {
    const guesser = await newVisitor("203.0.113.41");
    const wrong = (i: number) => `guessed-token-${String(i).padStart(8, "0")}-abcdef`;
    const answers: number[] = [];
    for (let i = 0; i < MANAGE_RATE_LIMIT.limit; i++) answers.push((await guesser.get(`/waiting-list/offer/${wrong(i)}`)).status);
    expect(answers.every((s) => s === 404)).toBe(true);
    expect((await guesser.get(`/waiting-list/offer/${wrong(1000)}`)).status).toBe(429);
    expect((await guesser.form(`/waiting-list/offer/${wrong(1001)}/take`, { place: "1" })).status).toBe(429);
    expect((await guesser.form(`/waiting-list/offer/${wrong(1002)}/decline`, {})).status).toBe(429);
    expect((await guesser.get(`/waiting-list/confirm/${wrong(1003)}`)).status).toBe(429);
    expect((await guesser.form(`/waiting-list/confirm/${wrong(1004)}/leave`, {})).status).toBe(429);
    expect((await guesser.get(`/waiting-list/leave/${wrong(1005)}`)).status).toBe(429);
    // One counter with the manage links: guessing there is guessing here.
    expect((await guesser.get(`/my-registration/${wrong(1006)}`)).status).toBe(429);
    // Another address is not held back.
    expect((await (await newVisitor("203.0.113.42")).get(`/waiting-list/offer/${wrong(1007)}`)).status).toBe(404);
  });
});
