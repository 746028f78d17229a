import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { DISCOUNT_REASONS, DISCOUNT_TEXT, appliedMessage, discountAmount, normalizeCode, refusal, type DiscountCode } from "../../src/shared/discounts/rules.ts";
import { parseDiscountArgs } from "../../src/cli/discountArgs.ts";

const code = (over: Partial<DiscountCode> = {}): DiscountCode => ({
  id: 1,
  code: "SUMMER10",
  type: "percent",
  value: 10,
  eventId: null,
  kind: "both",
  maxRedemptions: null,
  startsAt: null,
  expiresAt: null,
  active: true,
  ...over,
});
const now = new Date("2027-05-01T12:00:00Z");
const ctx = { eventId: 2, kind: "individual" as const, now, usesTaken: 0 };

describe("discount amounts in cents", () => {
  it("takes 10% off the 3-day National Champ Camp: $269.10, saved $29.90", () => {
    const amount = discountAmount(29900, code());
    expect(amount).toEqual({ offCents: 2990, finalCents: 26910, free: false });
    expect(appliedMessage(amount)).toEqual({ title: "Discount Applied", message: "New total: $269.10 (saved $29.90)" });
  });

  it("rounds a percentage to the nearest cent, half a cent to the payer", () => {
    expect(discountAmount(14999, code({ value: 15 })).offCents).toBe(2250); // 2249.85
    expect(discountAmount(11900, code({ value: 33 })).offCents).toBe(3927); // exactly 3927
    expect(discountAmount(150, code({ value: 33 })).offCents).toBe(50); // 49.5 rounds up
    expect(discountAmount(149, code({ value: 33 })).offCents).toBe(49); // 49.17
  });

  it("takes a fixed amount off, never more than the price", () => {
    expect(discountAmount(24900, code({ type: "fixed", value: 2500 }))).toEqual({ offCents: 2500, finalCents: 22400, free: false });
    expect(discountAmount(9900, code({ type: "fixed", value: 20000 }))).toEqual({ offCents: 9900, finalCents: 0, free: true });
  });

  it("makes 100% free", () => {
    const amount = discountAmount(29900, code({ value: 100 }));
    expect(amount).toEqual({ offCents: 29900, finalCents: 0, free: true });
    expect(appliedMessage(amount)).toEqual({ title: "100% Discount Applied", message: "Your registration is free! Complete your registration below." });
  });

  it("treats $0.01 to $0.49 left to pay as free (Stripe's minimum charge is $0.50), and $0.50 as payable", () => {
    expect(discountAmount(24900, code({ type: "fixed", value: 24851 }))).toEqual({ offCents: 24900, finalCents: 0, free: true }); // $0.49 left
    expect(discountAmount(24900, code({ type: "fixed", value: 24899 }))).toEqual({ offCents: 24900, finalCents: 0, free: true }); // $0.01 left
    expect(discountAmount(24900, code({ type: "fixed", value: 24850 }))).toEqual({ offCents: 24850, finalCents: 50, free: false }); // $0.50 left
    expect(discountAmount(4000, code({ value: 99 }))).toEqual({ offCents: 4000, finalCents: 0, free: true }); // 40 cents left
  });

  it("always ends at 0 or at least 50 cents, never more off than the price, for any price and code", () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 10_000_000 }), fc.boolean(), fc.integer({ min: 1, max: 100 }), fc.integer({ min: 1, max: 20_000_000 }), (list, percent, pct, fixed) => {
        const a = discountAmount(list, percent ? { type: "percent", value: pct } : { type: "fixed", value: fixed });
        expect(a.offCents + a.finalCents).toBe(list);
        expect(a.offCents).toBeGreaterThanOrEqual(0);
        expect(a.finalCents === 0 || a.finalCents >= 50).toBe(true);
        expect(a.free).toBe(a.finalCents === 0);
        expect(Number.isInteger(a.offCents)).toBe(true);
      }),
    );
  });

  it("formats the messages to 2 decimals", () => {
    expect(DISCOUNT_TEXT.applied(26910, 2990)).toBe("New total: $269.10 (saved $29.90)");
    expect(DISCOUNT_TEXT.applied(22400, 2500)).toBe("New total: $224.00 (saved $25.00)");
  });
});

describe("when a code can be used", () => {
  it("accepts a valid code", () => {
    expect(refusal(code(), ctx)).toBeNull();
  });

  it("refuses a deactivated code", () => {
    expect(refusal(code({ active: false }), ctx)).toBe(DISCOUNT_REASONS.inactive);
  });

  it("applies the window: from starts_at, until (not at) expires_at", () => {
    expect(refusal(code({ expiresAt: new Date("2027-05-01T12:00:00Z") }), ctx)).toBe("This discount code has expired.");
    expect(refusal(code({ expiresAt: new Date("2027-05-01T12:00:01Z") }), ctx)).toBeNull();
    expect(refusal(code({ startsAt: new Date("2027-05-02T00:00:00Z") }), ctx)).toBe("This discount code is not valid yet. It can be used from 2027-05-02.");
    expect(refusal(code({ startsAt: new Date("2027-05-01T12:00:00Z") }), ctx)).toBeNull();
  });

  it("applies the limit: held and redeemed uses count", () => {
    expect(refusal(code({ maxRedemptions: 10 }), { ...ctx, usesTaken: 9 })).toBeNull();
    expect(refusal(code({ maxRedemptions: 10 }), { ...ctx, usesTaken: 10 })).toBe("This discount code has been used up.");
    expect(refusal(code({ maxRedemptions: 1 }), { ...ctx, usesTaken: 1 })).toBe("This discount code has been used up.");
  });

  it("checks the event and the kind of registration", () => {
    expect(refusal(code({ eventId: 1 }), ctx)).toBe("This discount code is not valid for this event.");
    expect(refusal(code({ eventId: 2 }), ctx)).toBeNull();
    expect(refusal(code({ kind: "team" }), ctx)).toBe("This discount code is for team registrations only.");
    expect(refusal(code({ kind: "individual" }), { ...ctx, kind: "team" })).toBe("This discount code is for individual registrations only.");
    expect(refusal(code({ kind: "individual" }), ctx)).toBeNull();
  });

  it("compares codes without regard to case or spaces", () => {
    expect(normalizeCode("  summer10 ")).toBe("SUMMER10");
  });
});

describe("npm run discount arguments", () => {
  const at = new Date("2026-11-22T10:00:00Z");
  it("reads create with percent, max, expiry, event and kind", () => {
    expect(parseDiscountArgs(["create", "summer10", "--percent", "10", "--max", "50", "--expires", "2027-06-01", "--event", "2", "--for", "team"], at)).toEqual({
      command: "create",
      code: { code: "SUMMER10", type: "percent", value: 10, maxRedemptions: 50, expiresAt: new Date("2027-06-02T00:00:00Z"), startsAt: null, eventId: 2, kind: "team" },
    });
    expect(parseDiscountArgs(["create", "CAMP25", "--fixed", "25"], at)).toMatchObject({ command: "create", code: { type: "fixed", value: 2500, kind: "both", maxRedemptions: null, eventId: null } });
    expect(parseDiscountArgs(["create", "HALF", "--fixed", "12.50", "--starts", "2027-01-01"], at)).toMatchObject({ code: { value: 1250, startsAt: new Date("2027-01-01T00:00:00Z") } });
    expect(parseDiscountArgs(["list"], at)).toEqual({ command: "list" });
    expect(parseDiscountArgs(["deactivate", "summer10"], at)).toEqual({ command: "deactivate", code: "SUMMER10" });
  });

  it("refuses bad input with a clear message", () => {
    const bad = (args: string[]) => {
      const r = parseDiscountArgs(args, at);
      return "error" in r ? r.error : "accepted";
    };
    expect(bad([])).toMatch(/Usage/);
    expect(bad(["create"])).toMatch(/code/i);
    expect(bad(["create", "X10"])).toBe("Give either --percent or --fixed.");
    expect(bad(["create", "X10", "--percent", "10", "--fixed", "5"])).toBe("Give either --percent or --fixed, not both.");
    expect(bad(["create", "X10", "--percent", "0"])).toBe("--percent must be a whole number from 1 to 100.");
    expect(bad(["create", "X10", "--percent", "101"])).toBe("--percent must be a whole number from 1 to 100.");
    expect(bad(["create", "X10", "--percent", "12.5"])).toBe("--percent must be a whole number from 1 to 100.");
    expect(bad(["create", "X10", "--fixed", "-5"])).toBe("--fixed must be a dollar amount above 0, like 25 or 12.50.");
    expect(bad(["create", "X10", "--fixed", "1.234"])).toBe("--fixed must be a dollar amount above 0, like 25 or 12.50.");
    expect(bad(["create", "X10", "--percent", "10", "--max", "0"])).toBe("--max must be a whole number of at least 1.");
    expect(bad(["create", "X10", "--percent", "10", "--expires", "June"])).toBe("--expires must be a date like 2027-06-01.");
    expect(bad(["create", "X10", "--percent", "10", "--expires", "2026-11-01"])).toBe("--expires is in the past.");
    expect(bad(["create", "X10", "--percent", "10", "--starts", "2027-07-01", "--expires", "2027-06-01"])).toBe("--starts must be before --expires.");
    expect(bad(["create", "X10", "--percent", "10", "--for", "coaches"])).toBe("--for must be individual, team or both.");
    expect(bad(["create", "X10", "--percent", "10", "--event", "two"])).toBe("--event must be an event id, like 2.");
    expect(bad(["create", "X 10", "--percent", "10"])).toBe("A code has 3 to 40 letters, digits, - or _.");
    expect(bad(["create", "X10", "--percent", "10", "--colour", "red"])).toBe("Unknown option --colour.");
    expect(bad(["create", "X10", "--percent"])).toBe("--percent needs a value.");
    expect(bad(["deactivate"])).toMatch(/code/i);
    expect(bad(["delete", "X10"])).toMatch(/Usage/);
  });
});
