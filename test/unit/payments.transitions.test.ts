import { describe, expect, it } from "vitest";
import { isLive, judgeIntent, OPEN_STATUSES, PAYMENT_STATUSES, TRANSITIONS, type PaymentFacts } from "../../src/payments/transitions.ts";
import type { IntentSnapshot } from "../../src/payments/gateway.ts";
import { luhnValid, testCardOutcome } from "../../src/payments/offline/testCards.ts";
import { parseStripeForm } from "../../src/payments/offline/fakeStripeServer.ts";

const payment: PaymentFacts = { kind: "order", reference: "ABCD2345", amountCents: 12400, currency: "usd", status: "pending" };
const intent = (over: Partial<IntentSnapshot> = {}): IntentSnapshot => ({
  id: "pi_1",
  status: "succeeded",
  amountCents: 12400,
  currency: "usd",
  metadata: { kind: "order", reference: "ABCD2345" },
  clientSecret: null,
  lastErrorMessage: null,
  description: null,
  receiptEmail: null,
  paymentMethodId: null,
  customerId: null,
  setupFutureUsage: null,
  lastErrorCode: null,
  lastDeclineCode: null,
  ...over,
});

describe("payment transitions", () => {
  it("pays only a succeeded intent whose amount, currency and metadata match; a succeeded mismatch goes to review", () => {
    expect(judgeIntent(payment, intent())).toEqual({ outcome: "pay" });
    expect(judgeIntent(payment, intent({ currency: "USD" }))).toEqual({ outcome: "pay" });
    const overs: Partial<IntentSnapshot>[] = [{ amountCents: 100 }, { currency: "eur" }, { metadata: { kind: "registration", reference: "ABCD2345" } }, { metadata: { kind: "order", reference: "OTHER" } }, { metadata: {} }];
    for (const over of overs) {
      expect(judgeIntent(payment, intent(over)).outcome).toBe("review");
      expect(judgeIntent(payment, intent({ ...over, status: "requires_payment_method" })).outcome).toBe("mismatch");
    }
  });

  it("checks the kind's own amount as well as the payment row's", () => {
    expect(judgeIntent(payment, intent(), { amountCents: 12400 })).toEqual({ outcome: "pay" });
    expect(judgeIntent(payment, intent(), { amountCents: 9900 })).toEqual({ outcome: "review", reason: "amount 12400 is not the order's 9900" });
  });

  it("checks the version of the row the intent's amount was made for (a same-price change of days still goes to review)", () => {
    const made = { ...payment, coversVersion: 3 };
    expect(judgeIntent(made, intent(), { amountCents: 12400, version: 3 })).toEqual({ outcome: "pay" });
    expect(judgeIntent(made, intent(), { amountCents: 12400, version: 4 })).toEqual({ outcome: "review", reason: "made for version 3 of the order, which is now version 4" });
    // Rows from before versions were recorded, and kinds without versions, are judged on the amount alone.
    expect(judgeIntent({ ...payment, coversVersion: null }, intent(), { amountCents: 12400, version: 4 })).toEqual({ outcome: "pay" });
    expect(judgeIntent(made, intent(), { amountCents: 12400 })).toEqual({ outcome: "pay" });
  });

  it("never moves a settled row, and sends money on a canceled payment to review", () => {
    for (const status of ["paid", "needs_review", "refund_pending", "refunded"] as const) {
      expect(judgeIntent({ ...payment, status }, intent())).toEqual({ outcome: "settled" });
      expect(judgeIntent({ ...payment, status }, intent({ status: "requires_payment_method", lastErrorMessage: "declined" }))).toEqual({ outcome: "settled" });
    }
    expect(judgeIntent({ ...payment, status: "canceled" }, intent()).outcome).toBe("review");
    expect(judgeIntent({ ...payment, status: "canceled" }, intent({ status: "canceled" }))).toEqual({ outcome: "settled" });
  });

  it("records a declined attempt, a canceled intent, and leaves an open one alone", () => {
    expect(judgeIntent(payment, intent({ status: "requires_payment_method", lastErrorMessage: "Your card was declined." }))).toEqual({ outcome: "decline", message: "Your card was declined." });
    expect(judgeIntent({ ...payment, status: "failed" }, intent())).toEqual({ outcome: "pay" });
    expect(judgeIntent(payment, intent({ status: "canceled" }))).toEqual({ outcome: "cancel" });
    for (const status of ["requires_payment_method", "requires_confirmation", "processing", "requires_action"]) {
      expect(judgeIntent(payment, intent({ status }))).toEqual({ outcome: "open", intentStatus: status });
    }
  });

  it("is one table: every step goes between known statuses, paid is reached only from open ones (by an operator from needs_review, and back from refunded when Stripe fails a refund), and the live slot follows", () => {
    for (const { from, to } of Object.values(TRANSITIONS)) {
      for (const s of [...from, to]) expect(PAYMENT_STATUSES).toContain(s);
    }
    const { acceptReview, refundReversed, ...others } = TRANSITIONS;
    const intoPaid = Object.values(others).filter((t) => t.to === "paid");
    expect(intoPaid.flatMap((t) => t.from)).toEqual([...OPEN_STATUSES]);
    expect(acceptReview).toEqual({ from: ["needs_review"], to: "paid" });
    expect(refundReversed).toEqual({ from: ["refunded"], to: "paid" });
    expect(PAYMENT_STATUSES.filter((s) => !isLive(s))).toEqual(["refunded", "canceled"]);
  });
});

describe("offline Stripe test cards", () => {
  it("follows Stripe's test cards", () => {
    expect(testCardOutcome("4242 4242 4242 4242")).toBeNull();
    expect(testCardOutcome("4000000000000002")).toMatchObject({ code: "card_declined", declineCode: "generic_decline", message: "Your card was declined." });
    expect(testCardOutcome("4000000000009995")).toMatchObject({ declineCode: "insufficient_funds", message: "Your card has insufficient funds." });
    expect(testCardOutcome("4242424242424241")).toMatchObject({ code: "incorrect_number" });
    expect(testCardOutcome("4111111111111111")!.message).toContain("non test card");
    expect(luhnValid("4242424242424242")).toBe(true);
    expect(luhnValid("1234")).toBe(false);
  });

  it("reads Stripe's form encoding", () => {
    expect(parseStripeForm("amount=100&metadata[kind]=order&metadata[reference]=AB&allowed_payment_method_types[0]=card")).toEqual({
      amount: "100",
      metadata: { kind: "order", reference: "AB" },
      allowed_payment_method_types: { "0": "card" },
    });
  });
});
