import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { Writable } from "node:stream";
import express from "express";
import { pino } from "pino";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createTestApp, type TestApp } from "../support/app.ts";
import { createPaymentCore, PaymentNotOpenError, type PaidOutcome, type PaymentCore } from "../../src/payments/core.ts";
import type { PaymentGateway } from "../../src/payments/gateway.ts";
import { stripeWebhookRoutes } from "../../src/payments/webhook.ts";
import * as repo from "../../src/payments/repository.ts";
import type { FakeStripe } from "../../src/payments/offline/fakeStripeServer.ts";
import type { FakeEvent, FakePaymentIntent } from "../../src/payments/offline/fakeObjects.ts";

/**
 * The payment core on its own, with a counting handler for a test kind: the guards that make a payment
 * paid exactly once, the one live PaymentIntent, review, free settlements (refunds: payments.refunds.test.ts). Each test makes its
 * own references, so any test runs alone.
 */
let t: TestApp;
let fake: FakeStripe;
let server: Server;
let core: PaymentCore;
const logLines: Record<string, unknown>[] = [];
const calls = { retrieve: 0, create: 0, update: 0 };
/** Holds the next updateIntentAmount call until released (an amount change caught between its two writes). */
let updateGate: Promise<void> | undefined;

const KIND = "test";
const paidCount = new Map<string, number>();
/** What the counting handler answers, and the amount its own row says is due, per reference. */
const answers = new Map<string, PaidOutcome>();
const kindAmounts = new Map<string, number>();

beforeAll(async () => {
  t = await createTestApp();
  fake = t.gateway.offline!;
  const base = t.gateway;
  const gateway: PaymentGateway = {
    ...base,
    retrieveIntent: (id) => ((calls.retrieve += 1), base.retrieveIntent(id)),
    createIntent: (input) => ((calls.create += 1), base.createIntent(input)),
    updateIntentAmount: async (id, amount) => {
      calls.update += 1;
      await updateGate;
      return base.updateIntentAmount(id, amount);
    },
  };
  const sink = new Writable({
    write(chunk, _enc, done) {
      for (const line of String(chunk).split("\n").filter(Boolean)) logLines.push(JSON.parse(line));
      done();
    },
  });
  const logger = pino({ level: "info" }, sink);
  core = createPaymentCore({ db: t.db, gateway, logger });
  core.register(KIND, {
    async onPaid(trx, payment) {
      paidCount.set(payment.reference, (paidCount.get(payment.reference) ?? 0) + 1);
      // Something real in the same transaction, as a kind does: it rolls back with the payment.
      await trx("stripe_events").insert({ event_id: `onPaid:${payment.reference}:${payment.id}`, type: "test.onPaid", received_at: new Date() });
      return answers.get(payment.reference) ?? "accepted";
    },
    async expected(_trx, reference) {
      const amountCents = kindAmounts.get(reference);
      return amountCents === undefined ? null : { amountCents };
    },
  });
  const app = express();
  app.use(stripeWebhookRoutes({ db: t.db, paymentCore: core, logger }));
  server = app.listen(0, "127.0.0.1");
  await new Promise((r) => server.once("listening", r));
  fake.setWebhookUrl(`http://127.0.0.1:${(server.address() as AddressInfo).port}/api/stripe/webhook`);
});
afterAll(async () => {
  await fake?.idle();
  await new Promise((r) => server?.close(r));
  await t?.close();
});
beforeEach(() => {
  fake.autoDeliver = false;
  updateGate = undefined;
});

let counter = 0;
const newReference = () => `R${Date.now().toString(36)}${(counter++).toString(36)}`.toUpperCase();
const ensure = (reference: string, amountCents = 5000) => core.ensureIntent({ kind: KIND, reference, amountCents, description: `Test ${reference}`, email: "pat@example.com" });
const intentIdOf = (clientSecret: string) => clientSecret.split("_secret_")[0]!;
const paymentRows = (reference: string) => t.db("payments").where({ kind: KIND, reference }).orderBy("id");

/** Pays the reference's intent at the fake (as Stripe.js would) and returns the payment_intent.succeeded event. */
async function paid(reference: string, amountCents = 5000): Promise<{ intentId: string; event: FakeEvent }> {
  const { clientSecret } = await ensure(reference, amountCents);
  const intentId = intentIdOf(clientSecret);
  const before = fake.events.length;
  expect(fake.confirm(intentId, { number: "4242424242424242" }).status).toBe(200);
  return { intentId, event: fake.events.slice(before).find((e) => e.type === "payment_intent.succeeded")! };
}

describe("paid exactly once", () => {
  it("the browser's return and 3 deliveries of the webhook at once run onPaid once", async () => {
    const reference = newReference();
    const { intentId, event } = await paid(reference);
    const redelivered = { ...event, id: `${event.id}_again` }; // the same news under another event id
    const [ret, ...hooks] = await Promise.all([core.settle(intentId, "return"), fake.deliver(event), fake.deliver(event), fake.deliver(event), fake.deliver(redelivered)]);
    expect(hooks).toEqual([200, 200, 200, 200]);
    expect(ret.status).toBe("paid");
    expect(paidCount.get(reference)).toBe(1);
    expect(await t.db("stripe_events").where({ event_id: `onPaid:${reference}:${ret.payment.id}` })).toHaveLength(1);
    expect((await paymentRows(reference))[0]).toMatchObject({ status: "paid", amount_cents: 5000 });
  });

  it("markPaidOnce: of two transactions marking one payment paid, only the first changes it", async () => {
    const reference = newReference();
    const { payment } = await ensure(reference);
    const attempts = await Promise.all([0, 1].map(() => t.db.transaction((trx) => repo.markPaidOnce(trx, payment, "webhook"))));
    expect(attempts.map((paid) => paid !== undefined).sort()).toEqual([false, true]);
    expect(await t.db.transaction((trx) => repo.markPaidOnce(trx, payment, "return"))).toBeUndefined();
    expect((await paymentRows(reference))[0]).toMatchObject({ status: "paid", paid_via: "webhook" });
    // The one that changed it answers the payment as a read of it says, without reading it.
    const paid = attempts.find((p) => p !== undefined)!;
    expect(paid).toEqual(await repo.findById(t.db, payment.id));
  });

  it("the webhook processes an event id once: a redelivery answers duplicate without asking Stripe again", async () => {
    const reference = newReference();
    const { event } = await paid(reference);
    expect(await fake.deliver(event)).toBe(200);
    const retrievesAfterFirst = calls.retrieve;
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/stripe/webhook`;
    const payload = JSON.stringify(event, null, 2);
    const again = await fetch(url, { method: "POST", headers: { "content-type": "application/json", "stripe-signature": fake.sign(payload) }, body: payload });
    expect(again.status).toBe(200);
    expect(await again.json()).toEqual({ received: true, duplicate: true });
    expect(calls.retrieve).toBe(retrievesAfterFirst);
    expect(paidCount.get(reference)).toBe(1);
  });
});

describe("ensureIntent: one live PaymentIntent per (kind, reference)", () => {
  it("concurrent calls for one reference get one PaymentIntent and one live payment", async () => {
    const reference = newReference();
    const results = await Promise.all(Array.from({ length: 5 }, () => ensure(reference)));
    const ids = new Set(results.map((r) => intentIdOf(r.clientSecret)));
    expect(ids.size).toBe(1);
    expect([...fake.intents.values()].filter((pi) => pi.metadata.reference === reference)).toHaveLength(1);
    const rows = await paymentRows(reference);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ live_key: `${KIND}:${reference}`, provider_payment_id: [...ids][0], status: "pending" });
  });

  it("the database refuses a second live payment for one reference", async () => {
    const reference = newReference();
    await ensure(reference);
    const now = new Date();
    await expect(
      t.db("payments").insert({ kind: KIND, reference, provider: "stripe", live_key: `${KIND}:${reference}`, amount_cents: 1, currency: "usd", status: "pending", created_at: now, updated_at: now }),
    ).rejects.toThrow();
  });

  it("a new amount updates the same PaymentIntent (no idempotency error); after a cancel a new one starts", async () => {
    const reference = newReference();
    const first = await ensure(reference, 5000);
    const second = await ensure(reference, 4000);
    expect(intentIdOf(second.clientSecret)).toBe(intentIdOf(first.clientSecret));
    expect(fake.intents.get(intentIdOf(first.clientSecret))!.amount).toBe(4000);
    expect(second.payment).toMatchObject({ amountCents: 4000, expectedAmountCents: null });
    expect(await ensure(reference, 5000)).toMatchObject({ payment: { amountCents: 5000 } });

    expect(await core.cancel(second.payment)).toBe("canceled");
    expect(fake.intents.get(intentIdOf(first.clientSecret))!.status).toBe("canceled");
    const third = await ensure(reference, 5000);
    expect(intentIdOf(third.clientSecret)).not.toBe(intentIdOf(first.clientSecret));
    const rows = await paymentRows(reference);
    expect(rows.map((r: { status: string; live_key: string | null }) => [r.status, r.live_key])).toEqual([
      ["canceled", null],
      ["pending", `${KIND}:${reference}`],
    ]);
  });

  it("refuses a paid reference", async () => {
    const reference = newReference();
    const { intentId } = await paid(reference);
    await core.settle(intentId, "return");
    await expect(ensure(reference)).rejects.toBeInstanceOf(PaymentNotOpenError);
  });
});

describe("a PaymentIntent that could not be created", () => {
  /** A core whose gateway fails the next create with `error`, then works again. */
  function failingOnce(error: Error): PaymentCore {
    let failed = false;
    const gateway: PaymentGateway = {
      ...t.gateway,
      createIntent: (input) => (failed ? t.gateway.createIntent(input) : ((failed = true), Promise.reject(error))),
    };
    const other = createPaymentCore({ db: t.db, gateway, logger: pino({ level: "silent" }) });
    other.register(KIND, { onPaid: async () => "accepted" });
    return other;
  }
  const input = (reference: string) => ({ kind: KIND, reference, amountCents: 5000, description: `Test ${reference}` });

  it("Stripe down: no pending row is left, and the next attempt makes the intent", async () => {
    const reference = newReference();
    const other = failingOnce(Object.assign(new Error("connect ECONNREFUSED"), { type: "StripeConnectionError" }));
    await expect(other.ensureIntent(input(reference))).rejects.toThrow("ECONNREFUSED");
    expect((await paymentRows(reference)).map((r) => r.status)).toEqual(["canceled"]);
    const { payment } = await other.ensureIntent(input(reference));
    expect(payment.status).toBe("pending");
    expect((await paymentRows(reference)).map((r) => r.status)).toEqual(["canceled", "pending"]);
  });

  it("a 400 idempotency_error (the key was used with other parameters) is final for that key: the row gives up its slot at once", async () => {
    const reference = newReference();
    const clash = Object.assign(new Error("Keys for idempotent requests can only be used with the same parameters they were first used with."), {
      statusCode: 400,
      type: "StripeIdempotencyError",
      rawType: "idempotency_error",
    });
    const other = failingOnce(clash);
    const started = Date.now();
    await expect(other.ensureIntent(input(reference))).rejects.toBe(clash);
    // Answered at once, not after waiting for an intent that will never come.
    expect(Date.now() - started).toBeLessThan(1000);
    const { clientSecret } = await other.ensureIntent(input(reference));
    expect(clientSecret).toMatch(/_secret_/);
  });
});

describe("needs_review", () => {
  it("a PaymentIntent that succeeded for another amount is kept for review, with an error log naming it and no e-mail address", async () => {
    const reference = newReference();
    const { intentId, event } = await paid(reference);
    fake.intents.get(intentId)!.amount = 100; // changed behind our back
    event.data.object = { ...(event.data.object as FakePaymentIntent), amount: 100 };
    expect(await fake.deliver(event)).toBe(200);
    const [row] = await paymentRows(reference);
    expect(row).toMatchObject({ status: "needs_review", review_reason: "amount 100 is not the payment's 5000", live_key: `${KIND}:${reference}` });
    expect(paidCount.get(reference)).toBeUndefined();
    expect((await core.needsReview()).map((p) => p.reference)).toContain(reference);
    const line = logLines.find((l) => l.reference === reference && l.level === 50)!;
    expect(line).toMatchObject({ kind: KIND, reference, intentId, msg: "succeeded PaymentIntent does not match its payment: needs_review" });
    expect(JSON.stringify(logLines.filter((l) => l.reference === reference))).not.toContain("pat@example.com");
    // Later deliveries change nothing: the row waits for an operator.
    expect(await fake.deliver({ ...event, id: `${event.id}_again` })).toBe(200);
    expect((await paymentRows(reference))[0].status).toBe("needs_review");
  });

  it("checks the kind's own amount as well as the payment row's", async () => {
    const reference = newReference();
    kindAmounts.set(reference, 4500); // e.g. a registration whose amount due changed
    const { intentId } = await paid(reference, 5000);
    const result = await core.settle(intentId, "return");
    expect(result).toMatchObject({ status: "mismatch", needsReview: true, reason: "amount 5000 is not the test's 4500" });
    expect((await paymentRows(reference))[0].status).toBe("needs_review");
    expect(paidCount.get(reference)).toBeUndefined();
  });

  it("while an amount change is in flight the webhook answers non-2xx, and the retry settles on what Stripe holds", async () => {
    const reference = newReference();
    const { clientSecret } = await ensure(reference, 5000);
    const intentId = intentIdOf(clientSecret);
    let release!: () => void;
    updateGate = new Promise((r) => (release = r));
    const change = ensure(reference, 3000).catch((err: Error) => err); // stops between its two writes
    await expect.poll(async () => (await paymentRows(reference))[0].expected_amount_cents).toBe(3000);

    const before = fake.events.length;
    fake.confirm(intentId, { number: "4242424242424242" }); // the customer pays the old amount meanwhile
    const event = fake.events.slice(before).find((e) => e.type === "payment_intent.succeeded")!;
    expect(await fake.deliver(event)).toBe(503);
    expect((await paymentRows(reference))[0]).toMatchObject({ status: "pending", expected_amount_cents: 3000 });
    expect(paidCount.get(reference)).toBeUndefined();

    release();
    expect(await change).toBeInstanceOf(Error); // Stripe refuses to change a succeeded PaymentIntent
    expect((await paymentRows(reference))[0]).toMatchObject({ amount_cents: 5000, expected_amount_cents: null });
    expect(await fake.deliver(event)).toBe(200); // Stripe's retry
    expect((await paymentRows(reference))[0]).toMatchObject({ status: "paid", amount_cents: 5000 });
    expect(paidCount.get(reference)).toBe(1);
  });
});

describe("outcomes", () => {
  it("cancel answers already_succeeded when the card was charged, and the payment is then paid", async () => {
    const reference = newReference();
    const { payment } = await ensure(reference);
    fake.confirm(payment.providerPaymentId!, { number: "4242424242424242" });
    expect(await core.cancel(payment)).toBe("already_succeeded");
    expect((await paymentRows(reference))[0].status).toBe("paid");
    expect(paidCount.get(reference)).toBe(1);
  });

  it("recordFree settles 0 in the caller's transaction without Stripe, and refuses a reference with a live intent", async () => {
    const reference = newReference();
    const created = calls.create;
    const intents = fake.intents.size;
    const free = await t.db.transaction((trx) => core.recordFree(trx, KIND, reference));
    expect(free).toMatchObject({ provider: "none", status: "paid", amountCents: 0, providerPaymentId: null });
    expect(calls.create).toBe(created);
    expect(fake.intents.size).toBe(intents);
    await expect(ensure(reference)).rejects.toBeInstanceOf(PaymentNotOpenError);

    // Rolled back with the caller's transaction.
    const rolledBack = newReference();
    await expect(t.db.transaction(async (trx) => {
      await core.recordFree(trx, KIND, rolledBack);
      throw new Error("the registration could not be saved");
    })).rejects.toThrow("the registration could not be saved");
    expect(await paymentRows(rolledBack)).toHaveLength(0);

    const charged = newReference();
    await ensure(charged);
    await expect(t.db.transaction((trx) => core.recordFree(trx, KIND, charged))).rejects.toBeInstanceOf(PaymentNotOpenError);
  });

});
