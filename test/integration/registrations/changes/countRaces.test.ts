import { afterAll, describe, expect, it } from "vitest";
import type { Express } from "express";
import { changesApp, paidChangesKit, ATHLETE } from "./helpers.ts";
import { backend } from "../../../support/app.ts";
import { visitor } from "../../../support/http.ts";
import { createDb, type Db } from "../../../../src/db/knex.ts";
import { createApp } from "../../../../src/app.ts";
import type { JobQueue } from "../../../../src/db/jobQueue.ts";
import { placesTaken } from "../../../../src/events/repository.ts";
import { placesDrift } from "../../../../src/events/places.ts";
import { REGISTRATION_ERRORS } from "../../../../src/shared/registrations/rules.ts";

/**
 * The event's count of places taken (src/events/places.ts) while every kind of writer runs at once on two app
 * instances (on MySQL each with its own pool on the one database): new holds, holds lapsing (the sweep of both
 * instances, and admissions that find the event full and release them), paid registrations canceled through their
 * manage links, and the waiting list's offer rounds. Whatever the interleaving, the count is what the rows say and
 * never above capacity.
 */
let otherDb: Db;
let apps: [Express, Express];
const t = changesApp({
  async setup(app) {
    otherDb = backend === "mysql" ? createDb(app.config.database, app.logger) : app.db;
    apps = [app.app, createApp({ ...app, db: otherDb })];
  },
});
const kit = paidChangesKit(t);
afterAll(async () => {
  if (otherDb !== t.db) await otherDb.destroy();
});

const EVENT = 2;
let seq = 0;
const hold = async (app: Express, i: number) => {
  const v = await visitor(app);
  return v
    .post(`/api/events/${EVENT}/create-payment-intent`)
    .set("x-forwarded-for", `198.18.${Math.floor(i / 200)}.${(i % 200) + 1}`)
    .send({ option: "1day", formSessionId: `count-race-${++seq}-${Date.now()}`, registrationData: { ...ATHLETE, email: `count${seq}@example.com`, registrationType: "1day", day1: true } });
};

async function countIsTrue() {
  expect(await placesDrift(t.db)).toEqual([]);
  const row = await t.db("event_places").join("events", "events.id", "event_places.event_id").where("events.id", EVENT).first("taken", "capacity");
  expect(Number(row.taken)).toBeLessThanOrEqual(Number(row.capacity));
  expect(await placesTaken(t.db, EVENT, new Date())).toBeLessThanOrEqual(Number(row.capacity));
}

describe("the count of places under every writer at once", () => {
  it("holds, lapses, cancellations and offers on two instances: the count is what the rows say, never above capacity", async () => {
    const paid = [await kit.paidRegistration(), await kit.paidRegistration(), await kit.paidRegistration()];
    const lapsing = await Promise.all([0, 1, 2, 3].map((i) => hold(apps[i % 2]!, 900 + i)));
    expect(lapsing.map((r) => r.status)).toEqual([200, 200, 200, 200]);
    await t.db("events").where({ id: EVENT }).update({ capacity: (await placesTaken(t.db, EVENT, new Date())) + 4 });
    await t.db("registrations").whereIn("reference", lapsing.map((r) => String(r.body.registrationId))).update({ reserved_until: new Date(Date.now() - 1000) });
    // Two families wait in line (one place each): the places freed go to them first, by the offer rounds.
    const now = new Date();
    await t.db("waiting_list_entries").insert(
      [1, 2].map((i) => ({
        event_id: EVENT, position: i, kind: "individual", places: 1, package_code: "full", contact_first_name: "Pat", contact_last_name: `Line${i}`,
        contact_email: `count-line${i}@example.com`, contact_phone: "2055550111", status: "waiting", leave_token_hash: `count-leave-${i}-`.padEnd(64, "x"),
        passed_over: 0, created_at: now, updated_at: now,
      })),
    );
    const cancels = await Promise.all(paid.map((p, i) => kit.browser(`${p.path}/cancel`, apps[i % 2])));
    const app = (i: number) => apps[i % 2]!;
    const sweep = (i: number) => (app(i).locals.sweepExpiredHolds as () => Promise<number>)();
    const rounds = async (i: number) => {
      await (app(i).locals.askForOfferRounds as () => Promise<number>)();
      await (app(i).locals.offerQueue as JobQueue).drain();
    };

    const [holds, cancelled] = await Promise.all([
      Promise.all(Array.from({ length: 16 }, (_, i) => hold(app(i), i))),
      Promise.all(cancels.map((c, i) => c.post(`${paid[i]!.path}/cancel`, { version: c.version, scope: "all" }))),
      sweep(0),
      sweep(1),
      rounds(0),
      rounds(1),
    ]);
    expect(cancelled.map((r) => r.status)).toEqual([303, 303, 303]);
    expect(holds.every((r) => r.status === 200 || (r.status === 409 && r.body.error === REGISTRATION_ERRORS.soldOut)), JSON.stringify(holds.map((r) => [r.status, r.body.error]))).toBe(true);
    // 4 free, 4 lapsed and 3 canceled: at most 11 places for the 16 holds and the line's 2.
    expect(holds.filter((r) => r.status === 200).length).toBeLessThanOrEqual(11);
    await countIsTrue();
    await Promise.all([sweep(0), sweep(1), rounds(0), rounds(1)]);
    await countIsTrue();
    const offered = await t.db("waiting_list_entries").where({ event_id: EVENT }).whereIn("contact_email", ["count-line1@example.com", "count-line2@example.com"]).pluck("status");
    const held = holds.filter((r) => r.status === 200).length + offered.filter((s) => s === "offered").length;
    expect(held).toBeLessThanOrEqual(11);
  });
});
