import type { Express } from "express";
import request from "supertest";
import { expect } from "vitest";
import type { Db } from "../../../../src/db/knex.ts";
import type { FakeStripe } from "../../../../src/payments/offline/fakeStripeServer.ts";
import type { PayingTestApp } from "../../../support/app.ts";
import { csrfFrom, visitor } from "../../../support/http.ts";
import { sentText } from "../../../support/mail.ts";
import { payingAppForFile, webhooksDelivered, type FileAppOptions } from "../app.ts";
export { until } from "../../../support/until.ts";

/**
 * A changes test file's app (../app.ts): each test starts with Stripe's webhooks delivered and event 2 open to
 * changes (no freeze date) with its 200 places.
 */
export function changesApp(options: FileAppOptions = {}): PayingTestApp {
  return payingAppForFile({
    ...options,
    async eachTest(t) {
      await webhooksDelivered(t);
      await t.db("events").where({ id: 2 }).update({ changes_freeze_at: null, capacity: 200 });
      await options.eachTest?.(t);
    },
  });
}

/**
 * Paid registrations for event 2 (full camp $299, 2 days $238, 1 day $119, team $199 an athlete) and a browser on
 * their manage links: what the tests of the changes that cost money (an upgrade, added athletes) start from.
 */
export const ATHLETE = {
  firstName: "Maya", lastName: "Ortiz", email: "maya.parent@example.com", phone: "(702) 555-0100", grade: "9th", gender: "Female",
  schoolName: "Desert High", clubName: "Vegas WC", tShirtSize: "Small", emergencyContactName: "Ana Ortiz", emergencyContactPhone: "702-555-0199", adult: "on", specialRequirements: "", agrees: "on",
};
const SIZES = ["Small", "Medium", "Large", "XL", "XXL", "3XL", "4XL"];
export const teamAthlete = (i: number, tag = "") => ({ firstName: `Kid${i}${tag}`, lastName: "Brooks", age: 12, email: `kid${i}${tag}@example.com`, shirtSize: SIZES[i % 7]!, parentName: `Parent ${i}`, parentPhoneNumber: "205-555-0100" });
/** One team-form row as a browser posts it (strings). */
export const athleteFields = (i: number, a: ReturnType<typeof teamAthlete>) => Object.fromEntries(Object.entries(a).map(([k, v]) => [`athletes[${i}][${k}]`, String(v)]));

let seq = 0;
let address = 10;
const nextIp = () => {
  address += 1;
  return `198.19.${Math.floor(address / 250) % 250}.${address % 250}`;
};

export function paidChangesKit(t: { app: Express; db: Db; fake: FakeStripe; mailDir: string }) {
  /** A paid 2-day registration (June 5 and 7), or another package; its manage link from the confirmation e-mail. */
  async function paidRegistration(registrationType = "2day", days: Record<string, boolean> = { day1: true, day3: true }) {
    const v = await visitor(t.app);
    const res = await v
      .post("/api/events/2/create-payment-intent")
      .set("x-forwarded-for", nextIp())
      .send({ option: registrationType, formSessionId: `changes-form-${String(++seq).padStart(4, "0")}-${Date.now()}`, registrationData: { ...ATHLETE, registrationType, ...days } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const reference = res.body.registrationId as string;
    const intentId = (res.body.clientSecret as string).split("_secret_")[0]!;
    expect(t.fake.confirm(intentId, { number: "4242 4242 4242 4242" }).status).toBe(200);
    expect((await v.post("/api/events/2/stripe-payment-success").send({ paymentIntentId: intentId })).body.status).toBe("paid");
    const email = await t.db("email_outbox").where({ reference: `registration:${reference}`, kind: "registration_confirmation" }).first();
    const token = /\/my-registration\/([A-Za-z0-9_-]{43})/.exec(sentText(t.mailDir, email))![1]!;
    return { reference, path: `/my-registration/${token}` };
  }

  /** A paid team of `n` athletes ($199 each); the coach's manage link from the roster e-mail. */
  async function paidTeam(n: number, tag = "", coach = { email: `coach${tag}@example.com`, teamName: `Steel City WC ${tag}` }) {
    const v = await visitor(t.app);
    const res = await v
      .post("/api/team-registration")
      .set("x-forwarded-for", nextIp())
      .send({ eventId: 2, coachInfo: { firstName: "Dana", lastName: "Brooks", email: coach.email, phone: "(205) 555-0142", teamName: coach.teamName }, athletes: Array.from({ length: n }, (_, i) => teamAthlete(i + 1, tag)), formSessionId: `changes-team-${++seq}-${Date.now()}` });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const reference = res.body.registrationId as string;
    const intentId = (res.body.clientSecret as string).split("_secret_")[0]!;
    expect(t.fake.confirm(intentId, { number: "4242 4242 4242 4242" }).status).toBe(200);
    expect((await v.post("/api/events/2/stripe-payment-success").send({ paymentIntentId: intentId, option: "team" })).body.status).toBe("paid");
    const email = await t.db("email_outbox").where({ reference: `registration:${reference}`, kind: "team_registration_confirmation" }).first();
    const token = /\/my-registration\/([A-Za-z0-9_-]{43})/.exec(sentText(t.mailDir, email))![1]!;
    return { reference, path: `/my-registration/${token}` };
  }

  /** A browser of its own (own cookies, address and CSRF token) on a manage page. */
  async function browser(path: string, app: Express = t.app) {
    const agent = request.agent(app);
    const ip = nextIp();
    const page = await agent.get(path).set("x-forwarded-for", ip);
    const token = csrfFrom(page.text);
    return {
      token,
      version: /name="version" value="(\d+)"/.exec(page.text)?.[1] ?? "",
      get: (url: string) => agent.get(url).set("x-forwarded-for", ip),
      post: (url: string, fields: Record<string, string>) => agent.post(url).set("x-forwarded-for", ip).type("form").send({ ...fields, _csrf: token }),
      json: (url: string, body: Record<string, unknown>) => agent.post(url).set("x-forwarded-for", ip).set("x-csrf-token", token).send(body),
    };
  }

  /** The change page's PaymentIntent, from the card widget's props. */
  const intentOf = (html: string) => {
    const secret = /"clientSecret":"([^"]+)"/.exec(html)?.[1];
    return secret ? secret.split("_secret_")[0]! : undefined;
  };

  const row = (reference: string) => t.db("registrations").where({ reference }).first();

  /**
   * What the registration's payments hold now (charged, less every refund asked for, over its own payment and its
   * changes'), which must be what it registers.
   */
  async function netPaid(reference: string): Promise<number> {
    const r = await row(reference);
    const changeIds = (await t.db("registration_changes").where({ registration_id: r.id }).pluck("id")).map(String);
    const payments = await t.db("payments").where((w) => {
      w.where({ kind: "registration", reference }).orWhere((c) => { c.where("kind", "registration_change").whereIn("reference", changeIds.length ? changeIds : ["-"]); });
    });
    let net = 0;
    for (const p of payments) {
      if (!["paid", "refund_pending", "refunded", "needs_review"].includes(String(p.status))) continue;
      const refunds = await t.db("payment_refunds").where({ payment_id: p.id }).whereIn("status", ["requested", "pending", "succeeded"]).sum({ s: "amount_cents" }).first();
      net += Number(p.amount_cents) - Number(refunds?.s ?? 0);
    }
    return net;
  }

  return { paidRegistration, paidTeam, browser, intentOf, row, netPaid };
}

