import { describe, expect, it } from "vitest";
import { cardExpiresBefore, cardText, graceEndsAt, MAX_ATTEMPTS, nextAttemptAt, reminderDue } from "../../src/registrations/balances/schedule.ts";

const DAY = 86_400_000;
const due = new Date("2027-05-22T07:00:00Z");

describe("the balance's calendar", () => {
  it("tries a soft decline again 1, 3 and 7 days after the due date, 4 attempts in all, never within 12 hours of the last", () => {
    expect(MAX_ATTEMPTS).toBe(4);
    const soon = new Date(due.getTime() + 5_000);
    expect(nextAttemptAt(due, 1, soon)).toEqual(new Date(due.getTime() + DAY));
    expect(nextAttemptAt(due, 2, new Date(due.getTime() + DAY + 5_000))).toEqual(new Date(due.getTime() + 3 * DAY));
    expect(nextAttemptAt(due, 3, new Date(due.getTime() + 3 * DAY))).toEqual(new Date(due.getTime() + 7 * DAY));
    expect(nextAttemptAt(due, 4, new Date(due.getTime() + 7 * DAY))).toBeNull();
    // A job that was down for 5 days: the first attempt then, the next half a day later, not at once.
    const late = new Date(due.getTime() + 5 * DAY);
    expect(nextAttemptAt(due, 1, late)).toEqual(new Date(late.getTime() + 12 * 3_600_000));
  });

  it("keeps the places until the policy's grace date", () => {
    expect(graceEndsAt(due, 7)).toEqual(new Date(due.getTime() + 7 * DAY));
    expect(graceEndsAt(due, 0)).toEqual(due);
  });

  it("reminds 7 days before, then 2 days before, and never once due", () => {
    expect(reminderDue(due, new Date(due.getTime() - 8 * DAY))).toBeNull();
    expect(reminderDue(due, new Date(due.getTime() - 7 * DAY))).toBe("balance_due_7d");
    expect(reminderDue(due, new Date(due.getTime() - 3 * DAY))).toBe("balance_due_7d");
    expect(reminderDue(due, new Date(due.getTime() - 2 * DAY))).toBe("balance_due_2d");
    expect(reminderDue(due, new Date(due.getTime() - 60_000))).toBe("balance_due_2d");
    expect(reminderDue(due, due)).toBeNull();
  });

  it("says a card expires before the due date when its month ends before it", () => {
    expect(cardExpiresBefore({ expMonth: 4, expYear: 2027 }, due)).toBe(true);
    expect(cardExpiresBefore({ expMonth: 5, expYear: 2027 }, due)).toBe(false);
    expect(cardExpiresBefore({ expMonth: 12, expYear: 2026 }, due)).toBe(true);
    expect(cardExpiresBefore({ expMonth: 5, expYear: 2027 }, new Date("2027-06-01T00:00:00Z"))).toBe(true);
    expect(cardText({ brand: "visa", last4: "4242", expMonth: 4, expYear: 2027 })).toBe("Visa ending 4242 (expires 04/2027)");
  });
});
