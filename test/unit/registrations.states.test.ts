import { describe, expect, it } from "vitest";
import { canTransition, CHANGE_STATUSES, CHANGE_TRANSITIONS, isFrozenPayment, isSettled, REGISTRATION_STATUSES, REGISTRATION_TRANSITIONS } from "../../src/registrations/core/states.ts";
import { ORDER_TRANSITIONS } from "../../src/orders/states.ts";

describe("the registration state table", () => {
  it("moves only from the statuses each step names, into statuses that exist", () => {
    for (const [step, { from, to }] of Object.entries(REGISTRATION_TRANSITIONS)) {
      expect(REGISTRATION_STATUSES, step).toContain(to);
      for (const status of from) expect(REGISTRATION_STATUSES, step).toContain(status);
    }
  });

  it("never rewrites a settled registration: a paid, reviewed or refunded one cannot be held again or paid twice", () => {
    for (const status of ["paid", "needs_review", "refunded", "withdrawn"] as const) {
      expect(isSettled(status)).toBe(true);
      expect(canTransition(status, "hold"), status).toBe(false);
      expect(canTransition(status, "pay"), status).toBe(false);
    }
    expect(canTransition("pending_payment", "hold")).toBe(true);
    expect(canTransition("expired", "hold")).toBe(true);
  });

  it("a late payment on a lapsed hold is paid or refunded; a payment in review leaves it by a refund or an operator's accept", () => {
    expect(canTransition("expired", "pay")).toBe(true);
    expect(canTransition("canceled", "refund")).toBe(true);
    expect(canTransition("needs_review", "pay")).toBe(false);
    expect(canTransition("needs_review", "refund")).toBe(true);
    expect(canTransition("needs_review", "acceptReview")).toBe(true);
    for (const status of ["pending_payment", "paid", "expired", "canceled", "refunded"] as const) expect(canTransition(status, "acceptReview"), status).toBe(false);
    expect(canTransition("refunded", "refund")).toBe(false);
  });

  it("a deposit plan: deposit paid, then the balance (on time, or after it was overdue), or released after its grace date", () => {
    for (const status of ["pending_payment", "expired", "canceled"] as const) expect(canTransition(status, "payDeposit"), status).toBe(true);
    expect(canTransition("deposit_paid", "payDeposit")).toBe(false);
    expect(canTransition("deposit_paid", "payBalance")).toBe(true);
    expect(canTransition("balance_overdue", "payBalance")).toBe(true);
    expect(canTransition("paid", "payBalance")).toBe(false);
    expect(canTransition("deposit_paid", "balanceOverdue")).toBe(true);
    expect(canTransition("balance_overdue", "releaseOverdue")).toBe(true);
    expect(canTransition("deposit_paid", "releaseOverdue")).toBe(false);
    expect(canTransition("deposit_paid", "withdraw")).toBe(true);
    for (const status of ["deposit_paid", "balance_overdue"] as const) {
      expect(isSettled(status), status).toBe(true);
      expect(canTransition(status, "hold"), status).toBe(false);
      expect(canTransition(status, "pay"), status).toBe(false);
    }
  });

  it("freezes on a confirmation Stripe has begun", () => {
    for (const status of ["processing", "requires_capture", "succeeded"]) expect(isFrozenPayment(status), status).toBe(true);
    for (const status of ["requires_payment_method", "requires_confirmation", "requires_action", "canceled"]) expect(isFrozenPayment(status), status).toBe(false);
  });
});

describe("the change and order state tables", () => {
  it("moves a change only from the statuses each step names, and never out of paid or rejected", () => {
    for (const [step, { from, to }] of Object.entries(CHANGE_TRANSITIONS)) {
      expect(CHANGE_STATUSES, step).toContain(to);
      for (const status of from) expect(CHANGE_STATUSES, step).toContain(status);
      expect(from, step).not.toContain("paid");
      expect(from, step).not.toContain("rejected");
    }
    // Only a pending change lapses or is let go; a late payment still applies to a lapsed or cancelled one.
    expect(CHANGE_TRANSITIONS.expire.from).toEqual(["pending"]);
    expect(CHANGE_TRANSITIONS.cancel.from).toEqual(["pending"]);
    expect(CHANGE_TRANSITIONS.pay.from).toEqual(expect.arrayContaining(["expired", "cancelled", "needs_review"]));
  });

  it("pays an order once, a canceled one too (its money is never dropped), and cancels only an unpaid one", () => {
    expect(ORDER_TRANSITIONS.pay.from).not.toContain("paid");
    expect(ORDER_TRANSITIONS.pay.from).toContain("canceled");
    expect(ORDER_TRANSITIONS.cancel.from).toEqual(["pending_payment"]);
  });
});
