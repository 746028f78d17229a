/**
 * What a registrant may still do with a registration, at an instant: pure, so the page, the use cases (under
 * their locks) and the tests decide alike. Dates are instants; pages print them in the event's own time zone.
 */
import { startOfDayIn } from "../../shared/timeZones.ts";
import type { EventSummary } from "../../shared/events/types.ts";
import type { RegistrationStatus } from "./states.ts";
import { changesFreezeAt, refundPercent, type ChangePhase } from "../../shared/registrations/changePolicy.ts";

/** The event's first day, 00:00 in its own time zone: where the policy's days are counted from. */
export function eventStartsAt(event: Pick<EventSummary, "startDate" | "timeZone">): Date {
  return startOfDayIn(event.startDate.toISOString().slice(0, 10), event.timeZone);
}

/** The end of the event's last day in its own time zone. */
export function eventEndsAt(event: Pick<EventSummary, "endDate" | "timeZone">): Date {
  const next = new Date(event.endDate.getTime() + 86_400_000);
  return startOfDayIn(next.toISOString().slice(0, 10), event.timeZone);
}

export const BALANCE_OVERDUE_REASON = "Its balance is overdue: pay it to keep the places, or write to us.";

export interface Permissions {
  phase: ChangePhase;
  canCancel: boolean;
  freezeAt: Date;
  startsAt: Date;
  refundPercent: number;
  /** Why something can no longer change, in words ('' when everything can). */
  reason: string;
}

export function permissions(status: RegistrationStatus, event: Pick<EventSummary, "startDate" | "endDate" | "timeZone">, freezeColumn: Date | null, now: Date): Permissions {
  const startsAt = eventStartsAt(event);
  const freezeAt = changesFreezeAt(startsAt, freezeColumn);
  const t = now.getTime();
  const base = { freezeAt, startsAt, refundPercent: refundPercent(startsAt, now) };
  // A deposit-paid registration changes as a paid one does (its balance follows); an overdue balance must be paid first.
  if (status !== "paid" && status !== "deposit_paid") {
    const reason =
      status === "needs_review" ? "Its payment is being reviewed by our team; write to us for any change." : status === "balance_overdue" ? BALANCE_OVERDUE_REASON : "It is canceled.";
    return { ...base, phase: "closed", canCancel: false, reason };
  }
  if (t >= eventEndsAt(event).getTime()) return { ...base, phase: "closed", canCancel: false, reason: "The camp is over." };
  const canCancel = t < startsAt.getTime();
  if (t >= freezeAt.getTime()) {
    const reason = canCancel
      ? "The deadline for changes has passed: only the medical notes can still change, and the registration can still be canceled."
      : "The camp has started: only the medical notes can still change.";
    return { ...base, phase: "medicalOnly", canCancel, reason };
  }
  return { ...base, phase: "open", canCancel, reason: "" };
}
