import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import express from "express";
import { pino } from "pino";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createTestApp, type TestApp } from "../support/app.ts";
import { CardUpdateNotFinishedError, createPaymentCore, type ChargeSavedCardInput, type PaymentCore } from "../../src/payments/core.ts";
import { stripeWebhookRoutes } from "../../src/payments/webhook.ts";
import type { FakeStripe } from "../../src/payments/offline/fakeStripeServer.ts";
import { moveClock, now, resetClock } from "../../src/clock.ts";

/**
 * Saved cards through the payment core and the offline fake, as the deposit and balance features use them: a
 * payment that saves its card on a customer, later charges of it off session (with the app's and the fake's clock
 * moved forward to the due date), Stripe's test cards for authentication and declines, and a new card saved with a
 * SetupIntent. A counting handler stands for each kind; each test makes its own references.
 */
let t: TestApp;
let fake: FakeStripe;
let server: Server;
let core: PaymentCore;

const DEPOSIT = "test_deposit";
const BALANCE = "test_balance";
const DAY = 86_400_000;
const paidCount = new Map<string, number>();

beforeAll(async () => {
  t = await createTestApp();
  fake = t.gateway.offline!;
  const logger = pino({ level: "silent" });
  core = createPaymentCore({ db: t.db, gateway: t.gateway, logger });
  for (const kind of [DEPOSIT, BALANCE]) {
    core.register(kind, {
      onPaid(_trx, payment) {
        const key = `${payment.kind}:${payment.reference}`;
        paidCount.set(key, (paidCount.get(key) ?? 0) + 1);
        return Promise.resolve("accepted");
      },
    });
  }
  const app = express();
  app.use(stripeWebhookRoutes({ db: t.db, paymentCore: core, logger }));
  server = app.listen(0, "127.0.0.1");
  await new Promise((r) => server.once("listening", r));
  fake.setWebhookUrl(`http://127.0.0.1:${(server.address() as AddressInfo).port}/api/stripe/webhook`);
});
afterAll(async () => {
  resetClock();
  await fake?.idle();
  await new Promise((r) => server?.close(r));
  await t?.close();
});
beforeEach(() => {
  fake.autoDeliver = true;
});
afterEach(async () => {
  resetClock();
  await fake.idle();
});

let counter = 0;
const newReference = () => `S${Date.now().toString(36)}${(counter++).toString(36)}`.toUpperCase();
const intentIdOf = (clientSecret: string) => clientSecret.split("_secret_")[0]!;
const rows = (kind: string, reference: string) => t.db("payments").where({ kind, reference }).orderBy("id");
const intentsOf = (reference: string) => [...fake.intents.values()].filter((pi) => pi.metadata.reference === reference);

/** A customer and a $75 deposit paid on session with `card` (3-D Secure completed when the card asks): the saved card's id. */
async function depositWith(reference: string, card: string): Promise<{ customerId: string; paymentMethodId: string }> {
  const { customerId } = await core.ensureCustomer({ reference, email: "pat@example.com", name: "Pat Doe" });
  const { clientSecret } = await core.ensureIntent({ kind: DEPOSIT, reference, amountCents: 7500, description: `Deposit ${reference}`, saveCard: { customerId } });
  const intentId = intentIdOf(clientSecret);
  const confirmed = fake.confirm(intentId, { number: card });
  expect(confirmed.status).toBe(200);
  if (confirmed.body.status === "requires_action") expect(fake.challenge(intentId, "complete").body.status).toBe("succeeded");
  const settled = await core.settle(intentId, "return");
  expect(settled.status).toBe("paid");
  const intent = await t.gateway.retrieveIntent(intentId);
  expect(intent).toMatchObject({ status: "succeeded", customerId, setupFutureUsage: "off_session" });
  const saved = await core.cardSavedBy(settled.payment);
  expect(saved).toEqual({ customerId, paymentMethodId: intent.paymentMethodId, card: { brand: "visa", last4: card.slice(-4), expMonth: 12, expYear: 2034 } });
  return { customerId, paymentMethodId: saved!.paymentMethodId };
}

/** A customer whose card was saved with a SetupIntent (no payment), as "Use another card" does. */
async function cardSavedWith(reference: string, card: string, expiry: { expMonth?: number; expYear?: number } = {}) {
  const { customerId } = await core.ensureCustomer({ reference, email: "pat@example.com", name: "Pat Doe" });
  return { customerId, ...(await newCard(customerId, card, expiry)) };
}

async function newCard(customerId: string, card: string, expiry: { expMonth?: number; expYear?: number } = {}) {
  const { setupIntentId, clientSecret } = await core.startCardUpdate({ customerId });
  expect(clientSecret).toMatch(/^seti_.+_secret_/);
  const confirmed = fake.confirmSetup(setupIntentId, { number: card, ...expiry });
  expect(confirmed.status).toBe(200);
  if (confirmed.body.status === "requires_action") expect(fake.challenge(setupIntentId, "complete").body.status).toBe("succeeded");
  const finished = await core.finishCardUpdate(setupIntentId);
  expect(finished.customerId).toBe(customerId);
  return { paymentMethodId: finished.paymentMethodId, card: finished.card };
}

const balance = (reference: string, saved: { customerId: string; paymentMethodId: string }, key: string, amountCents = 22400): ChargeSavedCardInput => ({
  kind: BALANCE,
  reference,
  group: reference,
  customerId: saved.customerId,
  paymentMethodId: saved.paymentMethodId,
  amountCents,
  description: `Balance ${reference}`,
  idempotencyKey: key,
  metadata: { attempt: key },
});

describe("a deposit saves the card; the balance is charged off session on its date", () => {
  it("4242: the deposit's card is attached to the customer; 14 days later the balance is charged once, by the return and the webhook together", async () => {
    const reference = newReference();
    const saved = await depositWith(reference, "4242424242424242");
    expect(fake.paymentMethods.get(saved.paymentMethodId)?.customer).toBe(saved.customerId);
    expect(await core.savedCard(saved.paymentMethodId)).toEqual({ brand: "visa", last4: "4242", expMonth: 12, expYear: 2034 });

    moveClock(14 * DAY);
    const charged = await core.chargeSavedCard(balance(reference, saved, `${reference}-attempt-1`));
    expect(charged.outcome).toBe("succeeded");
    await fake.idle(); // the webhook of the same PaymentIntent arrives too
    const [row] = await rows(BALANCE, reference);
    expect(row).toMatchObject({ status: "paid", paid_via: "off_session", amount_cents: 22400 });
    expect(paidCount.get(`${BALANCE}:${reference}`)).toBe(1);
    const [pi] = intentsOf(reference).filter((i) => i.metadata.kind === BALANCE);
    expect(pi).toMatchObject({ status: "succeeded", customer: saved.customerId, payment_method: saved.paymentMethodId, amount: 22400 });
    // The fake's clock moved with the app's: the charge is dated 14 days ahead of the real time.
    expect(pi!.created * 1000).toBeGreaterThanOrEqual(now().getTime() - 60_000);
    expect(pi!.created * 1000).toBeGreaterThan(Date.now() + 13 * DAY);
  });

  it("the same idempotency key twice (and at once) charges once; the key is on the payment row", async () => {
    const reference = newReference();
    const saved = await cardSavedWith(reference, "4242424242424242");
    const key = `${reference}-attempt-1`;
    const outcomes = await Promise.all([core.chargeSavedCard(balance(reference, saved, key)), core.chargeSavedCard(balance(reference, saved, key))]);
    const again = await core.chargeSavedCard(balance(reference, saved, key));
    expect([...outcomes, again].map((o) => o.outcome)).toEqual(["succeeded", "succeeded", "succeeded"]);
    expect(intentsOf(reference).filter((pi) => pi.status === "succeeded")).toHaveLength(1);
    const balanceRows = await rows(BALANCE, reference);
    expect(balanceRows).toHaveLength(1);
    expect(balanceRows[0]).toMatchObject({ status: "paid", idempotency_key: key });
    await fake.idle();
    expect(paidCount.get(`${BALANCE}:${reference}`)).toBe(1);
  });

  it("4000 0027 6000 3184: the deposit passes 3-D Secure; the balance off session is authentication_required, then paid on session", async () => {
    const reference = newReference();
    const saved = await depositWith(reference, "4000002760003184");
    moveClock(14 * DAY);
    const charged = await core.chargeSavedCard(balance(reference, saved, `${reference}-attempt-1`));
    expect(charged.outcome).toBe("authentication_required");
    if (charged.outcome !== "authentication_required") return;
    expect(charged.payment).toMatchObject({ kind: BALANCE, status: "failed" });
    const intentId = charged.payment.providerPaymentId!;
    expect(fake.intents.get(intentId)).toMatchObject({ status: "requires_payment_method", last_payment_error: { code: "authentication_required", decline_code: "authentication_required" } });
    expect(paidCount.get(`${BALANCE}:${reference}`)).toBeUndefined();

    // The manage page: the same PaymentIntent, paid on session with the saved card after the challenge.
    const { clientSecret } = await core.ensureIntent({ kind: BALANCE, reference, amountCents: 22400, description: `Balance ${reference}` });
    expect(intentIdOf(clientSecret)).toBe(intentId);
    expect(fake.confirm(intentId, { paymentMethod: saved.paymentMethodId }).body.status).toBe("requires_action");
    expect(fake.challenge(intentId, "complete").body.status).toBe("succeeded");
    expect((await core.settle(intentId, "return")).status).toBe("paid");
    await fake.idle();
    expect(paidCount.get(`${BALANCE}:${reference}`)).toBe(1);
    expect(await rows(BALANCE, reference)).toHaveLength(1);
  });

  it("4000 0000 0000 9995: declined insufficient_funds (soft); a retry with a new key tries the same PaymentIntent again", async () => {
    const reference = newReference();
    const saved = await cardSavedWith(reference, "4000000000009995");
    const first = await core.chargeSavedCard(balance(reference, saved, `${reference}-attempt-1`));
    expect(first).toMatchObject({ outcome: "declined", code: "card_declined", declineCode: "insufficient_funds", hard: false, message: "Your card has insufficient funds." });
    // The same attempt repeated (a job that died after Stripe answered) tells the same decline without trying the card again.
    const repeated = await core.chargeSavedCard(balance(reference, saved, `${reference}-attempt-1`));
    expect(repeated).toMatchObject({ outcome: "declined", declineCode: "insufficient_funds" });
    const failures = () => fake.events.filter((e) => e.type === "payment_intent.payment_failed" && (e.data.object as { metadata: Record<string, string> }).metadata.reference === reference).length;
    expect(failures()).toBe(1);
    moveClock(1 * DAY);
    const second = await core.chargeSavedCard(balance(reference, saved, `${reference}-attempt-2`));
    expect(second).toMatchObject({ outcome: "declined", declineCode: "insufficient_funds", hard: false });
    expect(failures()).toBe(2);
    expect(intentsOf(reference)).toHaveLength(1);
    expect(await rows(BALANCE, reference)).toEqual([expect.objectContaining({ status: "failed", idempotency_key: `confirm:${reference}-attempt-2` })]);
    expect(paidCount.get(`${BALANCE}:${reference}`)).toBeUndefined();
  });

  it("4000 0000 0000 0341: the card is saved, then every charge is declined generic_decline (soft)", async () => {
    const reference = newReference();
    const saved = await cardSavedWith(reference, "4000000000000341");
    expect(saved.card).toMatchObject({ brand: "visa", last4: "0341" });
    expect(fake.paymentMethods.get(saved.paymentMethodId)?.customer).toBe(saved.customerId);
    const charged = await core.chargeSavedCard(balance(reference, saved, `${reference}-attempt-1`));
    expect(charged).toMatchObject({ outcome: "declined", code: "card_declined", declineCode: "generic_decline", hard: false });
  });

  it("a card that expires before the due date is declined expired_card (hard) once the clock passes its expiry", async () => {
    const reference = newReference();
    const year = now().getUTCFullYear();
    const saved = await cardSavedWith(reference, "4242424242424242", { expMonth: 12, expYear: year });
    moveClock(400 * DAY);
    const charged = await core.chargeSavedCard(balance(reference, saved, `${reference}-attempt-1`));
    expect(charged).toMatchObject({ outcome: "declined", code: "expired_card", declineCode: null, hard: true });
  });
});

describe("an attempt that died after Stripe answered", () => {
  it("is found again by the next attempt, after Stripe forgot its key: no second charge", async () => {
    let loseAnswer = true;
    const flaky = createPaymentCore({
      db: t.db,
      gateway: {
        ...t.gateway,
        async chargeOffSession(input) {
          const answer = await t.gateway.chargeOffSession(input);
          if (loseAnswer) {
            loseAnswer = false;
            throw new Error("socket hang up"); // Stripe charged; this process never heard
          }
          return answer;
        },
      },
      logger: pino({ level: "silent" }),
    });
    flaky.register(BALANCE, { onPaid: () => Promise.resolve("accepted") });
    const reference = newReference();
    const saved = await cardSavedWith(reference, "4242424242424242");
    await expect(flaky.chargeSavedCard(balance(reference, saved, `${reference}-attempt-1`))).rejects.toThrow(/socket hang up/);
    expect(await rows(BALANCE, reference)).toEqual([expect.objectContaining({ status: "pending", provider_payment_id: null, idempotency_key: `${reference}-attempt-1` })]);
    const ttl = fake.idempotencyTtlMs;
    fake.idempotencyTtlMs = 0; // as if the retry came days later
    try {
      moveClock(1 * DAY);
      const retried = await flaky.chargeSavedCard(balance(reference, saved, `${reference}-attempt-2`));
      expect(retried.outcome).toBe("succeeded");
    } finally {
      fake.idempotencyTtlMs = ttl;
    }
    expect(intentsOf(reference)).toHaveLength(1);
    expect(await rows(BALANCE, reference)).toEqual([expect.objectContaining({ status: "paid", provider_payment_id: intentsOf(reference)[0]!.id })]);
  });
});

describe("Use another card: a SetupIntent", () => {
  it("after a decline, the new card saved with a SetupIntent is the one the next charge uses", async () => {
    const reference = newReference();
    const saved = await cardSavedWith(reference, "4000000000009995");
    expect((await core.chargeSavedCard(balance(reference, saved, `${reference}-attempt-1`))).outcome).toBe("declined");
    const replaced = await newCard(saved.customerId, "5555555555554444");
    expect(replaced.card).toEqual({ brand: "mastercard", last4: "4444", expMonth: 12, expYear: 2034 });
    const charged = await core.chargeSavedCard(balance(reference, { customerId: saved.customerId, paymentMethodId: replaced.paymentMethodId }, `${reference}-attempt-2`));
    expect(charged.outcome).toBe("succeeded");
    const [pi] = intentsOf(reference);
    expect(pi).toMatchObject({ status: "succeeded", payment_method: replaced.paymentMethodId });
    expect(await rows(BALANCE, reference)).toEqual([expect.objectContaining({ status: "paid" })]);
  });

  it("4000 0027 6000 3184 is saved after its 3-D Secure challenge; a failed challenge or a declining card saves nothing", async () => {
    const reference = newReference();
    const { customerId } = await core.ensureCustomer({ reference, email: "pat@example.com", name: "Pat Doe" });
    const secure = await core.startCardUpdate({ customerId });
    expect(fake.confirmSetup(secure.setupIntentId, { number: "4000002760003184" }).body.status).toBe("requires_action");
    await expect(core.finishCardUpdate(secure.setupIntentId)).rejects.toBeInstanceOf(CardUpdateNotFinishedError);
    expect(fake.challenge(secure.setupIntentId, "fail").body.status).toBe("requires_payment_method");
    await expect(core.finishCardUpdate(secure.setupIntentId)).rejects.toThrow(/authentication failed/);
    expect(fake.confirmSetup(secure.setupIntentId, { number: "4000002760003184" }).body.status).toBe("requires_action");
    expect(fake.challenge(secure.setupIntentId, "complete").body.status).toBe("succeeded");
    expect((await core.finishCardUpdate(secure.setupIntentId)).card.last4).toBe("3184");

    const declining = await core.startCardUpdate({ customerId });
    const refused = fake.confirmSetup(declining.setupIntentId, { number: "4000000000000002" });
    expect(refused.status).toBe(402);
    expect(refused.body.error).toMatchObject({ code: "card_declined", decline_code: "generic_decline" });
    await expect(core.finishCardUpdate(declining.setupIntentId)).rejects.toBeInstanceOf(CardUpdateNotFinishedError);
  });
});

describe("ensureIntent's saveCard", () => {
  it("the same PaymentIntent saves the card or not as the choice changes (deposit, then pay in full)", async () => {
    const reference = newReference();
    const { customerId } = await core.ensureCustomer({ reference, email: "pat@example.com", name: "Pat Doe" });
    const again = await core.ensureCustomer({ reference, email: "pat@example.com", name: "Pat Doe" });
    expect(again.customerId).toBe(customerId);
    const first = await core.ensureIntent({ kind: DEPOSIT, reference, amountCents: 7500, description: `Deposit ${reference}`, saveCard: { customerId } });
    const intentId = intentIdOf(first.clientSecret);
    expect(fake.intents.get(intentId)).toMatchObject({ customer: customerId, setup_future_usage: "off_session" });
    await core.ensureIntent({ kind: DEPOSIT, reference, amountCents: 29900, description: `Registration ${reference}` });
    expect(fake.intents.get(intentId)).toMatchObject({ setup_future_usage: null, amount: 29900 });
    expect(fake.confirm(intentId, { number: "4242424242424242" }).body.status).toBe("succeeded");
    const pm = fake.intents.get(intentId)!.payment_method!;
    expect(fake.paymentMethods.get(pm)?.customer).toBeNull();
    const settled = await core.settle(intentId, "return");
    expect(settled.status).toBe("paid");
    expect(await core.cardSavedBy(settled.payment)).toBeNull();
  });
});

describe("the fake's idempotency keys, as Stripe's", () => {
  it("a key belongs to the account: used again on another endpoint it is refused (400 idempotency_error), nothing done", async () => {
    const key = `${newReference()}-key`;
    const post = (path: string, body: string) =>
      fetch(`http://${fake.host}:${fake.port}${path}`, { method: "POST", headers: { authorization: `Bearer ${fake.secretKey}`, "idempotency-key": key, "content-type": "application/x-www-form-urlencoded" }, body });
    const created = await post("/v1/customers", "email=pat%40example.com");
    expect(created.status).toBe(200);
    const customers = fake.customers.size;
    const setupIntents = fake.setupIntents.size;
    const reused = await post("/v1/setup_intents", `customer=${((await created.json()) as { id: string }).id}`);
    expect(reused.status).toBe(400);
    expect(((await reused.json()) as { error: { type: string; message: string } }).error).toMatchObject({ type: "idempotency_error", message: expect.stringContaining("same endpoint") });
    expect(fake.customers.size).toBe(customers);
    expect(fake.setupIntents.size).toBe(setupIntents);
  });
});
