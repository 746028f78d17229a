import { describe, expect, it } from "vitest";
import {
  balanceDueAt, cardConsentText, DEPOSIT_TEXT, depositCoversPrice, depositPlan, MIN_DAYS_BEFORE_DUE, NO_DEPOSIT, parsePaymentPlan, type DepositPolicy,
} from "../../src/shared/registrations/deposits.ts";

const fixed75: DepositPolicy = { kind: "fixed", value: 7500, balanceDueDays: 14, balanceGraceDays: 7 };
const percent25: DepositPolicy = { kind: "percent", value: 25, balanceDueDays: 14, balanceGraceDays: 7 };
const champCamp = { date: "2027-06-05", timeZone: "America/Los_Angeles" };
const early = new Date("2027-01-10T12:00:00Z");

describe("deposit plans", () => {
  it("a fixed deposit is per athlete, the balance the rest, due 14 days before the first day at 00:00 in the event's zone", () => {
    const plan = depositPlan(fixed75, 29900, 1, champCamp, early)!;
    expect(plan).toEqual({ todayCents: 7500, balanceCents: 22400, dueAt: new Date("2027-05-22T07:00:00Z") });
    expect(depositPlan(fixed75, 199 * 100 * 6, 6, champCamp, early)).toMatchObject({ todayCents: 45000, balanceCents: 119400 - 45000 });
  });

  it("a percentage deposit is rounded to whole dollars per athlete", () => {
    expect(depositPlan(percent25, 29900, 1, champCamp, early)).toMatchObject({ todayCents: 7500, balanceCents: 22400 }); // 74.75 -> 75
    expect(depositPlan(percent25, 9900, 1, champCamp, early)).toMatchObject({ todayCents: 2500 }); // 24.75 -> 25
    expect(depositPlan(percent25, 19900 * 10, 10, champCamp, early)).toMatchObject({ todayCents: 50000, balanceCents: 199000 - 50000 });
    expect(depositPlan({ ...percent25, value: 10 }, 11900, 1, champCamp, early)).toMatchObject({ todayCents: 1200 }); // 11.90 -> 12
  });

  it("a deposit that would be the whole price or more (a code brought the price down) covers it: paid in full, not refused", () => {
    expect(depositCoversPrice(fixed75, 7500, 1, champCamp, early)).toBe(true);
    expect(depositCoversPrice(fixed75, 6900, 1, champCamp, early)).toBe(true);
    expect(depositCoversPrice(fixed75, 7600, 1, champCamp, early)).toBe(false);
    // No deposit offered at all, or too close to the due date: the real refusal, 'no longer offered'.
    expect(depositCoversPrice(NO_DEPOSIT, 6900, 1, champCamp, early)).toBe(false);
    expect(depositCoversPrice(fixed75, 6900, 1, champCamp, new Date("2027-05-20T12:00:00Z"))).toBe(false);
    expect(DEPOSIT_TEXT.coveredByCode(6900, 7500)).toBe("With this code the price, $69.00, is no more than the $75.00 deposit: it is paid in full today, and nothing is owed later.");
  });

  it("never more than the price: a deposit that would be the whole price is no plan", () => {
    expect(depositPlan(fixed75, 7500, 1, champCamp, early)).toBeNull();
    expect(depositPlan(fixed75, 5000, 1, champCamp, early)).toBeNull();
    expect(depositPlan({ ...percent25, value: 100 }, 29900, 1, champCamp, early)).toBeNull();
    expect(depositPlan(fixed75, 7600, 1, champCamp, early)).toMatchObject({ todayCents: 7500, balanceCents: 100 });
  });

  it("no policy, a free registration or no athletes: no plan", () => {
    expect(depositPlan(NO_DEPOSIT, 29900, 1, champCamp, early)).toBeNull();
    expect(depositPlan({ ...fixed75, value: 0 }, 29900, 1, champCamp, early)).toBeNull();
    expect(depositPlan(fixed75, 0, 1, champCamp, early)).toBeNull();
    expect(depositPlan(fixed75, 29900, 0, champCamp, early)).toBeNull();
  });

  it(`offered only while the due date is at least ${MIN_DAYS_BEFORE_DUE} days away`, () => {
    const due = balanceDueAt(fixed75, champCamp);
    const lastMoment = new Date(due.getTime() - MIN_DAYS_BEFORE_DUE * 86_400_000);
    expect(depositPlan(fixed75, 29900, 1, champCamp, lastMoment)).not.toBeNull();
    expect(depositPlan(fixed75, 29900, 1, champCamp, new Date(lastMoment.getTime() + 1))).toBeNull();
    expect(depositPlan(fixed75, 29900, 1, champCamp, new Date(due.getTime() + 1))).toBeNull();
  });

  it("the due date counts calendar days in the event's zone, across a daylight-saving change", () => {
    expect(balanceDueAt({ balanceDueDays: 14 }, { date: "2027-03-20", timeZone: "America/Chicago" })).toEqual(new Date("2027-03-06T06:00:00Z"));
    expect(balanceDueAt({ balanceDueDays: 0 }, { date: "2027-06-19", timeZone: "America/Chicago" })).toEqual(new Date("2027-06-19T05:00:00Z"));
  });

  it("says both plans and the consent with the amount and the date", () => {
    const plan = depositPlan(fixed75, 29900, 1, champCamp, early)!;
    expect(DEPOSIT_TEXT.payDeposit(plan, champCamp.timeZone)).toBe("Pay today $75.00, then $224.00 on May 22, 2027");
    expect(DEPOSIT_TEXT.payInFull(29900)).toBe("Pay in full $299.00");
    expect(cardConsentText("Ironside", plan, champCamp.timeZone)).toMatch(/^I authorize Ironside to save this card and charge it for the remaining balance of \$224\.00 on May 22, 2027/);
  });

  it("reads the posted plan: absent is full, anything but full or deposit is refused", () => {
    expect(parsePaymentPlan(undefined)).toBe("full");
    expect(parsePaymentPlan("")).toBe("full");
    expect(parsePaymentPlan("deposit")).toBe("deposit");
    expect(parsePaymentPlan("full")).toBe("full");
    expect(parsePaymentPlan("later")).toBeNull();
    expect(parsePaymentPlan(["deposit"])).toBeNull();
  });
});
