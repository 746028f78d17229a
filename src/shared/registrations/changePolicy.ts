/**
 * The camp refund and cancellation policy, and until when a paid registration can change: data and pure rules,
 * browser-safe. The same tiers are written on /terms, /camp-cancellation-policy, in the e-mails and on the manage
 * page before a cancellation is confirmed (README: Managing a registration after payment).
 */
import { formatPrice } from "../money.ts";

const DAY_MS = 86_400_000;

/** Canceled at least `daysBefore` days before the camp starts: `percent` of what was paid comes back. Longest notice first. */
export const CANCELLATION_TIERS = [
  { daysBefore: 30, percent: 100 },
  { daysBefore: 7, percent: 50 },
] as const;

/** Paid registrations can change until this many days before the start, unless the event names its own freeze time. */
export const DEFAULT_FREEZE_DAYS = 7;

/** The instant a registration stops changing: the event's own `changes_freeze_at`, or 7 days before its start. */
export function changesFreezeAt(eventStart: Date, freezeAt: Date | null): Date {
  if (freezeAt && freezeAt.getTime() < eventStart.getTime()) return freezeAt;
  return new Date(eventStart.getTime() - DEFAULT_FREEZE_DAYS * DAY_MS);
}

/** The share of the amount paid a cancellation now gives back (0 to 100). */
export function refundPercent(eventStart: Date, now: Date): number {
  const notice = eventStart.getTime() - now.getTime();
  return CANCELLATION_TIERS.find((t) => notice >= t.daysBefore * DAY_MS)?.percent ?? 0;
}

/** What a cancellation now refunds: the policy's share of what was paid, less what was already refunded (cents). */
export function cancellationRefundCents(paidCents: number, alreadyRefundedCents: number, eventStart: Date, now: Date): number {
  const due = Math.round((paidCents * refundPercent(eventStart, now)) / 100);
  return Math.max(0, due - alreadyRefundedCents);
}

/** Until when each tier lasts for one event: for the manage page ('Full refund if you cancel by ...'). */
export function tierDeadlines(eventStart: Date): { percent: number; until: Date }[] {
  return CANCELLATION_TIERS.map((t) => ({ percent: t.percent, until: new Date(eventStart.getTime() - t.daysBefore * DAY_MS) }));
}

const share = (percent: number) => (percent === 100 ? "a full refund" : `${percent}% of the amount paid back`);

/** The policy in words, one line per tier and one for the rest: the same lines on every page and e-mail. */
export function cancellationPolicyLines(): string[] {
  const lines: string[] = CANCELLATION_TIERS.map((t, i) => {
    const previous = CANCELLATION_TIERS[i - 1];
    const window = previous ? `${previous.daysBefore - 1} to ${t.daysBefore} days before` : `${t.daysBefore} days or more before`;
    return `Canceled ${window} the camp's first day: ${share(t.percent)}.`;
  });
  const last = CANCELLATION_TIERS[CANCELLATION_TIERS.length - 1]!;
  lines.push(`Canceled less than ${last.daysBefore} days before the first day, or once the camp has started: no refund.`);
  lines.push("Refunds go back to the card that paid, through Stripe; depending on the bank they show within 5 to 10 business days.");
  return lines;
}

/** 'a refund of $119.00 (50% of $238.00)' or 'no refund', for the confirm page and the receipt. */
export function refundText(refundCents: number, percent: number, paidCents: number): string {
  if (refundCents === 0) return "no refund";
  return `a refund of ${formatPrice(refundCents)} (${percent}% of ${formatPrice(paidCents)})`;
}

/** What a registration's manage page lets change now (see registrations/changes/rules.ts permissions). */
export type ChangePhase =
  /** Every detail and the days can change. */
  | "open"
  /** After the freeze date: only the medical notes (special requirements) until the camp ends. */
  | "medicalOnly"
  /** Nothing changes: canceled, refunded, in review, or the camp is over. */
  | "closed";
