import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { backend, createTestApp, type TestApp } from "../../../support/app.ts";
import { createDb, type Db } from "../../../../src/db/knex.ts";
import { createApp } from "../../../../src/app.ts";
import type { JobQueue } from "../../../../src/db/jobQueue.ts";
import { placesTaken } from "../../../../src/events/repository.ts";
import { chooseOffers, WAITLIST_TEXT } from "../../../../src/shared/registrations/waitingList.ts";
import { visitor } from "../../../support/http.ts";
import { sentText } from "../../../support/mail.ts";
import { countPlacesFromRows } from "../../../support/places.ts";

/**
 * Two app instances (on MySQL: each with its own connection pool on the one database) free 50 places at once (50
 * one-place holds lapse) and both sweep and run offer rounds at the same time: every place is offered exactly once,
 * to the entries the line's rule names, with one e-mail each, and the event is never over capacity.
 */
let t: TestApp;
let otherDb: Db;
const EVENT = 3;
const SIZES = [3, 1, 2, 4, 2, 1, 3, 2, 5, 1];

beforeAll(async () => {
  t = await createTestApp();
  otherDb = backend === "mysql" ? createDb(t.config.database, t.logger) : t.db;
});
afterAll(async () => {
  if (otherDb !== t.db) await otherDb.destroy();
  await t?.close();
});

async function fill() {
  const now = new Date();
  await t.db("events").where({ id: EVENT }).update({ capacity: 100 });
  const base = {
    event_id: EVENT, package_code: "full", package_label: "Full Camp", list_price_cents: 24900, amount_cents: 24900, contact_first_name: "Fill", contact_last_name: "Er",
    contact_email: "filler@example.com", contact_phone: "2055550100", agreed_at: now, created_at: now, updated_at: now,
  };
  await t.db("registrations").insert({ ...base, reference: "RFILL000", kind: "team", places: 50, status: "paid", form_session_id: "fill-form-000000000000", paid_at: now, amount_paid_cents: 24900 });
  const inAnHour = new Date(now.getTime() + 3_600_000);
  await t.db("registrations").insert(
    Array.from({ length: 50 }, (_, i) => ({ ...base, reference: `RHOLD${String(i).padStart(3, "0")}`, kind: "individual", places: 1, status: "pending_payment", form_session_id: `hold-form-${String(i).padStart(12, "0")}`, reserved_until: inAnHour })),
  );
  const line = Array.from({ length: 30 }, (_, i) => SIZES[i % SIZES.length]!);
  await t.db("waiting_list_entries").insert(
    line.map((places, i) => ({
      event_id: EVENT, position: i + 1, kind: places >= 5 ? "team" : "individual", places, package_code: places >= 5 ? "team" : "full",
      contact_first_name: "Pat", contact_last_name: `Line${i + 1}`, contact_email: `line${i + 1}@example.com`, contact_phone: "2055550111",
      status: "waiting", leave_token_hash: `leave-${i + 1}-`.padEnd(64, "x"), passed_over: 0, created_at: now, updated_at: now,
    })),
  );
  await countPlacesFromRows(t.db, [EVENT]);
  return line;
}

describe("offers with two app instances", () => {
  it("50 places freed at once: each place offered exactly once, in the line's order", async () => {
    const line = await fill();
    const apps = [t.app, createApp({ ...t, db: otherDb })];
    const queue = (i: number) => apps[i]!.locals.offerQueue as JobQueue;
    const sweep = (i: number) => (apps[i]!.locals.sweepExpiredHolds as () => Promise<number>)();
    const ask = (i: number) => (apps[i]!.locals.askForOfferRounds as () => Promise<number>)();
    expect(await placesTaken(t.db, EVENT, new Date())).toBe(100);

    // Every hold lapses at once; both instances sweep them, ask for rounds and run them, several times over.
    await t.db("registrations").where({ event_id: EVENT, status: "pending_payment" }).update({ reserved_until: new Date(Date.now() - 1000) });
    await Promise.all([sweep(0), sweep(1), ask(0), ask(1)]);
    await Promise.all([queue(0).drain(), queue(1).drain(), ask(0), ask(1), queue(0).drain(), queue(1).drain()]);
    await Promise.all([queue(0).drain(), queue(1).drain()]);

    const expected = chooseOffers(line.map((places, i) => ({ id: i + 1, places, passedOver: 0 })), 50, Date.now());
    expect(expected.offered.reduce((s, e) => s + e.places, 0)).toBe(50);
    const entries = await t.db("waiting_list_entries").where({ event_id: EVENT }).orderBy("position");
    const offered = entries.filter((e: { status: string }) => e.status === "offered");
    expect(offered.map((e: { position: number }) => e.position)).toEqual(expected.offered.map((e) => e.id));
    // Each offered entry holds exactly its places, each place once; no other registration is held.
    const holds = await t.db("waiting_list_holds as h").join("registrations as r", "r.id", "h.registration_id").select("h.entry_id", "r.places", "r.status");
    expect(holds.every((h: { status: string }) => h.status === "pending_payment")).toBe(true);
    for (const e of offered) {
      const mine = holds.filter((h: { entry_id: number }) => Number(h.entry_id) === Number(e.id));
      expect(mine.reduce((s: number, h: { places: number }) => s + Number(h.places), 0), `entry ${e.position}`).toBe(Number(e.places));
    }
    expect(holds.reduce((s: number, h: { places: number }) => s + Number(h.places), 0)).toBe(50);
    expect(await t.db("email_outbox").where({ kind: "waiting_list_offer" })).toHaveLength(offered.length);
    expect(await placesTaken(t.db, EVENT, new Date())).toBe(100);
    // The entries passed over are counted once (this round), the rest wait untouched.
    expect(entries.filter((e: { passed_over: number }) => Number(e.passed_over) === 1).map((e: { position: number }) => e.position)).toEqual(expected.passed.map((e) => e.id));

    // Another round from either instance changes nothing.
    await Promise.all([ask(0), ask(1)]);
    await Promise.all([queue(0).drain(), queue(1).drain()]);
    expect(await t.db("waiting_list_holds")).toHaveLength(holds.length);
    // Rounds done a day ago are deleted by the minute's net; newer ones stay.
    const done = await t.db("waiting_list_jobs").where({ status: "sent" }).count({ n: "*" }).first();
    expect(Number(done?.n)).toBeGreaterThan(0);
    await t.db("waiting_list_jobs").where({ status: "sent" }).update({ sent_at: new Date(Date.now() - 2 * 86_400_000) });
    await ask(0);
    // (The same ask may start a new round for the line that still waits, sent at once by a woken queue: only the old ones count.)
    expect(await t.db("waiting_list_jobs").where({ status: "sent" }).andWhere("sent_at", "<", new Date(Date.now() - 86_400_000))).toHaveLength(0);
  });

  it("a join form sent twice at once (two tabs, two instances), each e-mailed link opened at once, makes one entry at one position", async () => {
    const apps = [t.app, createApp({ ...t, db: otherDb })];
    const tabs = await Promise.all(apps.map((app) => visitor(app)));
    const join = { kind: "individual", places: "1", registrationType: "full", firstName: "Lena", lastName: "Park", email: "twice@example.com", phone: "(205) 555-0111" };
    const asked = await Promise.all([...tabs, ...tabs].map((v) => v.form(`/waiting-list/${EVENT}`, join)));
    expect(asked.map((a) => a.status)).toEqual([200, 200, 200, 200]);
    const mails = await t.db("email_outbox").where({ kind: "waiting_list_confirm", to_address: "twice@example.com" });
    expect(mails).toHaveLength(4);
    const links = mails.map((m: { text_body: string }) => /https?:\/\/[^\s]+(\/waiting-list\/confirm\/[A-Za-z0-9_-]+)/.exec(sentText(t.mailDir, m))![1]!);
    const answers = await Promise.all(links.map((link: string, i: number) => tabs[i % 2]!.form(link, {})));
    expect(answers.map((a) => a.status).sort()).toEqual([200, 409, 409, 409]);
    expect(answers.filter((a) => a.status === 409).every((a) => a.text.includes(WAITLIST_TEXT.alreadyOn.slice(0, 40)))).toBe(true);
    const rows = await t.db("waiting_list_entries").where({ event_id: EVENT, contact_email: "twice@example.com" });
    expect(rows).toHaveLength(1);
    expect(Number(rows[0].position)).toBe(31);
    expect(await t.db("email_outbox").where({ kind: "waiting_list_joined", to_address: "twice@example.com" })).toHaveLength(1);
  });

  it("one visitor's joins sent at once on two instances stay within the per-visitor cap (60 places): the event's lock decides", async () => {
    const apps = [t.app, createApp({ ...t, db: otherDb })];
    // Every request here comes from one address (no proxy in front): it already has 4 places asked for above.
    const tabs = await Promise.all([0, 1].map((i) => visitor(apps[i]!)));
    const team = (n: number) => ({ kind: "team", places: "30", teamName: `Team ${n}`, firstName: "Dana", lastName: "Brooks", email: `cap.race.${n}@example.com`, phone: "(205) 555-0142" });
    const answers = await Promise.all(tabs.map((v, n) => v.form(`/waiting-list/${EVENT}`, team(n))));
    expect(answers.map((a) => a.status).sort()).toEqual([200, 409]);
    expect(answers.find((a) => a.status === 409)!.text).toContain("at most 60 at once");
    expect(await t.db("waiting_list_requests").where("contact_email", "like", "cap.race.%")).toHaveLength(1);
  });
});
