import { describe, expect, it } from "vitest";
import { judgeIntent, nextStatus, PAYABLE_STATUSES, type PaymentFacts, type PaymentStatus } from "../../src/payments/stateMachine.ts";
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
  ...over,
});

describe("payment state machine", () => {
  it("marks paid only a succeeded intent whose amount, currency and metadata match", () => {
    expect(judgeIntent(payment, intent())).toEqual({ outcome: "mark_paid" });
    expect(judgeIntent(payment, intent({ amountCents: 100 })).outcome).toBe("mismatch");
    expect(judgeIntent(payment, intent({ currency: "eur" })).outcome).toBe("mismatch");
    expect(judgeIntent(payment, intent({ metadata: { kind: "registration", reference: "ABCD2345" } })).outcome).toBe("mismatch");
    expect(judgeIntent(payment, intent({ metadata: { kind: "order", reference: "OTHER" } })).outcome).toBe("mismatch");
    expect(judgeIntent(payment, intent({ metadata: {} })).outcome).toBe("mismatch");
    expect(judgeIntent(payment, intent({ currency: "USD" }))).toEqual({ outcome: "mark_paid" });
  });

  it("is paid once: a paid row never changes again", () => {
    const paid = { ...payment, status: "paid" as const };
    expect(judgeIntent(paid, intent())).toEqual({ outcome: "already_paid" });
    expect(judgeIntent(paid, intent({ status: "requires_payment_method", lastErrorMessage: "declined" }))).toEqual({ outcome: "already_paid" });
    for (const v of [{ outcome: "mark_paid" as const }, { outcome: "failed" as const, message: "x" }]) expect(nextStatus("paid", v)).toBeNull();
    expect(PAYABLE_STATUSES).not.toContain("paid");
  });

  it("records a declined attempt as failed, which a later success still turns into paid", () => {
    const declined = judgeIntent(payment, intent({ status: "requires_payment_method", lastErrorMessage: "Your card was declined." }));
    expect(declined).toEqual({ outcome: "failed", message: "Your card was declined." });
    expect(nextStatus("pending", declined)).toBe("failed");
    expect(nextStatus("failed", { outcome: "mark_paid" })).toBe("paid");
    expect(nextStatus("canceled", { outcome: "mark_paid" })).toBe("paid");
    expect(nextStatus("canceled", declined)).toBeNull();
  });

  it("leaves a row alone while the intent is still open", () => {
    for (const status of ["requires_payment_method", "requires_confirmation", "processing", "requires_action"]) {
      const v = judgeIntent(payment, intent({ status }));
      expect(v).toEqual({ outcome: "not_paid", intentStatus: status });
      for (const s of ["pending", "failed"] as PaymentStatus[]) expect(nextStatus(s, v)).toBeNull();
    }
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
