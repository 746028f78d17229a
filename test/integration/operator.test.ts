import fs from "node:fs";
import { sentText } from "../support/mail.ts";
import os from "node:os";
import path from "node:path";
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { ADDRESS } from "../support/address.ts";
import { createPayingTestApp, type PayingTestApp } from "../support/app.ts";
import { visitor } from "../support/http.ts";
import type { FakeStripe } from "../../src/payments/offline/fakeStripeServer.ts";
import { createOperatorContext, OperatorError, type OperatorContext } from "../../src/cli/operatorContext.ts";
import { listReview, runPaymentsCommand } from "../../src/cli/payments.ts";
import { runResendCommand } from "../../src/cli/resend.ts";
import { REFUND_EXIT, refundPayment, runRefundCommand } from "../../src/cli/refund.ts";
import { findById, type PaymentRow } from "../../src/payments/repository.ts";
import type { JobQueue } from "../../src/db/jobQueue.ts";
import { placesLeft } from "../../src/events/repository.ts";
import { createDb, migrateLatest } from "../../src/db/knex.ts";
import { erasePerson } from "../../src/privacy/erase.ts";
import { until } from "../support/until.ts";

// The operator's commands run as their functions against the app's database, beside the running app (its webhooks,
// its job queues): what a command writes is what the app then does.
let t: PayingTestApp;
let fake: FakeStripe;
let ctx: OperatorContext;

beforeAll(async () => {
  // A refund the commands ask for is sent by the app's refund job, which looks every 5 s unless told (test-only).
  t = await createPayingTestApp({ REFUND_JOB_INTERVAL_MS: "200" });
  fake = t.fake;
  ctx = createOperatorContext(t.config, t.db, t.logger);
});
afterAll(async () => {
  await t?.close();
});
beforeEach(async () => {
  fake.autoDeliver = false;
  await fake.idle();
});

const CARD = { number: "4242 4242 4242 4242" };
const intentIdOf = (clientSecret: string) => clientSecret.split("_secret_")[0]!;
let formSeq = 0;

/** Captures what a command prints. */
function printed() {
  const lines: string[] = [];
  return { lines, out: (line: string) => void lines.push(line) };
}

async function registration(reference: string) {
  const row = await t.db("registrations").where({ reference }).first();
  const payments = await t.db("payments").where({ kind: "registration", reference }).orderBy("id");
  const emails = await t.db("email_outbox").where({ reference: `registration:${reference}` }).orderBy("id");
  return { row, payments, emails };
}

/**
 * A registration paid through its PaymentIntent. `asks`: the registration asks for another amount by the time the
 * money arrives (needs_review, the money is the payment's); `charged`: Stripe took another amount than the payment's.
 */
async function paidRegistration(opts: { asks?: number; charged?: number; pay?: false } = {}): Promise<{ reference: string; intentId: string }> {
  const v = await visitor(t.app);
  const res = await v.post("/api/events/3/create-payment-intent").send({
    option: "1day",
    formSessionId: `operator-form-${++formSeq}-${Date.now()}`,
    registrationData: {
      registrationType: "1day", day2: "on", firstName: "Jordan", lastName: "Reyes", email: "jordan.reyes@example.com", phone: "(205) 555-0100", grade: "10th",
      gender: "Male", schoolName: "Central High", clubName: "Steel City WC", emergencyContactName: "Maria Reyes", emergencyContactPhone: "205-555-0199", adult: "on",
      agrees: "on",
    },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  const reference = res.body.registrationId as string;
  const intentId = intentIdOf(res.body.clientSecret);
  if (opts.pay === false) return { reference, intentId };
  if (opts.asks !== undefined) await t.db("registrations").where({ reference }).update({ amount_cents: opts.asks });
  if (opts.charged !== undefined) fake.intents.get(intentId)!.amount = opts.charged;
  expect(fake.confirm(intentId, CARD).status).toBe(200);
  await v.post("/api/events/3/stripe-payment-success").send({ paymentIntentId: intentId });
  return { reference, intentId };
}

/** A shop order whose total changed while its PaymentIntent was paid: needs_review. */
async function orderInReview(): Promise<string> {
  const v = await visitor(t.app);
  await v.post("/api/cart/add").send({ shopifyProductId: "1001", shopifyVariantId: "2001", quantity: 1 });
  const cart = (await v.get("/api/cart")).body as { cartItems: { id: string; shopifyProductId: string; shopifyVariantId: string; quantity: number; price: string }[] };
  const res = await v.post("/api/cart/checkout").send({
    items: cart.cartItems.map((i) => ({ id: i.id, shopifyProductId: i.shopifyProductId, shopifyVariantId: i.shopifyVariantId, quantity: i.quantity, price: Number(i.price) })),
    customerInfo: { firstName: "Quinn", lastName: "Ray", email: "quinn.ray@example.com", phone: "205-555-0111" },
    shippingAddress: ADDRESS,
  });
  expect(res.status).toBe(200);
  const intentId = intentIdOf(res.body.clientSecret);
  await t.db("orders").where({ reference: res.body.orderReference }).update({ total_cents: 100 });
  fake.confirm(intentId, CARD);
  await v.post("/api/cart/checkout/complete").send({ paymentIntentId: intentId });
  return res.body.orderReference as string;
}

describe("payments review", () => {
  it("lists a needs_review payment (kind, reference, amounts, reason, age, masked payer) and an accept makes the registration paid, once", async () => {
    const { reference } = await paidRegistration({ asks: 5000 });
    const before = await registration(reference);
    expect(before.row.status).toBe("needs_review");
    const payment = before.payments[0];
    expect(payment.status).toBe("needs_review");

    const list = await listReview(ctx, new Date());
    const line = list.split("\n").find((l) => l.startsWith(`${payment.id} `))!;
    expect(line).toBeDefined();
    for (const part of ["registration", reference, "$149.00", "$50.00", "registration needs_review", "0 min", "j***@example.com", "amount 14900 is not the registration's 5000"]) {
      expect(line, part).toContain(part);
    }
    expect(list).not.toContain("jordan.reyes@example.com");
    expect(list.split("\n").at(-1)).toMatch(/^\d+ payment\(s\) in review\./);

    const { lines, out } = printed();
    expect(await runPaymentsCommand(ctx, { command: "accept", paymentId: payment.id, acceptDifference: true }, out)).toBe(0);
    expect(lines).toEqual([
      `Payment ${payment.id} took $149.00; registration ${reference} asks for $50.00 now: $99.00 more than it asks. Kept as it is (--accept-difference).`,
      `Accepted payment ${payment.id}: $149.00 kept; registration ${reference} is paid and its confirmation e-mail is queued.`,
    ]);
    const after = await registration(reference);
    expect(after.row).toMatchObject({ status: "paid", amount_paid_cents: 14900, reserved_until: null });
    expect(after.payments[0]).toMatchObject({ status: "paid", paid_via: "operator" });
    expect(after.emails.map((e: { kind: string }) => e.kind)).toEqual(["registration_confirmation"]);
    expect(await listReview(ctx, new Date())).not.toContain(reference);
    const roster = await t.db("registration_roster").where({ reference });
    expect(roster[0]).toMatchObject({ status: "paid" });

    // Accepting it again changes nothing: one line, no second e-mail.
    await expect(runPaymentsCommand(ctx, { command: "accept", paymentId: payment.id, acceptDifference: true }, out)).rejects.toThrow(new OperatorError(`Payment ${payment.id} is paid, not needs_review: nothing changed.`));
    expect((await registration(reference)).emails).toHaveLength(1);
  });

  it("two operators accepting the same payment at once: one accept, one e-mail", async () => {
    const { reference } = await paidRegistration({ asks: 9900 });
    const payment = (await registration(reference)).payments[0];
    const results = await Promise.allSettled([0, 1].map(() => runPaymentsCommand(ctx, { command: "accept", paymentId: payment.id, acceptDifference: true }, () => {})));
    expect(results.map((r) => r.status).sort()).toEqual(["fulfilled", "rejected"]);
    expect(await registration(reference)).toMatchObject({ row: { status: "paid" }, payments: [{ status: "paid" }], emails: [{ kind: "registration_confirmation" }] });
  });

  it("accepts an order's payment in review: the order is paid and confirmed", async () => {
    const reference = await orderInReview();
    const payment = await t.db("payments").where({ kind: "order", reference }).first();
    expect(payment.status).toBe("needs_review");
    expect(await listReview(ctx, new Date())).toContain("q***@example.com");
    await runPaymentsCommand(ctx, { command: "accept", paymentId: payment.id, acceptDifference: true }, () => {});
    expect(await t.db("orders").where({ reference }).first()).toMatchObject({ status: "paid" });
    expect(await t.db("payments").where({ id: payment.id }).first()).toMatchObject({ status: "paid", paid_via: "operator" });
    expect(await t.db("email_outbox").where({ reference: `order:${reference}` })).toHaveLength(1);
  });

  it("refuses an accept the kind cannot take, and a payment that is not in review, changing nothing", async () => {
    await expect(runPaymentsCommand(ctx, { command: "accept", paymentId: 987654, acceptDifference: true }, () => {})).rejects.toThrow(new OperatorError("There is no payment 987654."));

    // Stripe took another amount than the payment records: only a refund settles it.
    const charged = await paidRegistration({ charged: 5000 });
    const inReview = (await registration(charged.reference)).payments[0];
    await expect(runPaymentsCommand(ctx, { command: "accept", paymentId: inReview.id, acceptDifference: true }, () => {})).rejects.toThrow(
      new OperatorError(`Payment ${inReview.id} cannot be accepted (amount 5000 is not the payment's 14900): Stripe took what the payment does not record; refund it instead.`),
    );
    expect(await registration(charged.reference)).toMatchObject({ row: { status: "needs_review" }, payments: [{ status: "needs_review", paid_via: null }], emails: [] });

    // The order was paid by another payment meanwhile: keeping this one too would charge twice.
    const reference = await orderInReview();
    const payment = await t.db("payments").where({ kind: "order", reference }).first();
    await t.db("orders").where({ reference }).update({ status: "paid" });
    await expect(runPaymentsCommand(ctx, { command: "accept", paymentId: payment.id, acceptDifference: true }, () => {})).rejects.toThrow(
      new OperatorError(`The order ${reference} cannot take this payment (the order is already paid): nothing changed; refund it instead.`),
    );
    expect(await t.db("payments").where({ id: payment.id }).first()).toMatchObject({ status: "needs_review", paid_via: null });
    expect(await t.db("email_outbox").where({ reference: `order:${reference}` })).toHaveLength(0);
  });
});

describe("resend", () => {
  it("queues the registration's confirmation again: one new e-mail, the same as the first but for a new manage link that works", async () => {
    fake.autoDeliver = true;
    const { reference } = await paidRegistration();
    await until(async () => (await t.outbox.drain(), (await registration(reference)).emails[0]?.status === "sent"));
    const [first] = (await registration(reference)).emails;
    expect(first).toMatchObject({ kind: "registration_confirmation" });

    const { lines, out } = printed();
    expect(await runResendCommand(ctx, { kind: "registration", reference }, out)).toBe(0);
    const emails = (await registration(reference)).emails;
    expect(emails).toHaveLength(2);
    // Only a hash of the first manage link is kept, so the new e-mail carries a new one; everything else is the same.
    const linkOf = (text: string) => /\/my-registration\/([A-Za-z0-9_-]{43})/.exec(text)![1]!;
    const unlinked = (text: string) => text.replace(/\/my-registration\/[A-Za-z0-9_-]+/g, "/my-registration/-");
    expect(emails[1]).toMatchObject({ kind: first.kind, to_address: first.to_address, subject: first.subject, status: "pending" });
    expect([unlinked(emails[1].text_body), unlinked(emails[1].html_body)]).toEqual([unlinked(first.text_body), unlinked(first.html_body)]);
    // The first, sent, kept no working link.
    expect(first.text_body).toContain("/my-registration/link-removed-after-sending");
    expect((await (await visitor(t.app)).get(`/my-registration/${linkOf(sentText(t.mailDir, emails[1]))}`)).status).toBe(200);
    // The calendar file is the same but for its DTSTAMP (when it was made).
    const stamped = (json: string) => json.replace(/DTSTAMP:\d{8}T\d{6}Z/g, "DTSTAMP:-");
    expect(stamped(emails[1].attachments_json)).toBe(stamped(first.attachments_json));
    expect(emails[1].attachments_json).toContain(`${reference}.ics`);
    expect(lines).toEqual([`Queued the confirmation of registration ${reference} to j***@example.com (e-mail ${emails[1].id}); a running app instance sends it.`]);
    await until(async () => (await t.outbox.drain(), (await registration(reference)).emails[1].status === "sent"));
  });

  it("queues an order's confirmation with a new status link that works; the earlier link stops working", async () => {
    const reference = await orderInReview();
    const payment = await t.db("payments").where({ kind: "order", reference }).first();
    await runPaymentsCommand(ctx, { command: "accept", paymentId: payment.id, acceptDifference: true }, () => {});
    const linkOf = (text: string) => /\/orders\/([A-Za-z0-9_-]{43})/.exec(text)![1]!;
    const [first] = await t.db("email_outbox").where({ reference: `order:${reference}` });
    await runResendCommand(ctx, { kind: "order", reference }, () => {});
    const emails = await t.db("email_outbox").where({ reference: `order:${reference}` }).orderBy("id");
    expect(emails).toHaveLength(2);
    expect(emails[1]).toMatchObject({ kind: "order_confirmation", to_address: "quinn.ray@example.com", subject: first.subject });
    const v = await visitor(t.app);
    expect((await v.get(`/orders/${linkOf(sentText(t.mailDir, emails[1]))}`)).status).toBe(200);
    expect((await v.get(`/orders/${linkOf(sentText(t.mailDir, first))}`)).status).toBe(404);
  });

  it("refuses what has no confirmation, writing nothing", async () => {
    const count = async () => Number((await t.db("email_outbox").count({ n: "*" }))[0]!.n);
    let before = await count();
    await expect(runResendCommand(ctx, { kind: "registration", reference: "RNOSUCH1" }, () => {})).rejects.toThrow(new OperatorError("There is no registration RNOSUCH1."));
    await expect(runResendCommand(ctx, { kind: "order", reference: "NOSUCH12" }, () => {})).rejects.toThrow(new OperatorError("There is no order NOSUCH12."));
    expect(await count()).toBe(before);
    const erasedOne = await paidRegistration();
    await erasePerson(t.db, "jordan.reyes@example.com");
    before = await count();
    await expect(runResendCommand(ctx, { kind: "registration", reference: erasedOne.reference }, () => {})).rejects.toThrow(
      new OperatorError(`The payer of registration ${erasedOne.reference} was erased on request: there is no address to send to.`),
    );
    const { reference } = await paidRegistration({ pay: false });
    await expect(runResendCommand(ctx, { kind: "registration", reference }, () => {})).rejects.toThrow(
      new OperatorError(`Registration ${reference} is pending_payment: only a paid registration has a confirmation.`),
    );
    expect(await count()).toBe(before);
  });
});

describe("refund", () => {
  const refundJobs = () => t.app.locals.refundJobs as JobQueue;
  beforeAll(() => refundJobs().start());
  beforeEach(() => {
    fake.autoDeliver = true;
  });

  async function refundsOf(reference: string) {
    return t.db("payment_refunds as r").join("payments as p", "p.id", "r.payment_id").where("p.reference", reference).orderBy("r.id").select("r.*");
  }
  const rosterOf = async (reference: string) => (await t.db("registration_roster").where({ reference }))[0];

  it("refunds a registration in full through the running app's job: succeeded, in the roster, one e-mail; the same command again refunds nothing more", async () => {
    const { reference } = await paidRegistration();
    const placesBefore = await placesLeft(t.db, 3, new Date());
    const { lines, out } = printed();
    const cmd = { kind: "registration" as const, reference, reason: "Injured before camp", waitSeconds: 20 };
    expect(await runRefundCommand(ctx, cmd, out)).toBe(REFUND_EXIT.succeeded);
    const [refund] = await refundsOf(reference);
    expect(refund).toMatchObject({ amount_cents: 14900, status: "succeeded", reason: "Injured before camp" });
    expect(lines[0]).toBe(`Requested refund ${refund.id} of $149.00 (registration ${reference}, payment ${refund.payment_id}).`);
    expect(lines[1]).toMatch(/^Succeeded: \$149\.00 refunded \(Stripe re_\w+\); the payer is e-mailed\.$/);
    expect(await rosterOf(reference)).toMatchObject({ status: "refunded" });
    expect(Number((await rosterOf(reference)).amount_refunded)).toBe(149);
    expect((await rosterOf(reference)).refunded_at).not.toBeNull();
    expect((await registration(reference)).emails.map((e: { kind: string }) => e.kind)).toEqual(["registration_confirmation", "registration_refunded"]);
    expect(await placesLeft(t.db, 3, new Date())).toBe(placesBefore + 1);

    const again = printed();
    expect(await runRefundCommand(ctx, cmd, again.out)).toBe(REFUND_EXIT.succeeded);
    expect(again.lines[0]).toBe(`The same refund was asked for before: refund ${refund.id} of $149.00 (registration ${reference}, payment ${refund.payment_id}); nothing more is refunded.`);
    expect(await refundsOf(reference)).toHaveLength(1);
    expect((await registration(reference)).emails).toHaveLength(2);
  });

  it("refunds part of a registration (the same command run twice at once: one refund); more than is left is refused with one line and nothing written", async () => {
    const { reference } = await paidRegistration();
    const partial = { kind: "registration" as const, reference, amountCents: 2500, reason: "Missed a day", waitSeconds: 20 };
    expect(await Promise.all([runRefundCommand(ctx, partial, () => {}), runRefundCommand(ctx, partial, () => {})])).toEqual([REFUND_EXIT.succeeded, REFUND_EXIT.succeeded]);
    expect(await refundsOf(reference)).toMatchObject([{ amount_cents: 2500, status: "succeeded" }]);
    expect(await rosterOf(reference)).toMatchObject({ status: "paid" });
    expect(Number((await rosterOf(reference)).amount_refunded)).toBe(25);
    expect((await registration(reference)).payments[0]).toMatchObject({ status: "paid", amount_refunded_cents: 2500 });

    await expect(runRefundCommand(ctx, { kind: "registration", reference, amountCents: 20000, reason: "Too much", waitSeconds: 20 }, () => {})).rejects.toThrow(
      new OperatorError(`A refund of $200.00 is more than the $124.00 left to refund of registration ${reference} (paid $149.00): nothing was written.`),
    );
    expect(await refundsOf(reference)).toHaveLength(1);
    expect(await rosterOf(reference)).toMatchObject({ status: "paid" });
  });

  it("says a request is still queued when no app instance sends it, and the next one does", async () => {
    await refundJobs().stop();
    const { reference } = await paidRegistration();
    const { lines, out } = printed();
    expect(await runRefundCommand(ctx, { kind: "registration", reference, reason: "Camp canceled", waitSeconds: 1 }, out)).toBe(REFUND_EXIT.queued);
    expect(lines[1]).toBe("Still queued after 1 s: no running app instance sent it to Stripe. It is kept, and the next app instance to run sends it.");
    expect(await refundsOf(reference)).toMatchObject([{ status: "requested", amount_cents: 14900 }]);
    refundJobs().start();
    await until(async () => (await refundsOf(reference))[0].status === "succeeded");
    expect(await rosterOf(reference)).toMatchObject({ status: "refunded" });
  });

  it("reports a refund still pending at Stripe (exit 3) and one Stripe fails (exit 4)", async () => {
    try {
      fake.refundBehaviour = "pending_then_succeeded";
      fake.refundSettleMs = null;
      const pending = await paidRegistration();
      const { lines, out } = printed();
      expect(await runRefundCommand(ctx, { kind: "registration", reference: pending.reference, reason: "Pending", waitSeconds: 8 }, out)).toBe(REFUND_EXIT.pending);
      expect(lines[1]).toMatch(/^Pending at Stripe \(re_\w+\): it finishes on its own; the payer is e-mailed when it succeeds\.$/);
      fake.settleRefunds();
      await until(async () => (await refundsOf(pending.reference))[0].status === "succeeded");

      fake.refundBehaviour = "pending_then_failed";
      fake.refundSettleMs = 100;
      const failing = await paidRegistration();
      const failed = printed();
      expect(await runRefundCommand(ctx, { kind: "registration", reference: failing.reference, reason: "Fails", waitSeconds: 20 }, failed.out)).toBe(REFUND_EXIT.failed);
      expect(failed.lines[1]).toMatch(/^Failed \(failed\): .+\. The money is still with the shop\.$/);
      expect(await rosterOf(failing.reference)).toMatchObject({ status: "paid" });
      const listed = printed();
      expect(await runPaymentsCommand(ctx, { command: "failedRefunds" }, listed.out)).toBe(0);
      const [failedRefund] = (await refundsOf(failing.reference)).filter((r: { status: string }) => r.status === "failed");
      expect(listed.lines[0]).toMatch(new RegExp(`\\n${failedRefund.id}\\s+\\d+\\s+registration\\s+${failing.reference}\\s+\\$\\d+\\.\\d{2}\\s+\\d+ min ago\\s+j\\*\\*\\*@example\\.com\\s+\\S`));
      expect(listed.lines[0]).toContain("refund(s) failed: the money is still with the shop.");
    } finally {
      fake.refundBehaviour = "immediate";
      fake.refundSettleMs = 2_000;
    }
  });

  it("an accept and a review refund of one payment at once: only one of them happens", async () => {
    const { reference } = await paidRegistration({ asks: 8800 });
    const payment = (await registration(reference)).payments[0];
    const [accepted, refunded] = await Promise.allSettled([
      runPaymentsCommand(ctx, { command: "accept", paymentId: payment.id, acceptDifference: true }, () => {}),
      runPaymentsCommand(ctx, { command: "refund", paymentId: payment.id, reason: "Race", waitSeconds: 20 }, () => {}),
    ]);
    const refunds = await refundsOf(reference);
    const after = await registration(reference);
    if (accepted.status === "fulfilled") {
      // Refused under the lock (the accept committed after the refund read the review list), or at that read.
      expect(refunded.status).toBe("rejected");
      const refusal = (refunded as PromiseRejectedResult).reason as Error;
      expect(refusal).toBeInstanceOf(OperatorError);
      expect([`Payment ${payment.id} is paid, not needs_review: nothing was written.`, `Payment ${payment.id} is not in review (see review list); refund a paid one with npm run refund.`]).toContain(refusal.message);
      expect(refunds).toHaveLength(0);
      expect(after.row.status).toBe("paid");
    } else {
      expect(accepted.reason).toEqual(new OperatorError(`Payment ${payment.id} has a refund asked for or made: nothing changed.`));
      expect(refunded).toMatchObject({ status: "fulfilled", value: REFUND_EXIT.succeeded });
      expect(after.row.status).toBe("refunded");
    }
  });

  it("one after the other: no review refund once accepted, no accept once a refund is asked for", async () => {
    const first = await paidRegistration({ asks: 8800 });
    const accepted = (await registration(first.reference)).payments[0];
    await runPaymentsCommand(ctx, { command: "accept", paymentId: accepted.id, acceptDifference: true }, () => {});
    // The operator's list was read before another operator accepted it.
    const stale: PaymentRow = { ...(await findById(t.db, accepted.id))!, status: "needs_review" };
    await expect(refundPayment(ctx, stale, { reason: "Late", waitSeconds: 0, onlyIf: "needs_review" }, () => {})).rejects.toThrow(
      new OperatorError(`Payment ${accepted.id} is paid, not needs_review: nothing was written.`),
    );
    expect(await refundsOf(first.reference)).toHaveLength(0);

    await refundJobs().stop();
    let secondReference: string | undefined;
    try {
      const second = await paidRegistration({ asks: 8800 });
      secondReference = second.reference;
      const inReview = (await registration(second.reference)).payments[0];
      expect(await runPaymentsCommand(ctx, { command: "refund", paymentId: inReview.id, reason: "Queued", waitSeconds: 0 }, () => {})).toBe(REFUND_EXIT.queued);
      await expect(runPaymentsCommand(ctx, { command: "accept", paymentId: inReview.id, acceptDifference: true }, () => {})).rejects.toThrow(
        new OperatorError(`Payment ${inReview.id} has a refund asked for or made: nothing changed.`),
      );
      expect(await registration(second.reference)).toMatchObject({ row: { status: "needs_review" }, payments: [{ status: "needs_review" }] });
    } finally {
      refundJobs().start();
      // The queued refund runs now: done before the next test counts places (it frees this registration's place).
      await refundJobs().drain();
      if (secondReference) await expect.poll(async () => (await registration(secondReference!)).row.status).toBe("refunded");
    }
  });

  it("refunds a needs_review payment (review refund): the registration's places are released", async () => {
    const { reference } = await paidRegistration({ asks: 7000 });
    const payment = (await registration(reference)).payments[0];
    expect(payment.status).toBe("needs_review");
    const placesBefore = await placesLeft(t.db, 3, new Date());
    expect(await runPaymentsCommand(ctx, { command: "refund", paymentId: payment.id, reason: "Price changed", waitSeconds: 20 }, () => {})).toBe(REFUND_EXIT.succeeded);
    expect(await registration(reference)).toMatchObject({ row: { status: "refunded" }, payments: [{ status: "refunded", amount_refunded_cents: 14900 }] });
    expect(await placesLeft(t.db, 3, new Date())).toBe(placesBefore + 1);
    await expect(runPaymentsCommand(ctx, { command: "refund", paymentId: payment.id, reason: "Price changed", waitSeconds: 20 }, () => {})).rejects.toThrow(
      new OperatorError(`Payment ${payment.id} is not in review (see review list); refund a paid one with npm run refund.`),
    );
  });

  it("refunds a review payment for what Stripe charged ($50 on a $149 row), and the registration leaves needs_review and frees its place", async () => {
    const { reference, intentId } = await paidRegistration({ charged: 5000 });
    const payment = (await registration(reference)).payments[0];
    expect(payment).toMatchObject({ status: "needs_review", amount_cents: 14900, amount_received_cents: 5000 });
    const placesBefore = await placesLeft(t.db, 3, new Date());
    const lines: string[] = [];
    expect(await runPaymentsCommand(ctx, { command: "refund", paymentId: payment.id, reason: "Charged another amount", waitSeconds: 20 }, (l) => void lines.push(l))).toBe(REFUND_EXIT.succeeded);
    expect(lines[0]).toMatch(/^Requested refund \d+ of \$50\.00 /);
    expect([...fake.refunds.values()].filter((r) => r.payment_intent === intentId).map((r) => r.amount)).toEqual([5000]);
    expect(await registration(reference)).toMatchObject({ row: { status: "refunded" }, payments: [{ status: "refunded", amount_refunded_cents: 5000 }] });
    expect(await placesLeft(t.db, 3, new Date())).toBe(placesBefore + 1);
  });

  it("an accept that would keep another amount than the registration asks for now shows the difference and needs --accept-difference", async () => {
    const { reference } = await paidRegistration({ asks: 13410 });
    const payment = (await registration(reference)).payments[0];
    await expect(runPaymentsCommand(ctx, { command: "accept", paymentId: payment.id }, () => {})).rejects.toThrow(
      new OperatorError(`Payment ${payment.id} took $149.00; registration ${reference} asks for $134.10 now: $14.90 more than it asks. Keep it as it is with review accept ${payment.id} --accept-difference, or refund it with review refund ${payment.id} --reason "...": nothing changed.`),
    );
    expect(await registration(reference)).toMatchObject({ row: { status: "needs_review" }, payments: [{ status: "needs_review" }] });
    const lines: string[] = [];
    expect(await runPaymentsCommand(ctx, { command: "accept", paymentId: payment.id, acceptDifference: true }, (l) => void lines.push(l))).toBe(0);
    expect(lines[0]).toBe(`Payment ${payment.id} took $149.00; registration ${reference} asks for $134.10 now: $14.90 more than it asks. Kept as it is (--accept-difference).`);
    expect(await registration(reference)).toMatchObject({ row: { status: "paid" }, payments: [{ status: "paid" }] });
  });

  it("refunds an order; refuses what has nothing to refund, writing nothing", async () => {
    const reference = await orderInReview();
    const payment = await t.db("payments").where({ kind: "order", reference }).first();
    await runPaymentsCommand(ctx, { command: "accept", paymentId: payment.id, acceptDifference: true }, () => {});
    expect(await runRefundCommand(ctx, { kind: "order", reference, amountCents: 1000, reason: "Late delivery", waitSeconds: 20 }, () => {})).toBe(REFUND_EXIT.succeeded);
    expect(await t.db("payments").where({ id: payment.id }).first()).toMatchObject({ status: "paid", amount_refunded_cents: 1000 });
    const emails = await t.db("email_outbox").where({ reference: `order:${reference}` }).orderBy("id");
    expect(emails.map((e: { kind: string }) => e.kind)).toEqual(["order_confirmation", "order_refunded"]);
    expect(emails[1]).toMatchObject({ to_address: "quinn.ray@example.com", subject: `Refund on your Ironside Wrestling order ${reference}` });
    expect(emails[1].text_body).toContain(`A refund was made on your order ${reference}: $10.00 of the $`);
    // Stripe's webhooks for the same refund (refund.created, charge.refunded) add no second e-mail.
    await fake.idle();
    expect(await t.db("email_outbox").where({ reference: `order:${reference}` })).toHaveLength(2);

    const before = (await t.db("payment_refunds")).length;
    await expect(runRefundCommand(ctx, { kind: "order", reference: "NOSUCH12", reason: "x", waitSeconds: 0 }, () => {})).rejects.toThrow(new OperatorError("There is no order NOSUCH12."));
    const pending = await paidRegistration({ pay: false });
    await expect(runRefundCommand(ctx, { kind: "registration", reference: pending.reference, reason: "x", waitSeconds: 0 }, () => {})).rejects.toThrow(
      new OperatorError(`Registration ${pending.reference} is pending_payment and has no payment with money to refund.`),
    );
    expect(await t.db("payment_refunds")).toHaveLength(before);
  });
});

describe("the commands as processes", () => {
  const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "operator-"));
  const file = path.join(dir, "app.sqlite3");
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  const run = (script: string, args: string[]) =>
    promisify(execFile)(process.execPath, [path.join(root, "src/cli/run.mjs"), script, ...args], {
      cwd: root,
      env: { ...process.env, SQLITE_PATH: file, DATABASE_URL: "", NODE_ENV: "test", LOG_LEVEL: "silent" },
    }).then(
      (r) => ({ code: 0, stdout: r.stdout, stderr: r.stderr }),
      (e: { code: number; stdout: string; stderr: string }) => ({ code: e.code, stdout: e.stdout, stderr: e.stderr }),
    );

  it("answer --help, refuse bad input with one line (exit 1, nothing written) and work on the configured database", { timeout: 120_000 }, async () => {
    const db = createDb({ client: "better-sqlite3", filename: file });
    await migrateLatest(db);
    const now = new Date();
    await db("registrations").insert({
      reference: "RCLI2345", event_id: 2, kind: "individual", status: "paid", places: 1, package_code: "full", package_label: "Full Camp", list_price_cents: 29900,
      amount_cents: 29900, amount_paid_cents: 29900, contact_first_name: "Pat", contact_last_name: "Lee", contact_email: "pat@example.com", contact_phone: "205-555-0100",
      form_session_id: "cli-1", agreed_at: now, created_at: now, updated_at: now, paid_at: now,
    });
    await db("payments").insert({ kind: "registration", reference: "RCLI2345", provider: "stripe", provider_payment_id: "pi_cli_1", amount_cents: 29900, currency: "usd", status: "paid", paid_at: now, created_at: now, updated_at: now, live_key: "registration:RCLI2345" });
    await db.destroy();

    // The first run compiles the commands when the build is missing or older than the sources (src/cli/run.mjs);
    // the others, started with it, would each compile them too, all at once: they start once it is done.
    const first = await run("payments", ["--help"]);
    const answers = [
      first,
      ...(await Promise.all([
        run("refund", ["--help"]), run("resend", ["--help"]),
        run("payments", ["review", "accept", "x"]), run("refund", ["registration", "RCLI2345"]), run("resend", ["team", "R1"]),
        run("refund", ["registration", "RCLI2345", "--amount", "300.00", "--reason", "Too much"]),
        run("payments", ["review", "list"]),
      ])),
    ];
    expect(answers.slice(0, 3).map((a) => [a.code, a.stdout.split("\n")[1]])).toEqual([
      [0, "  npm run payments -- review list"],
      [0, '  npm run refund -- registration REFERENCE [--amount 25.00] --reason "..." [--wait SECONDS]'],
      [0, "  npm run resend -- registration REFERENCE"],
    ]);
    expect(answers.slice(3, 7).map((a) => ({ code: a.code, stdout: a.stdout, stderr: a.stderr }))).toEqual([
      { code: 1, stdout: "", stderr: "A payment id is a whole number, not x.\n" },
      { code: 1, stdout: "", stderr: 'Give the reason: --reason "..." (it is kept with the refund and sent to Stripe).\n' },
      { code: 1, stdout: "", stderr: "Unknown kind team: registration or order (see --help).\n" },
      { code: 1, stdout: "", stderr: "A refund of $300.00 is more than the $299.00 left to refund of registration RCLI2345 (paid $299.00): nothing was written.\n" },
    ]);
    expect(answers[7]).toMatchObject({ code: 0, stdout: "No payment waits for review.\n" });

    // No app runs on this database: the request is written and stays queued (exit 5); run again, it is the same request.
    const queued = await run("refund", ["registration", "rcli2345", "--amount", "25", "--reason", "Missed a day", "--wait", "0"]);
    expect(queued).toMatchObject({ code: 5, stderr: "" });
    expect(queued.stdout.split("\n")[0]).toBe("Requested refund 1 of $25.00 (registration RCLI2345, payment 1).");
    const again = await run("refund", ["registration", "RCLI2345", "--amount", "25.00", "--reason", "Missed a day", "--wait", "0"]);
    expect(again.stdout.split("\n")[0]).toBe("The same refund was asked for before: refund 1 of $25.00 (registration RCLI2345, payment 1); nothing more is refunded.");
    const check = createDb({ client: "better-sqlite3", filename: file });
    expect(await check("payment_refunds").select("amount_cents", "status", "send_status")).toEqual([{ amount_cents: 2500, status: "requested", send_status: "pending" }]);
    await check.destroy();
  });
});
