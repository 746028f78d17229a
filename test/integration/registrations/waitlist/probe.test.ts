import { describe, expect, it } from "vitest";
import { waitlistApp } from "./helpers.ts";
import { athleteFields, paidChangesKit, teamAthlete } from "../changes/helpers.ts";
import { textOf, visitor } from "../../../support/http.ts";
import { placesTaken } from "../../../../src/events/repository.ts";
import type { JobQueue } from "../../../../src/db/jobQueue.ts";
import { PASSES_BEFORE_BLOCKING, WAITLIST_TEXT } from "../../../../src/shared/registrations/waitingList.ts";
import { sentText } from "../../../support/mail.ts";

/**
 * The outside probe's attack, replayed (SQLite here, MySQL + Redis in integration-mysql): one anonymous post of a
 * "team of 60" to the waiting list of an event with 55 free places, any e-mail, nothing paid or confirmed. Every
 * family can still register and a coach can still add athletes; confirmed, the team still keeps nothing back (it
 * does not fit) and the families behind it get offers. Then the one way the line may keep free places from sale:
 * an entry passed over twice holds the line for one offer window, not longer.
 */
const t = waitlistApp();
const kit = paidChangesKit(t);
type V = Awaited<ReturnType<typeof visitor>>;

let seq = 0;
async function newVisitor(): Promise<V> {
  const v = await visitor(t.app);
  const addr = `203.0.113.${(++seq % 250) + 1}`;
  return { ...v, get: (url: string) => v.get(url).set("x-forwarded-for", addr), post: (url: string) => v.post(url).set("x-forwarded-for", addr), form: (url: string, f: Record<string, string | string[]>) => v.form(url, f).set("x-forwarded-for", addr) };
}
const ATHLETE = {
  firstName: "Maya", lastName: "Okafor", email: "maya@example.com", phone: "(205) 555-0100", grade: "9th", gender: "Female",
  schoolName: "Central High", emergencyContactName: "Ada Okafor", emergencyContactPhone: "205-555-0199", adult: "on", agrees: "on", registrationType: "full",
};
const hold = async (eventId: number, v?: V) =>
  (v ?? (await newVisitor())).post(`/api/events/${eventId}/create-payment-intent`).send({ option: "full", formSessionId: `probe-form-${++seq}-${Date.now()}`, registrationData: ATHLETE });
const placesLeft = async (eventId: number) => ((await (await newVisitor()).get(`/api/events/${eventId}`)).body as { placesLeft: number }).placesLeft;
const TEAM_60 = { kind: "team", places: "60", teamName: "Nobody WC", firstName: "Anon", lastName: "Ymous", email: "anyone@example.net", phone: "(205) 555-0199" };
const family = (email: string) => ({ kind: "individual", places: "1", registrationType: "full", firstName: "Lena", lastName: "Park", email, phone: "(205) 555-0111" });
const confirmLink = async (email: string) => {
  const mails = await t.db("email_outbox").where({ to_address: email, kind: "waiting_list_confirm" }).orderBy("id");
  return /https?:\/\/[^\s]+(\/waiting-list\/confirm\/[A-Za-z0-9_-]+)/.exec(sentText(t.mailDir, mails.at(-1)))![1]!;
};
async function joinConfirmed(eventId: number, form: Record<string, string>) {
  const v = await newVisitor();
  const asked = await v.form(`/waiting-list/${eventId}`, form);
  expect(asked.status, textOf(asked.text)).toBe(200);
  const page = await v.form(await confirmLink(form.email!), {});
  expect(page.status, textOf(page.text)).toBe(200);
  return t.db("waiting_list_entries").where({ event_id: eventId, contact_email: form.email }).first();
}
const rounds = async () => {
  await (t.app.locals.askForOfferRounds as () => Promise<number>)();
  await (t.app.locals.offerQueue as JobQueue).drain();
};
const sweep = () => (t.app.locals.sweepExpiredHolds as () => Promise<number>)();
const entry = (id: number) => t.db("waiting_list_entries").where({ id }).first();

describe("the probe: an anonymous team of 60 on an event with 55 free places", () => {
  it("every family can still register and a coach can still add athletes, confirmed or not", async () => {
    const EVENT = 2;
    const coach = await kit.paidTeam(5, "probe");
    const otherCoach = await kit.paidTeam(5, "probe2");
    await t.db("events").where({ id: EVENT }).update({ capacity: (await placesTaken(t.db, EVENT, new Date())) + 55 });

    const asked = await (await newVisitor()).form(`/waiting-list/${EVENT}`, TEAM_60);
    expect(asked.status, textOf(asked.text)).toBe(200);
    expect(await t.db("waiting_list_entries").where({ event_id: EVENT })).toHaveLength(0);
    expect(await placesLeft(EVENT)).toBe(55);

    // Six families register, each from its own browser.
    for (let i = 0; i < 6; i++) expect((await hold(EVENT)).status).toBe(200);
    // The coach adds three athletes to the paid team.
    const b = await kit.browser(coach.path);
    const added = await b.post(`${coach.path}/athletes`, { ...athleteFields(0, teamAthlete(6, "p")), ...athleteFields(1, teamAthlete(7, "p")), ...athleteFields(2, teamAthlete(8, "p")) });
    expect(added.status, textOf(added.text)).toBe(303);
    expect(await placesLeft(EVENT)).toBe(46);

    // Confirmed, the team is in line, but 60 places do not fit in 46: it keeps none of them back.
    const team = await (async () => {
      const v = await newVisitor();
      const page = await v.form(await confirmLink(TEAM_60.email), {});
      expect(textOf(page.text)).toContain("You are number 1 on the waiting list.");
      return t.db("waiting_list_entries").where({ event_id: EVENT, contact_email: TEAM_60.email }).first();
    })();
    expect(team).toMatchObject({ status: "waiting", places: 60 });
    expect(await placesLeft(EVENT)).toBe(46);
    for (let i = 0; i < 3; i++) expect((await hold(EVENT)).status).toBe(200);
    const more = await (await kit.browser(otherCoach.path)).post(`${otherCoach.path}/athletes`, athleteFields(0, teamAthlete(6, "q")));
    expect(more.status, textOf(more.text)).toBe(303);
    expect(await placesLeft(EVENT)).toBe(42);
    await rounds();
    expect((await entry(team.id)).status).toBe("waiting");
    expect(await t.db("waiting_list_holds")).toHaveLength(0);
  });
});

describe("the line's rule when places free up", () => {
  const EVENT = 3;
  let walkIns: V[];
  let siblings: { id: number };
  let first: { id: number };
  let second: { id: number };

  it("families behind an entry that does not fit get offers; it is passed over, and the second time it holds the line", async () => {
    await t.db("events").where({ id: EVENT }).update({ capacity: 2 });
    walkIns = [await newVisitor(), await newVisitor()];
    for (const v of walkIns) expect((await hold(EVENT, v)).status).toBe(200);
    expect((await hold(EVENT)).status).toBe(409);
    // Two siblings: more places than free up at once.
    siblings = await joinConfirmed(EVENT, { ...family("two.siblings@example.com"), places: "2" });
    first = await joinConfirmed(EVENT, family("first.family@example.com"));
    second = await joinConfirmed(EVENT, family("second.family@example.com"));

    const lapse = async () => {
      const ref = (await t.db("registrations").where({ event_id: EVENT, status: "pending_payment" }).whereNotIn("id", t.db("waiting_list_holds").select("registration_id")).first()).id;
      await t.db("registrations").where({ id: ref }).update({ reserved_until: new Date(Date.now() - 1000) });
      await sweep();
      await rounds();
    };
    await lapse();
    expect((await entry(first.id)).status).toBe("offered");
    expect(await entry(siblings.id)).toMatchObject({ status: "waiting", passed_over: 1, holds_line_until: null });
    await lapse();
    expect((await entry(second.id)).status).toBe("offered");
    const held = await entry(siblings.id);
    expect(Number(held.passed_over)).toBe(PASSES_BEFORE_BLOCKING);
    expect(held.holds_line_until).not.toBeNull();
  });

  it("while it holds the line, a place an offer gives back waits for it (nobody buys it); after one offer window it is for sale", async () => {
    const [mail] = await t.db("email_outbox").where({ to_address: "first.family@example.com", kind: "waiting_list_offer" });
    const link = /https?:\/\/[^\s]+(\/waiting-list\/offer\/[A-Za-z0-9_-]+)/.exec(sentText(t.mailDir, mail))![1]!;
    const declined = await (await newVisitor()).form(`${link}/decline`, {});
    expect(textOf(declined.text)).toContain(WAITLIST_TEXT.declined);
    await rounds();
    expect((await entry(siblings.id)).status).toBe("waiting");
    expect(await placesLeft(EVENT)).toBe(0);
    const refused = await hold(EVENT);
    expect(refused.status).toBe(409);

    // Its window (one offer window from the second pass) is over: the place is for sale again.
    await t.db("waiting_list_entries").where({ id: siblings.id }).update({ holds_line_until: new Date(Date.now() - 1000) });
    expect((await hold(EVENT)).status).toBe(200);
    expect((await entry(siblings.id)).status).toBe("waiting");
  });
});
