import { describe, expect, it } from "vitest";
import { cancellationPolicyLines, cancellationRefundCents, changesFreezeAt, refundPercent, refundText, tierDeadlines } from "../../src/shared/registrations/changePolicy.ts";
import { eventEndsAt, eventStartsAt, permissions } from "../../src/registrations/core/permissions.ts";

const DAY = 86_400_000;
const event = { startDate: new Date("2027-06-05T00:00:00Z"), endDate: new Date("2027-06-07T00:00:00Z"), timeZone: "America/Los_Angeles" };
const start = eventStartsAt(event);

describe("the camp cancellation policy", () => {
  it("counts from the first day's midnight in the event's own time zone", () => {
    expect(start.toISOString()).toBe("2027-06-05T07:00:00.000Z");
    expect(eventEndsAt(event).toISOString()).toBe("2027-06-08T07:00:00.000Z");
  });

  it("gives 100% 30 days or more before, 50% from 29 to 7 days, nothing after", () => {
    expect(refundPercent(start, new Date(start.getTime() - 40 * DAY))).toBe(100);
    expect(refundPercent(start, new Date(start.getTime() - 30 * DAY))).toBe(100);
    expect(refundPercent(start, new Date(start.getTime() - 30 * DAY + 1))).toBe(50);
    expect(refundPercent(start, new Date(start.getTime() - 7 * DAY))).toBe(50);
    expect(refundPercent(start, new Date(start.getTime() - 7 * DAY + 1))).toBe(0);
    expect(refundPercent(start, new Date(start.getTime() + DAY))).toBe(0);
  });

  it("refunds the share of what was paid, less what was refunded already, never below 0", () => {
    const at20 = new Date(start.getTime() - 20 * DAY);
    expect(cancellationRefundCents(23800, 0, start, at20)).toBe(11900);
    expect(cancellationRefundCents(23801, 0, start, at20)).toBe(11901);
    expect(cancellationRefundCents(23800, 5000, start, at20)).toBe(6900);
    expect(cancellationRefundCents(23800, 20000, start, at20)).toBe(0);
    expect(refundText(11900, 50, 23800)).toBe("a refund of $119.00 (50% of $238.00)");
    expect(refundText(0, 0, 23800)).toBe("no refund");
  });

  it("says the same tiers in words, and their deadlines", () => {
    expect(cancellationPolicyLines().slice(0, 3)).toEqual([
      "Canceled 30 days or more before the camp's first day: a full refund.",
      "Canceled 29 to 7 days before the camp's first day: 50% of the amount paid back.",
      "Canceled less than 7 days before the first day, or once the camp has started: no refund.",
    ]);
    expect(tierDeadlines(start).map((t) => [t.percent, t.until.toISOString()])).toEqual([
      [100, "2027-05-06T07:00:00.000Z"],
      [50, "2027-05-29T07:00:00.000Z"],
    ]);
  });
});

describe("what a registrant may still change", () => {
  it("freezes 7 days before the start unless the event names an earlier time", () => {
    expect(changesFreezeAt(start, null).toISOString()).toBe("2027-05-29T07:00:00.000Z");
    expect(changesFreezeAt(start, new Date("2027-05-01T00:00:00Z")).toISOString()).toBe("2027-05-01T00:00:00.000Z");
    expect(changesFreezeAt(start, new Date("2027-07-01T00:00:00Z")).toISOString()).toBe("2027-05-29T07:00:00.000Z");
  });

  it("opens everything before the freeze, then the medical notes (and cancelling until the start), then nothing", () => {
    const at = (days: number) => new Date(start.getTime() + days * DAY);
    expect(permissions("paid", event, null, at(-10))).toMatchObject({ phase: "open", canCancel: true, reason: "" });
    expect(permissions("paid", event, null, at(-3))).toMatchObject({ phase: "medicalOnly", canCancel: true });
    expect(permissions("paid", event, null, at(1))).toMatchObject({ phase: "medicalOnly", canCancel: false, reason: "The camp has started: only the medical notes can still change." });
    expect(permissions("paid", event, null, at(4))).toMatchObject({ phase: "closed", canCancel: false, reason: "The camp is over." });
    for (const status of ["withdrawn", "refunded", "needs_review"] as const) expect(permissions(status, event, null, at(-40))).toMatchObject({ phase: "closed", canCancel: false });
  });
});

describe("request logs", () => {
  it("never hold a manage or order-status link's token", async () => {
    const { urlForLog } = await import("../../src/logger.ts");
    const token = "A".repeat(20) + "_-" + "b9".repeat(10) + "z";
    expect(token).toHaveLength(43);
    expect(urlForLog(`/my-registration/${token}`)).toBe("/my-registration/[redacted]");
    expect(urlForLog(`/my-registration/${token}/cancel?x=1`)).toBe("/my-registration/[redacted]/cancel?x=1");
    expect(urlForLog(`/orders/${token}`)).toBe("/orders/[redacted]");
    expect(urlForLog("/events/2")).toBe("/events/2");
  });

  it("redact a link's secret by its route, whatever its length: the probe's 32-character offer tokens, short and odd ones", async () => {
    const { pathForLog, urlForLog } = await import("../../src/logger.ts");
    for (const token of ["k3J9x0QpL2mN8vB4c7D1e6F5g0H2i9J8", "abc", "x".repeat(60), "with.dot~tilde"]) {
      expect(urlForLog(`/waiting-list/offer/${token}`)).toBe("/waiting-list/offer/[redacted]");
      expect(urlForLog(`/waiting-list/offer/${token}/take`)).toBe("/waiting-list/offer/[redacted]/take");
      expect(urlForLog(`/waiting-list/leave/${token}?a=1`)).toBe("/waiting-list/leave/[redacted]?a=1");
      // A waiting-list link route not written yet (an e-mail confirmation) is covered too.
      expect(pathForLog(`/waiting-list/confirm/${token}`)).toBe("/waiting-list/confirm/[redacted]");
      expect(pathForLog(`/waiting-list/${token}`)).toBe("/waiting-list/[redacted]");
      expect(pathForLog(`/my-registration/${token}/changes/12/paid`)).toBe("/my-registration/[redacted]/changes/12/paid");
      expect(pathForLog(`/orders/${token}`)).toBe("/orders/[redacted]");
    }
    expect(pathForLog("/waiting-list/2")).toBe("/waiting-list/2");
    expect(pathForLog("/events/2/register")).toBe("/events/2/register");
  });
});
