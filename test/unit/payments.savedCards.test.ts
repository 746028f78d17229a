import { afterEach, describe, expect, it } from "vitest";
import { HARD_DECLINES, isHardDecline, needsAuthentication } from "../../src/payments/savedCards.ts";
import { authenticationOf, setupOutcome, testCardOutcome, testPaymentMethodCard } from "../../src/payments/offline/testCards.ts";
import { ClockRefusedError, currentOffsetMs, moveClock, now, parseDuration, resetClock } from "../../src/clock.ts";

describe("decline classification (hard: the same card cannot go through later)", () => {
  it.each(["lost_card", "stolen_card", "pickup_card", "fraudulent", "restricted_card", "expired_card", "incorrect_number", "invalid_account", "card_not_supported"])(
    "%s is hard, as a decline_code of card_declined",
    (declineCode) => {
      expect(isHardDecline("card_declined", declineCode)).toBe(true);
    },
  );

  it("a hard code without a decline_code (expired_card, incorrect_number) is hard", () => {
    expect(isHardDecline("expired_card", null)).toBe(true);
    expect(isHardDecline("incorrect_number", null)).toBe(true);
  });

  it.each(["insufficient_funds", "generic_decline", "do_not_honor", "try_again_later", "card_velocity_exceeded", "processing_error", "unknown_new_code"])("%s is soft", (declineCode) => {
    expect(isHardDecline("card_declined", declineCode)).toBe(false);
  });

  it("soft without a decline_code: processing_error, incorrect_cvc", () => {
    expect(isHardDecline("processing_error", null)).toBe(false);
    expect(isHardDecline("incorrect_cvc", null)).toBe(false);
  });

  it("has exactly the contract's nine hard codes", () => {
    expect(HARD_DECLINES.size).toBe(9);
    expect(HARD_DECLINES.has("do_not_honor")).toBe(false);
  });

  it("authentication_required is neither: the customer is brought back on session", () => {
    expect(needsAuthentication("authentication_required", "authentication_required")).toBe(true);
    expect(needsAuthentication("card_declined", "authentication_required")).toBe(true);
    expect(needsAuthentication("card_declined", "insufficient_funds")).toBe(false);
  });
});

describe("the offline fake's saved-card test cards", () => {
  it("4242 succeeds; 0341 and 9995 are saved by a SetupIntent but their charges decline", () => {
    expect(testCardOutcome("4242424242424242")).toBeNull();
    expect(testCardOutcome("4000000000000341")).toMatchObject({ code: "card_declined", declineCode: "generic_decline" });
    expect(testCardOutcome("4000000000009995")).toMatchObject({ code: "card_declined", declineCode: "insufficient_funds" });
    expect(setupOutcome("4000000000000341")).toBeNull();
    expect(setupOutcome("4000000000009995")).toBeNull();
    expect(setupOutcome("4000000000000002")).toMatchObject({ code: "card_declined" });
  });

  it("3184 always asks for 3-D Secure, 3155 only until it is set up, 4242 never", () => {
    expect(authenticationOf("4000 0027 6000 3184")).toBe("always");
    expect(authenticationOf("4000002500003155")).toBe("unless_set_up");
    expect(authenticationOf("4242424242424242")).toBe("none");
  });

  it("Stripe's test payment method ids name their cards; other ids are not test cards", () => {
    expect(testPaymentMethodCard("pm_card_authenticationRequired")).toBe("4000002760003184");
    expect(testPaymentMethodCard("pm_card_chargeCustomerFail")).toBe("4000000000000341");
    expect(testPaymentMethodCard("toString")).toBeUndefined();
    expect(testPaymentMethodCard("pm_123")).toBeUndefined();
  });
});

describe("the clock", () => {
  const env = { ...process.env };
  afterEach(() => {
    process.env = { ...env };
    resetClock();
  });

  it("reads durations forward: 14d, 36h, 2w, 90m; anything else is refused", () => {
    expect(parseDuration("14d")).toBe(14 * 86_400_000);
    expect(parseDuration("36h")).toBe(36 * 3_600_000);
    expect(parseDuration("2w")).toBe(14 * 86_400_000);
    expect(parseDuration("90m")).toBe(90 * 60_000);
    for (const bad of ["-1d", "14", "d", "1.5d", "14 days", ""]) expect(parseDuration(bad)).toBeUndefined();
  });

  it("moves forward and back to the real time", () => {
    const before = Date.now();
    moveClock(14 * 86_400_000);
    expect(currentOffsetMs()).toBe(14 * 86_400_000);
    expect(now().getTime()).toBeGreaterThanOrEqual(before + 14 * 86_400_000);
    resetClock();
    expect(now().getTime()).toBeLessThan(before + 86_400_000);
  });

  it("never moves backwards, in production or with live Stripe keys", () => {
    expect(() => moveClock(-1)).toThrow(ClockRefusedError);
    process.env.NODE_ENV = "production";
    expect(() => moveClock(1000)).toThrow(/production/);
    process.env.NODE_ENV = "test";
    process.env.STRIPE_SECRET_KEY = "sk_live_abc";
    expect(() => moveClock(1000)).toThrow(/live Stripe keys/);
    expect(currentOffsetMs()).toBe(0);
  });
});
