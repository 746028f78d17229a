import { describe, expect, it } from "vitest";
import { bookingApp } from "./helpers.ts";
import Stripe from "stripe";
import request from "supertest";
import { csrfFrom, visitor } from "../../../support/http.ts";
import { placesLeft } from "../../../../src/events/repository.ts";
import { insertCode } from "../../../../src/discounts/repository.ts";
import { createApp } from "../../../../src/app.ts";
import { createDb } from "../../../../src/db/knex.ts";
import { backend } from "../../../support/app.ts";
import { CODE_GUESS_LIMITS } from "../../../../src/registrations/core/routeKit.tsx";
import { HOLD_TEXT } from "../../../../src/registrations/core/holding.ts";

/**
 * The races a visitor can start on the registration aggregate (two tabs, a re-post during payment, a retry), run
 * against the real routes and the offline Stripe fake; on MySQL + Redis in the integration-mysql project. Whatever
 * the interleaving: what is paid is what is registered, nothing changes after payment, places stay honest, no 500.
 */
const t = bookingApp({
  async setup(app) {
    await insertCode(app.db, { code: "OFF119", type: "fixed", value: 11900, eventId: null, kind: "both", maxRedemptions: null, startsAt: null, expiresAt: null }, new Date());
  },
});

type V = Awaited<ReturnType<typeof visitor>>;
let seq = 0;
const formId = () => `race-form-${String(++seq).padStart(6, "0")}-${Date.now()}`;
/** Each simulated visitor comes from an address of its own (behind the one proxy). */
const address = () => `198.51.100.${(seq % 250) + 1}`;
const intentIdOf = (clientSecret: string) => clientSecret.split("_secret_")[0]!;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const ATHLETE = {
  firstName: "Maya", lastName: "Okafor", email: "maya.okafor@example.com", phone: "(205) 555-0100", grade: "9th", gender: "Female",
  schoolName: "Central High", emergencyContactName: "Ada Okafor", emergencyContactPhone: "205-555-0199", adult: "on", agrees: "on",
};
/** Event 2: full camp (3 days) $299, 2 days $238, 1 day $119. */
const ONE_DAY = { registrationType: "1day", day1: true };
const FULL = { registrationType: "full" };
const PRICES: Record<string, number> = { full: 29900, "2day": 23800, "1day": 11900 };
const DAYS: Record<string, number> = { full: 3, "2day": 2, "1day": 1 };

async function newVisitor(): Promise<V & { ip: string }> {
  const v = await visitor(t.app);
  const ip = address();
  return { ...v, ip, post: (url: string) => v.post(url).set("x-forwarded-for", ip) };
}
const hold = (v: V, form: string, data: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
  v.post("/api/events/2/create-payment-intent").send({ option: data.registrationType, formSessionId: form, registrationData: { ...ATHLETE, ...data }, ...extra });
const returnFrom = (v: V, intentId: string, option?: string) => v.post("/api/events/2/stripe-payment-success").send({ paymentIntentId: intentId, ...(option ? { option } : {}) });

async function registrationRow(reference: string) {
  const r = await t.db("registrations").where({ reference }).first();
  const days = await t.db("registration_days").where({ registration_id: r.id }).count({ n: "*" }).first();
  const athletes = await t.db("registration_athletes").where({ registration_id: r.id }).count({ n: "*" }).first();
  const payments = await t.db("payments").where({ kind: "registration", reference }).orderBy("id");
  return { ...r, dayCount: Number(days?.n), athleteCount: Number(athletes?.n), payments };
}

/** The invariants every race must keep, for one registration after the dust settles. */
function expectHonest(r: Awaited<ReturnType<typeof registrationRow>>, chargedCents: number) {
  const paid = r.payments.filter((p: { status: string }) => p.status === "paid" || p.status === "needs_review");
  if (r.status === "paid") {
    expect(Number(r.amount_paid_cents), `${r.reference}: paid what it registers`).toBe(Number(r.amount_cents));
    expect(Number(r.amount_paid_cents), `${r.reference}: paid what was charged`).toBe(chargedCents);
    if (r.kind === "individual") {
      expect(Number(r.list_price_cents)).toBe(PRICES[r.package_code]);
      expect(r.dayCount, `${r.reference}: days of its package`).toBe(DAYS[r.package_code]);
    } else {
      expect(Number(r.list_price_cents)).toBe(19900 * Number(r.places));
      expect(r.athleteCount).toBe(Number(r.places));
    }
  } else if (chargedCents > 0) {
    // Money was taken for something the registration no longer says: the operator decides, the places stay.
    expect(r.status, `${r.reference}: charged ${chargedCents} but ${r.status}`).toBe("needs_review");
    expect(paid.map((p: { status: string }) => p.status)).toContain("needs_review");
  }
}

const chargedFor = (reference: string) =>
  [...t.fake.intents.values()].filter((i) => i.metadata.reference === reference && i.status === "succeeded").reduce((sum, i) => sum + i.amount, 0);

describe("races on the registration aggregate", () => {
  it("paying a 1-day place while the same form is re-posted as full camp: never paid for more than was charged, days never change after payment", async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 12; i++) {
      const v = await newVisitor();
      const form = formId();
      const held = await hold(v, form, ONE_DAY);
      expect(held.status).toBe(200);
      const intentId = intentIdOf(held.body.clientSecret);
      const [paying, reposting] = await Promise.all([
        (async () => {
          await sleep(i % 4);
          expect(t.fake.confirm(intentId, { number: "4242424242424242" }).status).toBe(200);
          return returnFrom(v, intentId);
        })(),
        (async () => {
          await sleep((i * 3) % 5);
          return hold(v, form, FULL);
        })(),
      ]);
      statuses.push(paying.status, reposting.status);
      await t.fake.idle();
      const r = await registrationRow(held.body.registrationId);
      expectHonest(r, chargedFor(r.reference));
      if (reposting.body.alreadyPaid) expect(r.package_code, "a re-post after payment changes nothing").toBe("1day");
    }
    expect(statuses.filter((s) => s >= 500)).toEqual([]);
  });

  it("paying a team of 5 while the team form is re-posted with 60 athletes: the team paid is the team charged", async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) {
      const v = await newVisitor();
      const form = formId();
      const held = await teamHold(v, form, 5);
      expect(held.status).toBe(200);
      const intentId = intentIdOf(held.body.clientSecret);
      const [paying, reposting] = await Promise.all([
        (async () => {
          await sleep(i % 3);
          t.fake.confirm(intentId, { number: "4242424242424242" });
          return returnFrom(v, intentId, "team");
        })(),
        (async () => {
          await sleep((i * 2) % 4);
          return teamHold(v, form, 60);
        })(),
      ]);
      statuses.push(paying.status, reposting.status);
      await t.fake.idle();
      const r = await registrationRow(held.body.registrationId);
      expectHonest(r, chargedFor(r.reference));
      // Whatever won, the event never lends out more than it has.
      expect(await placesLeft(t.db, 2, new Date())).toBeGreaterThanOrEqual(0);
      // Let the 60 held places go, so the next round has room.
      await t.db("registrations").where({ reference: r.reference, status: "pending_payment" }).update({ reserved_until: new Date(Date.now() - 1000) });
    }
    expect(statuses.filter((s) => s >= 500)).toEqual([]);
  });

  it("completing a free 1-day registration while re-posting it as full camp: free only for what the code covers", async () => {
    for (let i = 0; i < 8; i++) {
      const v = await newVisitor();
      const form = formId();
      const held = await hold(v, form, ONE_DAY, { discountCode: "OFF119" });
      expect(held.status).toBe(200);
      expect(held.body.isFreeRegistration).toBe(true);
      const [free, reposting] = await Promise.all([
        (async () => {
          await sleep(i % 3);
          return v.post("/api/events/2/stripe-payment-success").send({ freeRegistration: true, discountCode: "OFF119" });
        })(),
        (async () => {
          await sleep((i * 2) % 3);
          return hold(v, form, FULL);
        })(),
      ]);
      expect(free.status).toBeLessThan(500);
      expect(reposting.status).toBeLessThan(500);
      const r = await registrationRow(held.body.registrationId);
      if (r.status === "paid") {
        expect(r.package_code, "a free registration is the package the code made free").toBe("1day");
        expect(Number(r.amount_paid_cents)).toBe(0);
        expect(r.dayCount).toBe(1);
      } else {
        expect(r).toMatchObject({ status: "pending_payment", package_code: "full" });
        expect(Number(r.amount_cents)).toBe(29900 - 11900);
      }
    }
  });

  it("two siblings and a team of 5 taking the last 5 places at once: never above capacity, the family all or none", async () => {
    const SISTER = { siblings: "1", sibling2_firstName: "Zoe", sibling2_lastName: "Okafor", sibling2_grade: "7th", sibling2_gender: "Female", sibling2_schoolName: "Central Middle", sibling2_registrationType: "full" };
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) {
      const event = await t.db("events").where({ id: 2 }).first();
      await t.db("events").where({ id: 2 }).update({ capacity: Number(event.capacity) - (await placesLeft(t.db, 2, new Date())) + 5 });
      const [family, coach] = [await newVisitor(), await newVisitor()];
      const [f, team] = await Promise.all([
        (async () => {
          await sleep(i % 3);
          return hold(family, formId(), { ...FULL, ...SISTER });
        })(),
        (async () => {
          await sleep((i * 2) % 3);
          return teamHold(coach, formId(), 5);
        })(),
      ]);
      statuses.push(f.status, team.status);
      // 2 + 5 places cannot both fit in 5: exactly one is held, and the event never lends out more than it has.
      expect([f.status, team.status].filter((s) => s === 200)).toHaveLength(1);
      expect(await placesLeft(t.db, 2, new Date())).toBeGreaterThanOrEqual(0);
      if (f.status === 200) {
        const r = await registrationRow(f.body.registrationId);
        expect([Number(r.places), r.athleteCount, Number(r.amount_cents)]).toEqual([2, 2, 29900 * 2]);
      } else {
        expect(f.body.error).toBe("This event is sold out: every place is taken or held. Please choose another event.");
      }
      // Let the held places go, so the next round starts again with 5.
      for (const res of [f, team]) if (res.status === 200) await t.db("registrations").where({ reference: res.body.registrationId }).update({ reserved_until: new Date(Date.now() - 1000) });
    }
    expect(statuses.filter((s) => s >= 500)).toEqual([]);
    await t.db("events").where({ id: 2 }).update({ capacity: 200 });
  });

  it("paying for one athlete while a sibling is added on the same form: the payment's amount never disagrees with what is registered", async () => {
    const SISTER = { siblings: "1", sibling2_firstName: "Zoe", sibling2_lastName: "Okafor", sibling2_grade: "7th", sibling2_gender: "Female", sibling2_schoolName: "Central Middle", sibling2_registrationType: "1day", sibling2_day1: "on" };
    const statuses: number[] = [];
    for (let i = 0; i < 10; i++) {
      const v = await newVisitor();
      const form = formId();
      const held = await hold(v, form, FULL);
      expect(held.status).toBe(200);
      const intentId = intentIdOf(held.body.clientSecret);
      const [paying, adding] = await Promise.all([
        (async () => {
          await sleep(i % 4);
          t.fake.confirm(intentId, { number: "4242424242424242" });
          return returnFrom(v, intentId);
        })(),
        (async () => {
          await sleep((i * 3) % 5);
          return hold(v, form, { ...FULL, ...SISTER });
        })(),
      ]);
      statuses.push(paying.status, adding.status);
      await t.fake.idle();
      const r = await registrationRow(held.body.registrationId);
      const charged = chargedFor(r.reference);
      if (r.status === "paid") {
        // Paid: for exactly what it registers, one athlete ($299) or two ($299 + $119), each with its place.
        expect(Number(r.amount_paid_cents)).toBe(Number(r.amount_cents));
        expect(Number(r.amount_paid_cents)).toBe(charged);
        expect(Number(r.amount_cents)).toBe(Number(r.places) === 2 ? 29900 + 11900 : 29900);
        expect(r.athleteCount).toBe(Number(r.places));
      } else if (charged > 0) {
        expect(r.status, `${r.reference}: charged ${charged} but ${r.status}`).toBe("needs_review");
      }
      if (adding.body.alreadyPaid) expect(Number(r.places), "a sibling posted after payment changes nothing").toBe(1);
    }
    expect(statuses.filter((s) => s >= 500)).toEqual([]);
  });

  it("a double submit of step 1 without JavaScript holds one registration and answers both with it, never 'form expired'", async () => {
    for (let i = 0; i < 5; i++) {
      const v = await newVisitor();
      const form = formId();
      const fields = { ...ATHLETE, formSessionId: form, registrationType: "full" };
      const send = () => v.agent.post("/register/2").set("x-forwarded-for", v.ip).type("form").send({ ...fields, _csrf: v.token });
      const [a, b] = await Promise.all([send(), send()]);
      expect([a.status, b.status]).toEqual([303, 303]);
      expect(a.headers.location).toBe("/register/2?step=payment");
      expect(b.headers.location).toBe("/register/2?step=payment");
      expect(await t.db("registrations").where({ form_session_id: form })).toHaveLength(1);
    }
  });

  it("a double submit of step 1 with JavaScript on one instance is decided once: both answers name one registration and one PaymentIntent", async () => {
    const v = await newVisitor();
    const form = formId();
    const inserts: string[] = [];
    const listener = (q: { sql: string }) => {
      if (/^insert into `registrations`/i.test(q.sql.trim())) inserts.push(q.sql);
    };
    t.db.on("query", listener);
    let answers;
    try {
      answers = await Promise.all([hold(v, form, ONE_DAY), hold(v, form, ONE_DAY)]);
    } finally {
      t.db.off("query", listener);
    }
    const [a, b] = answers;
    expect([a.status, b.status]).toEqual([200, 200]);
    expect(b.body.registrationId).toBe(a.body.registrationId);
    expect(b.body.clientSecret).toBe(a.body.clientSecret);
    // The second post joined the first (samePost.ts): it did not try the insert that the form's unique id refuses.
    expect(inserts).toHaveLength(1);
    // Both sessions know the hold: the visitor can go on from either answer's tab.
    expect((await v.get("/register/2?step=payment")).status).toBe(200);
    // The same form with other content is decided anew: the registration is rewritten as full camp.
    const c = await hold(v, form, FULL);
    expect(c.status).toBe(200);
    expect(c.body.registrationId).toBe(a.body.registrationId);
    expect((await t.db("registrations").where({ form_session_id: form }).first()).package_code).toBe("full");
  });

  it.runIf(backend === "mysql")("a double submit of step 1 across two instances is decided by the database: one registration, both answers name it", async () => {
    const secondDb = createDb(t.config.database, t.logger);
    const second = createApp({ config: t.config, db: secondDb, redis: t.redis, logger: t.logger, outbox: t.outbox, catalogue: t.catalogue, gateway: t.gateway, shopifyWriteBacks: undefined });
    try {
      for (let i = 0; i < 3; i++) {
        // One browser: its cookies and token, sent to either instance (they share the session store).
        const ip = address();
        const first = await request(t.app).get("/about").set("x-forwarded-for", ip);
        const cookie = (first.headers["set-cookie"] as unknown as string[]).map((c) => c.split(";")[0]).join("; ");
        const token = csrfFrom(first.text);
        const form = formId();
        const body = { option: "1day", formSessionId: form, registrationData: { ...ATHLETE, ...ONE_DAY } };
        const send = (app: typeof second) => request(app).post("/api/events/2/create-payment-intent").set("x-forwarded-for", ip).set("cookie", cookie).set("x-csrf-token", token).send(body);
        const [a, b] = await Promise.all([send(t.app), send(second)]);
        const answers = [a, b].map((x) => `${x.status} ${JSON.stringify(x.body)}`).join("\n");
        const rows = await t.db("registrations").where({ form_session_id: form });
        expect(rows, answers).toHaveLength(1);
        for (const x of [a, b]) {
          // The post that finds the other's PaymentIntent still being made says so (409) rather than make a second one.
          if (x.status === 200) expect(x.body.registrationId, answers).toBe(rows[0].reference);
          else expect(x.status, answers).toBe(409);
        }
        expect([a.status, b.status], answers).toContain(200);
      }
    } finally {
      await secondDb.destroy();
    }
  });

  it("one visitor cannot hold more places than the cap: four team requests (60 + 60 + 60 + 20) hold the first team only", async () => {
    const v = await newVisitor();
    const before = await placesLeft(t.db, 3, new Date());
    const answers = [];
    for (const size of [60, 60, 60, 20]) answers.push(await v.post("/api/team-registration").send(teamBody(formId(), size, 3)));
    expect(answers.map((a) => a.status)).toEqual([200, 409, 409, 409]);
    for (const a of answers.slice(1)) expect(a.body.userFriendlyMessage).toBe(HOLD_TEXT.visitorCap(60));
    expect(await placesLeft(t.db, 3, new Date())).toBe(before - 60);
    await t.db("registrations").where({ reference: answers[0]!.body.registrationId }).update({ reserved_until: new Date(Date.now() - 1000) });
  });

  it("the same cap holds for one address across visitors, and for holds made at the same moment", async () => {
    const ip = "203.0.113.77";
    const visitors = await Promise.all(Array.from({ length: 4 }, () => visitor(t.app)));
    const answers = await Promise.all(visitors.map((v) => v.post("/api/team-registration").set("x-forwarded-for", ip).send(teamBody(formId(), 20, 3))));
    expect(answers.filter((a) => a.status === 200)).toHaveLength(3);
    expect(answers.filter((a) => a.status === 409)).toHaveLength(1);
    await t.db("registrations").whereIn("reference", answers.map((a) => a.body.registrationId).filter(Boolean)).update({ reserved_until: new Date(Date.now() - 1000) });
  });

  it("the 21st PaymentIntent of one session is refused", async () => {
    const v = await newVisitor();
    const answers = [];
    for (let i = 0; i < 21; i++) {
      answers.push((await hold(v, formId(), { ...FULL, email: `kid${i}@example.com` })).status);
    }
    expect(answers.slice(0, 20).every((s) => s === 200)).toBe(true);
    expect(answers[20]).toBe(429);
    await t.db("registrations").where("contact_email", "like", "kid%@example.com").update({ reserved_until: new Date(Date.now() - 1000) });
  });

  it("code guesses share one budget across validate-discount, step 1, the team form and the free completion", async () => {
    const v = await newVisitor();
    const held = await hold(v, formId(), FULL);
    expect(held.status).toBe(200);
    for (let i = 0; i < CODE_GUESS_LIMITS.visitor.limit; i++) {
      expect((await v.post("/api/validate-discount").send({ eventId: 2, discountCode: `GUESS${i}` })).status).not.toBe(429);
    }
    expect((await v.post("/api/validate-discount").send({ eventId: 2, discountCode: "GUESS-X" })).status).toBe(429);
    expect((await hold(v, formId(), FULL, { discountCode: "GUESS-Y" })).status).toBe(429);
    expect((await v.post("/api/team-registration").send({ ...teamBody(formId(), 5, 2), discountCode: "GUESS-Z" })).status).toBe(429);
    expect((await v.post("/api/events/2/stripe-payment-success").send({ freeRegistration: true, discountCode: "GUESS-W" })).status).toBe(429);
    // Without a code, the same visitor still registers.
    expect((await hold(v, formId(), FULL)).status).toBe(200);
  });

  it("codes match byte for byte after upper-casing: ÖFF119 is not OFF119", async () => {
    const v = await newVisitor();
    const res = await hold(v, formId(), ONE_DAY, { discountCode: "öff119" });
    expect(res.status).toBe(422);
    expect(res.body.userFriendlyMessage).toBe("This discount code does not exist. Please check it and try again.");
  });

  it("a full refund made in Stripe's dashboard refunds the registration, frees its place and e-mails the payer; a partial one is recorded", async () => {
    const stripe = new Stripe(t.fake.secretKey, { host: t.fake.host, port: t.fake.port, protocol: "http" });
    const paid = async () => {
      const v = await newVisitor();
      const held = await hold(v, formId(), FULL);
      const intentId = intentIdOf(held.body.clientSecret);
      t.fake.confirm(intentId, { number: "4242424242424242" });
      expect((await returnFrom(v, intentId)).body.status).toBe("paid");
      await t.fake.idle();
      return { reference: held.body.registrationId as string, intentId };
    };
    const full = await paid();
    const left = await placesLeft(t.db, 2, new Date());
    await stripe.refunds.create({ payment_intent: full.intentId });
    await t.fake.idle();
    const refunded = await registrationRow(full.reference);
    expect(refunded).toMatchObject({ status: "refunded" });
    expect(Number(refunded.amount_refunded_cents)).toBe(29900);
    expect(await placesLeft(t.db, 2, new Date())).toBe(left + 1);
    expect(await t.db("email_outbox").where({ reference: `registration:${full.reference}`, kind: "registration_refunded" })).toHaveLength(1);
    const [roster] = await t.db("registration_roster").where({ reference: full.reference });
    expect(roster).toMatchObject({ status: "refunded" });
    expect(Number(roster.amount_refunded)).toBe(299);

    const partial = await paid();
    await stripe.refunds.create({ payment_intent: partial.intentId, amount: 5000 });
    await t.fake.idle();
    const kept = await registrationRow(partial.reference);
    expect(kept).toMatchObject({ status: "paid" });
    expect(Number(kept.amount_refunded_cents)).toBe(5000);
    expect(Number((await t.db("registration_roster").where({ reference: partial.reference }).first()).amount_refunded)).toBe(50);
    expect(await t.db("email_outbox").where({ reference: `registration:${partial.reference}`, kind: "registration_refunded" })).toHaveLength(0);
  });

  it("the sweep does not cancel a lapsed hold's payment while Stripe is still confirming it, or while its payer is in a 3-D Secure challenge", async () => {
    const v = await newVisitor();
    const held = await hold(v, formId(), FULL);
    const intentId = intentIdOf(held.body.clientSecret);
    const reference = held.body.registrationId as string;
    // The gateway reports the states as Stripe would (the fake reaches them too: test/unit/fakeStripe.behaviour.test.ts).
    let reported: string | undefined = "processing";
    const app = createApp({ ...t, gateway: { ...t.gateway, retrieveIntent: async (id) => ({ ...(await t.gateway.retrieveIntent(id)), ...(id === intentId && reported ? { status: reported } : {}) }) } });
    const sweep = () => (app.locals.sweepExpiredHolds as () => Promise<number>)();
    await t.db("registrations").where({ reference }).update({ reserved_until: new Date(Date.now() - 60_000) });
    await sweep();
    expect(t.fake.intents.get(intentId)!.status).not.toBe("canceled");
    expect(await t.db("registrations").where({ reference }).first()).toMatchObject({ status: "pending_payment" });
    reported = "requires_action";
    await sweep();
    expect(t.fake.intents.get(intentId)!.status).not.toBe("canceled");
    // Not even a challenge left long ago: its places are free anyway, and the payer can still finish it.
    await t.db("registrations").where({ reference }).update({ reserved_until: new Date(Date.now() - 24 * 60 * 60_000) });
    await sweep();
    expect(t.fake.intents.get(intentId)!.status).not.toBe("canceled");
    expect(await t.db("registrations").where({ reference }).first()).toMatchObject({ status: "pending_payment" });
    // Once it is neither, the intent is canceled and the hold expires.
    reported = undefined;
    await sweep();
    expect(t.fake.intents.get(intentId)!.status).toBe("canceled");
    expect(await t.db("registrations").where({ reference }).first()).toMatchObject({ status: "expired" });
  });

  it("Stripe failing leaves no pending payment row and gives the hold back", async () => {
    const failing = createApp({ ...t, gateway: { ...t.gateway, createIntent: () => Promise.reject(new Error("Stripe is down")) } });
    const v = await visitor(failing);
    const form = formId();
    const res = await v.post("/api/events/2/create-payment-intent").set("x-forwarded-for", "192.0.2.10").send({ option: "full", formSessionId: form, registrationData: { ...ATHLETE, registrationType: "full" } });
    expect(res.status).toBe(502);
    const r = await t.db("registrations").where({ form_session_id: form }).first();
    expect(r.status).toBe("canceled");
    const payments = await t.db("payments").where({ kind: "registration", reference: r.reference });
    expect(payments.map((p: { status: string }) => p.status)).toEqual(["canceled"]);
  });
});

function teamBody(form: string, size: number, eventId = 2) {
  const SIZES = ["Small", "Medium", "Large", "XL"];
  return {
    eventId,
    formSessionId: form,
    coachInfo: { firstName: "Dana", lastName: "Brooks", email: "coach.brooks@example.com", phone: "(205) 555-0142", teamName: "Steel City WC" },
    athletes: Array.from({ length: size }, (_, i) => ({
      firstName: `Kid${i + 1}`, lastName: "Brooks", age: 12, email: `kid${i + 1}@example.com`, shirtSize: SIZES[i % 4], parentName: `Parent ${i + 1}`, parentPhoneNumber: "205-555-0100",
    })),
  };
}

const teamHold = (v: V, form: string, size: number) => v.post("/api/team-registration").send(teamBody(form, size));
