import { describe, expect, it } from "vitest";
import { refundableCents, refundedCents, type RefundRow, type RefundStatus } from "../../src/payments/refundLedger.ts";

const row = (amountCents: number, status: RefundStatus): RefundRow => ({
  id: 1,
  paymentId: 1,
  amountCents,
  reason: "r",
  requestKey: `k${amountCents}${status}`,
  status,
  providerRefundId: null,
  failureReason: null,
  createdAt: new Date(),
  updatedAt: new Date(),
});

describe("refund amounts", () => {
  it("what is left counts refunds asked for, under way and done, but not failed or canceled ones", () => {
    const rows = [row(1000, "requested"), row(500, "pending"), row(700, "succeeded"), row(900, "failed"), row(300, "canceled")];
    expect(refundableCents(5000, rows)).toBe(5000 - 1000 - 500 - 700);
    expect(refundableCents(2000, rows)).toBe(0);
    expect(refundableCents(5000, [])).toBe(5000);
  });

  it("what is refunded is only what succeeded", () => {
    expect(refundedCents([row(1000, "requested"), row(500, "pending"), row(700, "succeeded"), row(900, "failed"), row(200, "succeeded")])).toBe(900);
  });
});
