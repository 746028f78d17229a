import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import express from "express";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createLogger } from "../../src/logger.ts";
import { createTestApp, type TestApp } from "../support/app.ts";
import { createPaymentCore, RefundExceedsBalanceError, RefundNotAllowedError, type PaidOutcome, type PaymentCore, type RefundFacts, type RefundRow } from "../../src/payments/core.ts";
import { stripeWebhookRoutes } from "../../src/payments/webhook.ts";
import * as repo from "../../src/payments/repository.ts";
import type { FakeStripe } from "../../src/payments/offline/fakeStripeServer.ts";

/**
 * The durable refund model (src/payments/refunds.ts): a request is a row written in the caller's transaction, one
 * job sends it to Stripe once whichever instance runs it, and Stripe's answer or its webhooks decide: the kind's
 * onRefunded runs only when a refund succeeded, onRefundFailed when it failed. Two payment cores on one database
 * stand for two app instances.
 */
let t: TestApp;
let fake: FakeStripe;
let server: Server;
let core: PaymentCore;
let other: PaymentCore;

const KIND = "refundtest";
const answers = new Map<string, PaidOutcome>();
const refunded = new Map<string, RefundFacts[]>();
const failed = new Map<string, RefundRow[]>();

function makeCore(): PaymentCore {
  const c = createPaymentCore({ db: t.db, gateway: t.gateway, logger: createLogger("silent") });
  c.register(KIND, {
    async onPaid(_trx, payment) {
      return answers.get(payment.reference) ?? "accepted";
    },
    async onRefunded(trx, payment, facts) {
      // Something real in the same transaction: it rolls back with the refund's step.
      await trx("stripe_events").insert({ event_id: `onRefunded:${payment.reference}:${facts.amountRefundedCents}`, type: "test.onRefunded", received_at: new Date() });
      refunded.set(payment.reference, [...(refunded.get(payment.reference) ?? []), { amountRefundedCents: facts.amountRefundedCents, full: facts.full }]);
    },
    async onRefundFailed(_trx, payment, refund) {
      failed.set(payment.reference, [...(failed.get(payment.reference) ?? []), refund]);
    },
  });
  return c;
}

beforeAll(async () => {
  t = await createTestApp();
  fake = t.gateway.offline!;
  core = makeCore();
  other = makeCore();
  const app = express();
  app.use(stripeWebhookRoutes({ db: t.db, paymentCore: core, logger: createLogger("silent") }));
  server = app.listen(0, "127.0.0.1");
  await new Promise((r) => server.once("listening", r));
  fake.setWebhookUrl(`http://127.0.0.1:${(server.address() as AddressInfo).port}/api/stripe/webhook`);
});
afterAll(async () => {
  await core?.refundJobs.stop();
  await other?.refundJobs.stop();
  await fake?.idle();
  await new Promise((r) => server?.close(r));
  await t?.close();
});
beforeEach(() => {
  fake.autoDeliver = false;
  fake.refundBehaviour = "immediate";
  fake.refundSettleMs = null;
});

let counter = 0;
const newReference = () => `F${Date.now().toString(36)}${(counter++).toString(36)}`.toUpperCase();
const refundsAtStripe = (intentId: string) => [...fake.refunds.values()].filter((r) => r.payment_intent === intentId);

/** A paid payment of 50.00 (settled by the browser's return), paid with `card`. */
async function paidPayment(card = "4242424242424242"): Promise<{ reference: string; intentId: string; payment: repo.PaymentRow }> {
  const reference = newReference();
  const { clientSecret } = await core.ensureIntent({ kind: KIND, reference, amountCents: 5000, description: `Test ${reference}` });
  const intentId = clientSecret.split("_secret_")[0]!;
  expect(fake.confirm(intentId, { number: card }).status).toBe(200);
  const settled = await core.settle(intentId, "return");
  expect(settled.status).toBe("paid");
  return { reference, intentId, payment: settled.payment };
}
const paymentOf = async (id: number) => (await repo.findById(t.db, id))!;

describe("requesting a refund", () => {
  it("is idempotent on its key, in the caller's transaction, and rolls back with it", async () => {
    const { payment, intentId } = await paidPayment();
    const [a, b] = await Promise.all([0, 1].map(() => t.db.transaction((trx) => core.requestRefund(trx, payment, { amountCents: 1000, reason: "cancellation", key: `cancel:${payment.reference}:v3` }))));
    expect(a!.id).toBe(b!.id);
    expect(a).toMatchObject({ status: "requested", amountCents: 1000, reason: "cancellation", requestKey: `cancel:${payment.reference}:v3` });
    // The same key with another amount is the same request: the first row stands.
    expect((await core.refund(payment, { amountCents: 4000, reason: "again", key: `cancel:${payment.reference}:v3` })).id).toBe(a!.id);

    await expect(
      t.db.transaction(async (trx) => {
        await core.requestRefund(trx, payment, { amountCents: 500, reason: "rolled back", key: `cancel:${payment.reference}:v4` });
        throw new Error("the cancellation could not be saved");
      }),
    ).rejects.toThrow("the cancellation could not be saved");
    expect(await core.refundsOf(payment.id)).toHaveLength(1);

    await core.refundJobs.drain();
    expect(refundsAtStripe(intentId)).toHaveLength(1);
    expect(refundsAtStripe(intentId)[0]).toMatchObject({ amount: 1000, metadata: { reason: "cancellation", refund_request: String(a!.id) } });
  });

  it("refuses more than is left (counting requests not sent yet) and a payment that is not paid; nothing is recorded", async () => {
    const { payment } = await paidPayment();
    await core.refund(payment, { amountCents: 3000, reason: "part", key: `op:${payment.reference}:1` });
    const tooMuch = core.refund(payment, { amountCents: 2001, reason: "too much", key: `op:${payment.reference}:2` });
    await expect(tooMuch).rejects.toBeInstanceOf(RefundExceedsBalanceError);
    await expect(tooMuch).rejects.toMatchObject({ requestedCents: 2001, leftCents: 2000 });
    await expect(core.refund(payment, { amountCents: 0, reason: "zero", key: `op:${payment.reference}:3` })).rejects.toBeInstanceOf(RefundExceedsBalanceError);
    expect(await core.refundsOf(payment.id)).toHaveLength(1);

    const reference = newReference();
    const open = await core.ensureIntent({ kind: KIND, reference, amountCents: 5000, description: "unpaid" });
    await expect(core.refund(open.payment, { reason: "unpaid", key: `op:${reference}:1` })).rejects.toBeInstanceOf(RefundNotAllowedError);
    expect(await core.refundsOf(open.payment.id)).toHaveLength(0);
  });
});

describe("the refund job", () => {
  it("sends each request to Stripe once when two instances drain at the same time; onRefunded runs once", async () => {
    const { payment, intentId, reference } = await paidPayment();
    const row = await core.refund(payment, { reason: "camp canceled", key: `cancel:${reference}` });
    await Promise.all([core.refundJobs.drain(), other.refundJobs.drain(), other.refundJobs.drain()]);
    expect(refundsAtStripe(intentId)).toHaveLength(1);
    const [done] = await core.refundsOf(payment.id);
    expect(done).toMatchObject({ id: row.id, status: "succeeded", amountCents: 5000, providerRefundId: refundsAtStripe(intentId)[0]!.id });
    expect(refunded.get(reference)).toEqual([{ amountRefundedCents: 5000, full: true }]);
    expect(await paymentOf(payment.id)).toMatchObject({ status: "refunded", amountRefundedCents: 5000, refundReason: "camp canceled" });
    // Stripe's charge.refunded for it changes nothing more.
    const event = fake.events.find((e) => e.type === "charge.refunded" && (e.data.object as { payment_intent: string }).payment_intent === intentId)!;
    expect(await fake.deliver(event)).toBe(200);
    expect(refunded.get(reference)).toHaveLength(1);
  });

  it("a pending refund stays pending (no onRefunded) until Stripe's refund.updated says succeeded", async () => {
    fake.refundBehaviour = "pending_then_succeeded";
    fake.autoDeliver = true;
    const { payment, reference } = await paidPayment();
    await core.refund(payment, { reason: "camp canceled", key: `cancel:${reference}` });
    await core.refundJobs.drain();
    await fake.idle();
    expect((await core.refundsOf(payment.id))[0]).toMatchObject({ status: "pending" });
    expect(refunded.get(reference)).toBeUndefined();
    expect(await paymentOf(payment.id)).toMatchObject({ status: "paid", amountRefundedCents: 0 });

    fake.settleRefunds();
    await fake.idle();
    expect((await core.refundsOf(payment.id))[0]).toMatchObject({ status: "succeeded" });
    expect(refunded.get(reference)).toEqual([{ amountRefundedCents: 5000, full: true }]);
    expect(await paymentOf(payment.id)).toMatchObject({ status: "refunded", amountRefundedCents: 5000 });
  });

  it("a refund that fails runs onRefundFailed, never onRefunded, and the payment stays paid", async () => {
    fake.refundBehaviour = "pending_then_failed";
    fake.autoDeliver = true;
    const { payment, reference } = await paidPayment();
    await core.refund(payment, { reason: "camp canceled", key: `cancel:${reference}` });
    await core.refundJobs.drain();
    fake.settleRefunds();
    await fake.idle();
    const [row] = await core.refundsOf(payment.id);
    expect(row).toMatchObject({ status: "failed", failureReason: "expired_or_canceled_card" });
    expect(failed.get(reference)?.map((r) => r.id)).toEqual([row!.id]);
    expect(refunded.get(reference)).toBeUndefined();
    expect(await paymentOf(payment.id)).toMatchObject({ status: "paid", amountRefundedCents: 0 });
    expect((await core.failedRefunds()).map((r) => r.id)).toContain(row!.id);
    // The money is back: it can be refunded again under a new key.
    await core.refund(payment, { reason: "second try", key: `cancel:${reference}:retry` });
  });

  it("Stripe's 4000 0000 0000 5126 refund succeeds, then fails: the refunded total goes back and onRefundFailed runs", async () => {
    fake.autoDeliver = true;
    const { payment, reference } = await paidPayment("4000000000005126");
    await core.refund(payment, { amountCents: 2000, reason: "partial", key: `op:${reference}` });
    await core.refundJobs.drain();
    expect(refunded.get(reference)).toEqual([{ amountRefundedCents: 2000, full: false }]);
    fake.settleRefunds();
    await fake.idle();
    expect((await core.refundsOf(payment.id))[0]).toMatchObject({ status: "failed" });
    expect(failed.get(reference)).toHaveLength(1);
    expect(await paymentOf(payment.id)).toMatchObject({ status: "paid", amountRefundedCents: 0 });
  });

  it("a partial refund, then the rest: onRefunded twice with the running total, the payment refunded at the end", async () => {
    const { payment, reference } = await paidPayment();
    await core.refund(payment, { amountCents: 2000, reason: "downgrade", key: `downgrade:${reference}` });
    await core.refundJobs.drain();
    expect(await paymentOf(payment.id)).toMatchObject({ status: "paid", amountRefundedCents: 2000 });
    const rest = await core.refund(payment, { reason: "cancellation", key: `cancel:${reference}` });
    expect(rest.amountCents).toBe(3000);
    await core.refundJobs.drain();
    expect(refunded.get(reference)).toEqual([
      { amountRefundedCents: 2000, full: false },
      { amountRefundedCents: 5000, full: true },
    ]);
    expect(await paymentOf(payment.id)).toMatchObject({ status: "refunded", amountRefundedCents: 5000 });
    await expect(core.refund(payment, { reason: "more", key: `more:${reference}` })).rejects.toBeInstanceOf(RefundNotAllowedError);
  });

  it("Stripe refusing a refund for good (already refunded in the dashboard) fails the row at once", async () => {
    const { payment, intentId, reference } = await paidPayment();
    await t.gateway.refundIntent(intentId, { idempotencyKey: `dashboard-${reference}`, reason: "dashboard" });
    await core.refund(payment, { amountCents: 1000, reason: "late", key: `op:${reference}` });
    await core.refundJobs.drain();
    const [row] = await core.refundsOf(payment.id);
    expect(row).toMatchObject({ status: "failed" });
    expect(row!.failureReason).toMatch(/Stripe refused it: Charge .* has already been refunded/);
    expect(failed.get(reference)).toHaveLength(1);
  });
});

describe("refund keys that cannot collide", () => {
  it("a refund whose row id was used before (a database recreated, Stripe's keys kept) still goes through; a key Stripe refuses is final", async () => {
    const first = await paidPayment();
    const sent = await core.refund(first.payment, { reason: "camp canceled", key: `cancel:${first.reference}` });
    await core.refundJobs.drain();
    const usedKey = String((await t.db("payment_refunds").where({ id: sent.id }).first()).idempotency_key);
    expect(usedKey).toMatch(new RegExp(`^refund-${first.intentId}-[A-Za-z0-9_-]{16}$`));
    // As after `rm var/app.sqlite3` or a restore: the next refund row gets the same id again.
    await t.db("payment_refunds").where({ id: sent.id }).delete();
    if (t.backend === "mysql") await t.db.raw("alter table payment_refunds auto_increment = 1");
    else await t.db.raw("update sqlite_sequence set seq = ? where name = 'payment_refunds'", [sent.id - 1]);
    const second = await paidPayment();
    const again = await core.refund(second.payment, { reason: "camp canceled", key: `cancel:${second.reference}` });
    expect(again.id).toBe(sent.id);
    await core.refundJobs.drain();
    expect((await core.refundsOf(second.payment.id))[0]).toMatchObject({ status: "succeeded" });
    expect(refundsAtStripe(second.intentId)).toHaveLength(1);

    // A key Stripe has seen with other parameters: failed at once, for the operator, never sent again.
    const third = await paidPayment();
    // Written with the used key in one transaction, so the refund job can never send it with its own key first.
    const refused = await t.db.transaction(async (trx) => {
      const row = await core.requestRefund(trx, third.payment, { reason: "camp canceled", key: `cancel:${third.reference}` });
      await trx("payment_refunds").where({ id: row.id }).update({ idempotency_key: usedKey });
      return row;
    });
    await core.refundJobs.drain();
    const row = await t.db("payment_refunds").where({ id: refused.id }).first();
    expect(row).toMatchObject({ status: "failed", send_status: "sent" });
    expect(Number(row.attempts)).toBe(1);
    expect(row.failure_reason).toContain("idempotency_error");
    expect((await core.failedRefunds()).map((r) => r.id)).toContain(refused.id);
    expect(failed.get(third.reference)).toHaveLength(1);
    expect(refundsAtStripe(third.intentId)).toHaveLength(0);
  });
});

describe("refunds the site did not ask for, and rejected payments", () => {
  it("a refund made in Stripe's dashboard arrives as charge.refunded: its own row, the payment refunded", async () => {
    const { payment, intentId, reference } = await paidPayment();
    const before = fake.events.length;
    await t.gateway.refundIntent(intentId, { idempotencyKey: `dashboard-${reference}`, reason: "dashboard" });
    const event = fake.events.slice(before).find((e) => e.type === "charge.refunded")!;
    expect(await fake.deliver(event)).toBe(200);
    expect(await fake.deliver(event)).toBe(200);
    const rows = await core.refundsOf(payment.id);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ status: "succeeded", amountCents: 5000, requestKey: `stripe:${refundsAtStripe(intentId)[0]!.id}` });
    expect(await paymentOf(payment.id)).toMatchObject({ status: "refunded" });
    expect(refunded.get(reference)).toEqual([{ amountRefundedCents: 5000, full: true }]);
  });

  it("onPaid answering reject requests a full refund in the same transaction; the job sends it; refunded when it succeeds", async () => {
    const reference = newReference();
    answers.set(reference, { reject: "the place is no longer free" });
    const { clientSecret } = await core.ensureIntent({ kind: KIND, reference, amountCents: 5000, description: "rejected" });
    const intentId = clientSecret.split("_secret_")[0]!;
    fake.confirm(intentId, { number: "4242424242424242" });
    const result = await core.settle(intentId, "webhook");
    expect(result).toMatchObject({ status: "refunded", reason: "the place is no longer free" });
    expect(result.payment.status).toBe("refund_pending");
    await core.refundJobs.drain();
    expect(refundsAtStripe(intentId)).toHaveLength(1);
    expect(await paymentOf(result.payment.id)).toMatchObject({ status: "refunded", refundReason: "the place is no longer free" });
  });

  it("a rejected payment whose refund fails goes to needs_review for the operator", async () => {
    fake.refundBehaviour = "pending_then_failed";
    fake.autoDeliver = true;
    const reference = newReference();
    answers.set(reference, { reject: "the place is no longer free" });
    const { clientSecret } = await core.ensureIntent({ kind: KIND, reference, amountCents: 5000, description: "rejected" });
    const intentId = clientSecret.split("_secret_")[0]!;
    fake.confirm(intentId, { number: "4242424242424242" });
    const result = await core.settle(intentId, "return");
    await core.refundJobs.drain();
    fake.settleRefunds();
    await fake.idle();
    expect(await paymentOf(result.payment.id)).toMatchObject({ status: "needs_review", reviewReason: "refund failed: expired_or_canceled_card" });
    expect(failed.get(reference)).toHaveLength(1);
  });
});
