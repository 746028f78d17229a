import { describe, expect, it } from "vitest";
import { DomainError, type DiscountRefusalReason } from "../../src/errors.ts";
import { domainErrorStatus } from "../../src/http/errors.ts";
import { DiscountRefused } from "../../src/registrations/core/money/codes.ts";

describe("refusals by reason", () => {
  it("a refused discount code takes its status from the one table, by its reason", () => {
    const expected: Record<DiscountRefusalReason, number> = {
      discount_missing: 400,
      discount_too_long: 422,
      discount_unknown: 422,
      discount_not_usable: 422,
      discount_not_free: 422,
      discount_no_registration: 409,
      discount_payment_under_way: 409,
      discount_free_failed: 409,
    };
    for (const [reason, status] of Object.entries(expected) as [DiscountRefusalReason, number][]) {
      const err = new DiscountRefused(reason, "words that may change");
      expect(err, reason).toBeInstanceOf(DomainError);
      expect(err.reason).toBe(reason);
      expect(domainErrorStatus(err), reason).toBe(status);
      expect("status" in err, "no status of its own").toBe(false);
    }
  });

  it("a refusal keeps its reason beside its kind", () => {
    const err = new DomainError("conflict", "This event is sold out.", "sold_out");
    expect([err.kind, err.reason, domainErrorStatus(err)]).toEqual(["conflict", "sold_out", 409]);
    expect(new DomainError("invalid", "Bad").reason).toBeUndefined();
  });
});
