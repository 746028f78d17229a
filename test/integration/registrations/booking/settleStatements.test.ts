import { describe, expect, it } from "vitest";
import { bookingApp } from "./helpers.ts";
import { backend } from "../../../support/app.ts";
import { visitor } from "../../../support/http.ts";
import { secretTokenHash } from "../../../../src/http/secretLinks.ts";
import { someoneWaits } from "../../../support/lockWaits.ts";

/**
 * What a paid family's return after paying (POST /api/events/:id/stripe-payment-success) and Stripe's webhook send
 * to the database, through the real routes (knex's statements, BEGIN and COMMIT counted): the return settles the
 * payment, the webhook that comes after it finds it settled.
 */
const t = bookingApp({ webhooks: "never" });

const ATHLETE = {
  firstName: "Maya", lastName: "Okafor", email: "maya.okafor@example.com", phone: "(205) 555-0100", grade: "9th", gender: "Female",
  schoolName: "Central High", emergencyContactName: "Ada Okafor", emergencyContactPhone: "205-555-0199", adult: "on", agrees: "on",
};
/**
 * Measured on this design (docs/performance.md: Opening day, the return and the landing in fewer statements). On
 * MySQL the registration is read with its athletes, days and code use in one statement, the return reads its
 * payment with the registration's state in one, its transaction begins with the payment's lock in one
 * (begin_payment_lock), and its manage links go with its COMMIT (commit_then); SQLite reads and writes them apart.
 */
const MOST_ON_RETURN = backend === "mysql" ? 7 : 12;
const MOST_ON_WEBHOOK = 3;
/** A team's return: the individual's, plus its invite's lock and the families' claims (read with the event's deadline, one insert), whatever its size (was 47 for 8 athletes). */
const MOST_ON_TEAM_RETURN = backend === "mysql" ? 10 : 15;
const COACH = { firstName: "Dana", lastName: "Brooks", email: "coach.brooks@example.com", phone: "(205) 555-0142", teamName: "Steel City WC" };
const teamOf = (n: number) => Array.from({ length: n }, (_, i) => ({ firstName: `Kid${i}`, lastName: "Brooks", age: 12 + (i % 6), email: `kid${i}@example.com`, shirtSize: "Medium", parentName: `Parent ${i}`, parentPhoneNumber: "205-555-0100" }));

/**
 * The statements `work` sends, but the outbox's: woken after COMMIT, it sends the confirmation the payment queued,
 * on its own time (it reads and writes only `email_outbox`; the queued e-mail's insert is the payment's). Nor the
 * kept events' version check (`content_versions`): without a live Redis subscription an instance reads it at most
 * every 250 ms, shared by every request, so whether a request pays for it depends on the clock, not on the settlement.
 */
async function counted<T>(work: () => Promise<T>): Promise<{ out: T; sql: string[] }> {
  const sql: string[] = [];
  const listener = (q: { sql: string }) => {
    const s = q.sql.trim().toLowerCase();
    if (s.includes("content_versions")) return;
    if (!s.includes("email_outbox") || s.startsWith("insert")) sql.push(s);
  };
  t.db.on("query", listener);
  try {
    return { out: await work(), sql };
  } finally {
    t.db.off("query", listener);
  }
}

describe("a paid family's return and webhook", () => {
  it("settle the payment within the statements measured", async () => {
    const v = await visitor(t.app);
    const held = await v.post("/api/events/2/create-payment-intent").set("x-forwarded-for", "203.0.113.78").send({ option: "1day", formSessionId: `settle-${Date.now()}`, registrationData: { ...ATHLETE, registrationType: "1day", day1: true } });
    expect(held.status).toBe(200);
    const intentId = (held.body.clientSecret as string).split("_secret_")[0]!;
    expect(t.fake.confirm(intentId, { number: "4242 4242 4242 4242" }).status).toBe(200);
    const ret = await counted(() => v.post("/api/events/2/stripe-payment-success").set("x-forwarded-for", "203.0.113.78").send({ paymentIntentId: intentId }));
    expect(ret.out.body).toMatchObject({ status: "paid" });
    const succeeded = t.fake.events.filter((e) => e.type === "payment_intent.succeeded" && JSON.stringify(e).includes(intentId));
    expect(succeeded).toHaveLength(1);
    const hook = await counted(() => t.fake.deliver(succeeded[0]!));
    expect(hook.out).toBe(200);
    expect(await t.db("registrations").where({ reference: held.body.registrationId }).first()).toMatchObject({ status: "paid" });
    expect(await t.db("payments").where({ reference: held.body.registrationId }).first()).toMatchObject({ status: "paid" });
    expect(ret.sql.length, ret.sql.join("\n")).toBeLessThanOrEqual(MOST_ON_RETURN);
    // On MySQL the settlement's transaction begins with the payment's lock: no BEGIN of knex's.
    if (backend === "mysql") {
      expect(ret.sql.filter((s) => /^(begin|start transaction)/.test(s))).toEqual([]);
      expect(ret.sql.filter((s) => s.startsWith("call begin_payment_lock"))).toEqual(["call begin_payment_lock(?)"]);
      // The manage link goes with the COMMIT: neither a statement of its own nor knex's COMMIT.
      expect(ret.sql.filter((s) => /^(commit|insert into .registration_manage_links.)/.test(s))).toEqual([]);
      expect(ret.sql.filter((s) => s.startsWith("call commit_then"))).toEqual(["call commit_then(?)"]);
    }
    expect(hook.sql.length, hook.sql.join("\n")).toBeLessThanOrEqual(MOST_ON_WEBHOOK);
    // The page the family lands on shows the page link the return wrote with the e-mail's, and writes none itself.
    const landing = await counted(() => v.get(`/event-registration/2?paymentSuccess=true&paymentIntentId=${intentId}`).set("x-forwarded-for", "203.0.113.78"));
    expect(landing.out.status).toBe(200);
    expect(landing.sql.filter((s) => s.startsWith("insert")), landing.sql.join("\n")).toEqual([]);
    const token = /\/my-registration\/([A-Za-z0-9_-]+)/.exec(landing.out.text)?.[1];
    const registration = await t.db("registrations").where({ reference: held.body.registrationId }).first();
    const pageLinks = await t.db("registration_manage_links").where({ registration_id: registration.id, sent_by: "page" });
    expect(pageLinks.map((l: { token_hash: string }) => l.token_hash)).toEqual([secretTokenHash(token!)]);
  });

  it.skipIf(backend !== "mysql")("the return's transaction waits for the payment's lock, then decides on the row as committed", async () => {
    const v = await visitor(t.app);
    const held = await v.post("/api/events/2/create-payment-intent").set("x-forwarded-for", "203.0.113.80").send({ option: "1day", formSessionId: `settle-locked-${Date.now()}`, registrationData: { ...ATHLETE, registrationType: "1day", day1: true } });
    expect(held.status).toBe(200);
    const intentId = (held.body.clientSecret as string).split("_secret_")[0]!;
    expect(t.fake.confirm(intentId, { number: "4242 4242 4242 4242" }).status).toBe(200);
    const payment = await t.db("payments").where({ provider_payment_id: intentId }).first();
    // Another settlement holds the payment's lock and marks it paid while the return waits for that lock.
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const other = t.db.transaction(async (trx) => {
      await trx("payments").where({ id: payment.id }).forUpdate().first();
      await released;
      await trx("payments").where({ id: payment.id }).update({ status: "paid", paid_via: "webhook", paid_at: new Date() });
    });
    const ret = v.post("/api/events/2/stripe-payment-success").set("x-forwarded-for", "203.0.113.80").send({ paymentIntentId: intentId }).then((res) => res);
    await someoneWaits(t.db);
    release();
    await other;
    expect((await ret).status).toBe(200);
    // Decided on the row as the other left it: paid already, so the return wrote nothing and queued no e-mail.
    expect(await t.db("payments").where({ id: payment.id }).first()).toMatchObject({ status: "paid", paid_via: "webhook" });
    expect(await t.db("email_outbox").where({ reference: `registration:${held.body.registrationId}` })).toHaveLength(0);
    expect(await t.db("registrations").where({ reference: held.body.registrationId }).first()).toMatchObject({ status: "pending_payment" });
  });

  it("settle a team of 8 within the statements measured: one insert for the claims, one for the links, one for the e-mails", async () => {
    const v = await visitor(t.app);
    const held = await v.post("/api/team-registration").set("x-forwarded-for", "203.0.113.79").send({ eventId: 2, coachInfo: COACH, athletes: teamOf(8), pricePerAthlete: 199, totalAmount: 1592, discountedAmount: 1592, discountCode: null, formSessionId: `settle-team-${Date.now()}` });
    expect(held.status).toBe(200);
    const reference = held.body.registrationId as string;
    const intentId = (held.body.clientSecret as string).split("_secret_")[0]!;
    expect(t.fake.confirm(intentId, { number: "4242 4242 4242 4242" }).status).toBe(200);
    const ret = await counted(() => v.post("/api/events/2/stripe-payment-success").set("x-forwarded-for", "203.0.113.79").send({ paymentIntentId: intentId, option: "team" }));
    expect(ret.out.body).toMatchObject({ status: "paid" });
    const registration = await t.db("registrations").where({ reference }).first();
    expect(registration).toMatchObject({ status: "paid" });
    // The coach's roster e-mail first, then each family's, in roster order; each with its own link.
    const emails = await t.db("email_outbox").where({ reference: `registration:${reference}` }).orderBy("id");
    expect(emails.map((e: { kind: string }) => e.kind)).toEqual(["team_registration_confirmation", ...Array<string>(8).fill("registration_family_link")]);
    expect(emails.slice(1).map((e: { to_address: string }) => e.to_address)).toEqual(teamOf(8).map((a) => a.email));
    const links = await t.db("registration_manage_links").where({ registration_id: registration.id }).orderBy("id");
    // The coach's page link, written by the return with the others (the coach's session keeps it for the page).
    expect(links.map((l: { sent_by: string; athlete_position: number | null }) => [l.sent_by, l.athlete_position === null ? null : Number(l.athlete_position)])).toEqual([["confirmation", null], ...[1, 2, 3, 4, 5, 6, 7, 8].map((p) => ["family", p]), ["page", null]]);
    expect(await t.db("registration_reminders").where({ registration_id: registration.id }).count({ n: "*" }).first()).toMatchObject({ n: 8 });
    expect(ret.sql.length, ret.sql.join("\n")).toBeLessThanOrEqual(MOST_ON_TEAM_RETURN);
  });
});
