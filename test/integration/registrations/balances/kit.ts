import type { Express } from "express";
import { expect } from "vitest";
import type { Db } from "../../../../src/db/knex.ts";
import type { FakeStripe } from "../../../../src/payments/offline/fakeStripeServer.ts";
import type { PaymentGateway } from "../../../../src/payments/gateway.ts";
import { createPaymentCore } from "../../../../src/payments/core.ts";
import type { Logger } from "../../../../src/logger.ts";
import type { Outbox } from "../../../../src/email/outbox.ts";
import type { Config } from "../../../../src/config.ts";
import { buildSite } from "../../../../src/shared/site.ts";
import { registerRegistrationWingPayments } from "../../../../src/registrations/payments.ts";
import { moveClock, now } from "../../../../src/clock.ts";
import { sentText } from "../../../support/mail.ts";
import { textOf, visitor } from "../../../support/http.ts";
import { ATHLETE, paidChangesKit, teamAthlete } from "../changes/helpers.ts";

/**
 * Deposit registrations for event 2 (the full camp $299, a $75 deposit per athlete; the balance due 14 days before
 * June 5) paid through the real routes with one of the offline fake's test cards, which the deposit saves for the
 * balance; the balance job as server.ts runs it; the app's clock moved to a date.
 */
export const CARDS = {
  succeeds: "4242 4242 4242 4242",
  authentication: "4000 0027 6000 3184",
  genericDecline: "4000 0000 0000 0341",
  insufficientFunds: "4000 0000 0000 9995",
} as const;

let seq = 0;
const nextIp = () => `198.18.${Math.floor(++seq / 250) % 250}.${(seq % 250) + 1}`;

export type JobCounts = { reminded: number; charged: number; released: number };

export function balancesKit(t: { app: Express; db: Db; fake: FakeStripe; mailDir: string; gateway: PaymentGateway; logger: Logger; outbox: Outbox; config: Config }) {
  /**
   * Pays the deposit of a hold with `card` (3-D Secure passed as the browser would, for 3184), then waits for the card
   * to be kept for the balance. A card that declines every charge (0341, 9995) cannot pay a deposit: the deposit is
   * paid with 4242 and the card is then saved as "Use another card" saves it (a SetupIntent).
   */
  async function payDeposit(v: Awaited<ReturnType<typeof visitor>>, reference: string, clientSecret: string, card: string, option?: string) {
    const intentId = clientSecret.split("_secret_")[0]!;
    const payable = card === CARDS.authentication ? card : CARDS.succeeds;
    const confirmed = t.fake.confirm(intentId, { number: payable });
    expect(confirmed.status, JSON.stringify(confirmed.body)).toBe(200);
    if (confirmed.body.status === "requires_action") expect(t.fake.challenge(intentId, "complete").body.status).toBe("succeeded");
    const done = await v.post("/api/events/2/stripe-payment-success").send({ paymentIntentId: intentId, ...(option ? { option } : {}) });
    expect(done.status, JSON.stringify(done.body)).toBe(200);
    await t.fake.idle();
    await expect.poll(async () => (await row(reference)).payment_method_id).toBeTruthy();
    if (payable !== card) await useAnotherCard(reference, card);
  }

  /**
   * The payment core of another app process on the same database and Stripe (one that died mid-job, or the manage
   * page's instance), with the registrations' payment kinds registered as the app registers them.
   */
  function otherInstanceCore(gateway: PaymentGateway = t.gateway) {
    const core = createPaymentCore({ db: t.db, gateway, logger: t.logger });
    registerRegistrationWingPayments({ db: t.db, paymentCore: core, outbox: t.outbox, logger: t.logger, site: buildSite("Ironside"), limits: t.config.registrationLimits, clock: now, publicUrl: "http://localhost" });
    return core;
  }

  /**
   * "Pay the balance now" on the manage page an e-mailed link opens (`path`: /my-registration/{token}), as a browser
   * pays it: the page's PaymentIntent (after an authentication_required, the one the job left) confirmed with the saved
   * card, 3-D Secure passed, then the card widget's return call. Answers the page's intent and the return's answer.
   */
  async function payBalanceOnManagePage(path: string) {
    const b = await paidChangesKit(t).browser(path);
    const page = await b.get(`${path}/balance`);
    expect(page.status).toBe(200);
    expect(textOf(page.text)).toContain("Pay Your Balance");
    const intentId = /"clientSecret":"([^"]+)"/.exec(page.text)![1]!.split("_secret_")[0]!;
    const reference = /"reference":"([^"]+)"/.exec(page.text)![1]!;
    const confirmed = t.fake.confirm(intentId, { paymentMethod: String((await row(reference)).payment_method_id) });
    if (confirmed.body.status === "requires_action") expect(t.fake.challenge(intentId, "complete").body.status).toBe("succeeded");
    const answer = await b.json(`${path}/balance/paid`, { paymentIntentId: intentId });
    return { intentId, status: answer.status, body: answer.body as { status: string } };
  }

  /** "Use another card": a SetupIntent on the registration's customer, confirmed with `card`, kept for the balance. */
  async function useAnotherCard(reference: string, card: string) {
    const core = createPaymentCore({ db: t.db, gateway: t.gateway, logger: t.logger });
    const customerId = String((await row(reference)).stripe_customer_id);
    const { setupIntentId } = await core.startCardUpdate({ customerId });
    expect(t.fake.confirmSetup(setupIntentId, { number: card }).body.status).toBe("succeeded");
    const saved = await core.finishCardUpdate(setupIntentId);
    await t.db("registrations").where({ reference }).update({ payment_method_id: saved.paymentMethodId, card_brand: saved.card.brand, card_last4: saved.card.last4, card_exp_month: saved.card.expMonth, card_exp_year: saved.card.expYear });
  }

  /** An individual's full camp on plan deposit, its $75 paid with `card` (saved for the $224 balance). */
  async function depositRegistration(card: string = CARDS.succeeds, email = ATHLETE.email) {
    const v = await visitor(t.app);
    const res = await v
      .post("/api/events/2/create-payment-intent")
      .set("x-forwarded-for", nextIp())
      .send({ option: "full", formSessionId: `balances-form-${++seq}-${Date.now()}`, registrationData: { ...ATHLETE, email, registrationType: "full", paymentPlan: "deposit" } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const reference = res.body.registrationId as string;
    await payDeposit(v, reference, res.body.clientSecret as string, card);
    const r = await row(reference);
    expect(r.status).toBe("deposit_paid");
    return { reference, id: Number(r.id), dueAt: toDate(r.balance_due_at) };
  }

  /** A team of `n` on plan deposit ($75 an athlete now), paid by its coach with `card`. */
  async function depositTeam(n: number, card: string = CARDS.succeeds, tag = `t${++seq}`) {
    const v = await visitor(t.app);
    const res = await v
      .post("/api/team-registration")
      .set("x-forwarded-for", nextIp())
      .send({ eventId: 2, paymentPlan: "deposit", coachInfo: { firstName: "Dana", lastName: "Brooks", email: `coach.${tag}@example.com`, phone: "(205) 555-0142", teamName: `Steel City ${tag}` }, athletes: Array.from({ length: n }, (_, i) => teamAthlete(i + 1, tag)), formSessionId: `balances-team-${++seq}-${Date.now()}` });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const reference = res.body.registrationId as string;
    await payDeposit(v, reference, res.body.clientSecret as string, card, "team");
    const r = await row(reference);
    expect(r.status).toBe("deposit_paid");
    return { reference, id: Number(r.id), dueAt: toDate(r.balance_due_at) };
  }

  const row = async (reference: string) => (await t.db("registrations").where({ reference }).first()) as Record<string, unknown>;
  const charges = (registrationId: number) => t.db("balance_charges").where({ registration_id: registrationId }).orderBy("attempt");
  const balancePayments = (reference: string) => t.db("payments").where({ kind: "registration_balance", reference }).orderBy("id");
  const mails = (reference: string, kind: string) => t.db("email_outbox").where({ reference: `registration:${reference}`, kind }).orderBy("id");
  const mailText = (mail: { text_body: string }) => sentText(t.mailDir, mail);
  /** The intents the fake made for the balance of `reference`: one charge each when succeeded. */
  const balanceIntents = (reference: string) => [...t.fake.intents.values()].filter((i) => i.metadata.kind === "registration_balance" && i.metadata.reference === reference);
  const runJob = (app: Express = t.app) => (app.locals.runBalanceJob as () => Promise<JobCounts>)();

  return { depositRegistration, depositTeam, useAnotherCard, otherInstanceCore, payBalanceOnManagePage, row, charges, balancePayments, mails, mailText, balanceIntents, runJob };
}

/** The app's clock (and the fake Stripe's) moved forward to `at` (never back). */
export function moveClockTo(at: Date): void {
  const ms = at.getTime() - now().getTime();
  if (ms > 0) moveClock(ms);
}

export const DAY_MS = 86_400_000;

export function toDate(value: unknown): Date {
  if (value instanceof Date) return value;
  if (typeof value === "number" || /^\d+$/.test(String(value))) return new Date(Number(value));
  return new Date(String(value));
}
