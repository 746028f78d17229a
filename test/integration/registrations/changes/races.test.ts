import { afterAll, describe, expect, it } from "vitest";
import { athleteFields, changesApp, paidChangesKit, teamAthlete, until } from "./helpers.ts";
import type { Express } from "express";
import { backend } from "../../../support/app.ts";
import { createDb, type Db } from "../../../../src/db/knex.ts";
import { createApp } from "../../../../src/app.ts";
import { placesTaken } from "../../../../src/events/repository.ts";
import { CHANGE_TEXT } from "../../../../src/shared/registrations/changeTexts.ts";

/**
 * The races a registrant can start on a paid registration's changes that cost money, against the real routes, two
 * app instances (on MySQL, each with its own pool on the one database) and the offline Stripe: two tabs taking the
 * last places for new athletes, a re-post of an upgrade while its payment is in flight, a cheaper package posted
 * while an upgrade's payment is pending. Whatever the interleaving: one change, one intent, one charge, and what is
 * paid is what is registered.
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

const intentsFor = (changeId: number) => [...t.fake.intents.values()].filter((i) => i.metadata.kind === "registration_change" && i.metadata.reference === String(changeId));
const changesOf = async (reference: string) => t.db("registration_changes").where({ registration_id: (await kit.row(reference)).id }).orderBy("id");

describe("the last free places, wanted for new athletes", () => {
  it("two coaches on two instances add an athlete each for the one place left: only one holds it", async () => {
    const one = await kit.paidTeam(5, "raceA");
    const two = await kit.paidTeam(5, "raceB");
    await t.db("events").where({ id: 2 }).update({ capacity: (await placesTaken(t.db, 2, new Date())) + 1 });
    const a = await kit.browser(one.path, apps[0]);
    const b = await kit.browser(two.path, apps[1]);
    const answers = await Promise.all([a.post(`${one.path}/athletes`, athleteFields(0, teamAthlete(6, "ra"))), b.post(`${two.path}/athletes`, athleteFields(0, teamAthlete(6, "rb")))]);
    expect(answers.map((r) => r.status).sort()).toEqual([303, 409]);
    expect(answers.find((r) => r.status === 409)!.text).toContain("no athlete can be added");
    const capacity = Number((await t.db("events").where({ id: 2 }).first("capacity")).capacity);
    expect(await placesTaken(t.db, 2, new Date())).toBe(capacity);
    expect((await changesOf(one.reference)).length + (await changesOf(two.reference)).length).toBe(1);
  });

  it("two tabs of one coach add different athletes for the one place left: one change holds it", async () => {
    const team = await kit.paidTeam(5, "tabs");
    await t.db("events").where({ id: 2 }).update({ capacity: (await placesTaken(t.db, 2, new Date())) + 1 });
    const tab1 = await kit.browser(team.path, apps[0]);
    const tab2 = await kit.browser(team.path, apps[1]);
    const answers = await Promise.all([tab1.post(`${team.path}/athletes`, athleteFields(0, teamAthlete(6, "t1"))), tab2.post(`${team.path}/athletes`, athleteFields(0, teamAthlete(7, "t2")))]);
    expect(answers.map((r) => r.status).sort()).toEqual([303, 409]);
    const [held] = await changesOf(team.reference);
    expect(await changesOf(team.reference)).toHaveLength(1);
    // The winner pays; the team grows by exactly one, and paid is what is registered.
    const winner = answers.find((r) => r.status === 303)!;
    const page = await (winner === answers[0] ? tab1 : tab2).get(winner.headers.location!);
    const intentId = kit.intentOf(page.text)!;
    expect(t.fake.confirm(intentId, { number: "4242 4242 4242 4242" }).status).toBe(200);
    await until(async () => (await changesOf(team.reference))[0].status === "paid");
    expect(await kit.row(team.reference)).toMatchObject({ places: 6, amount_cents: 119400, amount_paid_cents: 119400 });
    expect(held.places).toBe(1);
    expect(await kit.netPaid(team.reference)).toBe(119400);
  });
});

describe("an upgrade re-posted while its payment is in flight", () => {
  it("makes one change, one PaymentIntent and one charge; the registration is what was paid", async () => {
    const { reference, path } = await kit.paidRegistration();
    const tabs = [await kit.browser(path, apps[0]), await kit.browser(path, apps[1])];
    const first = await tabs[0]!.post(`${path}/upgrade`, { version: tabs[0]!.version, registrationType: "full" });
    const changeUrl = first.headers.location!;
    const intentId = kit.intentOf((await tabs[0]!.get(changeUrl)).text)!;

    // The card goes through while both tabs post the form again, reload the payment page and report the return.
    const settled = Promise.all([
      Promise.resolve().then(() => t.fake.confirm(intentId, { number: "4242 4242 4242 4242" })),
      tabs[0]!.json(`${changeUrl}/paid`, { paymentIntentId: intentId }),
      tabs[1]!.json(`${changeUrl}/paid`, { paymentIntentId: intentId }),
    ]);
    const reposts = Promise.all([
      tabs[0]!.post(`${path}/upgrade`, { version: tabs[0]!.version, registrationType: "full" }),
      tabs[1]!.post(`${path}/upgrade`, { version: tabs[1]!.version, registrationType: "full" }),
      tabs[1]!.get(changeUrl),
      tabs[0]!.get(changeUrl),
    ]);
    const [, answers] = await Promise.all([settled, reposts]);
    for (const r of answers) expect(r.status, r.text.slice(0, 200)).toBeLessThan(500);
    await t.fake.idle();
    await until(async () => (await changesOf(reference))[0].status === "paid");

    expect(await changesOf(reference)).toHaveLength(1);
    const [change] = await changesOf(reference);
    expect(intentsFor(change.id)).toHaveLength(1);
    expect(intentsFor(change.id)[0]!.status).toBe("succeeded");
    expect(await t.db("payments").where({ kind: "registration_change", reference: String(change.id) })).toHaveLength(1);
    expect(await kit.row(reference)).toMatchObject({ package_code: "full", amount_cents: 29900, amount_paid_cents: 29900, version: 2 });
    expect(await kit.netPaid(reference)).toBe(29900);
    // The form once more, after: the package is no longer dearer; nothing new.
    expect((await tabs[0]!.post(`${path}/upgrade`, { version: "2", registrationType: "full" })).status).toBe(400);
    expect(await changesOf(reference)).toHaveLength(1);
  });
});

describe("a cheaper package posted while an upgrade's payment is pending", () => {
  it("is refused while the upgrade waits (even once the card was charged and not yet reported); paid stays what is registered", async () => {
    const { reference, path } = await kit.paidRegistration();
    const upgradeTab = await kit.browser(path, apps[0]);
    const downgradeTab = await kit.browser(path, apps[1]);
    const posted = await upgradeTab.post(`${path}/upgrade`, { version: upgradeTab.version, registrationType: "full" });
    const intentId = kit.intentOf((await upgradeTab.get(posted.headers.location!)).text)!;

    // Charged at Stripe, neither the webhook nor the return call here yet.
    t.fake.autoDeliver = false;
    expect(t.fake.confirm(intentId, { number: "4242 4242 4242 4242" }).status).toBe(200);
    const refused = await downgradeTab.post(`${path}/package`, { version: downgradeTab.version, registrationType: "1day", day1: "on" });
    expect(refused.status).toBe(409);
    expect(refused.text).toContain(CHANGE_TEXT.pendingElsewhere.slice(0, 40));
    expect(await kit.row(reference)).toMatchObject({ package_code: "2day", version: 1 });

    // Both at once now: the return call and the downgrade again.
    const [paid, again] = await Promise.all([
      upgradeTab.json(`${posted.headers.location!}/paid`, { paymentIntentId: intentId }),
      downgradeTab.post(`${path}/package`, { version: downgradeTab.version, registrationType: "1day", day1: "on" }),
    ]);
    expect(paid.body.status).toBe("paid");
    expect(again.status).toBe(409);
    const r = await kit.row(reference);
    expect(r).toMatchObject({ package_code: "full", amount_cents: 29900, amount_paid_cents: 29900, version: 2 });
    expect(await kit.netPaid(reference)).toBe(29900);
  });
});
