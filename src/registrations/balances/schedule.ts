/**
 * The balance's calendar, pure: when each attempt to charge it is due, when an unpaid balance gives its places up,
 * which reminder is due, and whether the saved card still works on the due date.
 */
import type { SavedCard } from "./repository.ts";

const DAY_MS = 86_400_000;

/** A soft decline is tried again this many days after the due date (the consent's "again within 7 days"); 4 attempts in all. */
export const RETRY_AFTER_DAYS = [1, 3, 7] as const;
export const MAX_ATTEMPTS = RETRY_AFTER_DAYS.length + 1;
/** Attempts are never closer than this (a job that was down catches up a day at a time, not all at once). */
export const MIN_RETRY_GAP_MS = 12 * 3_600_000;

/** When attempt `attempt + 1` is due after attempt `attempt` declined softly at `now`; null when that was the last. */
export function nextAttemptAt(dueAt: Date, attempt: number, now: Date): Date | null {
  const days = RETRY_AFTER_DAYS[attempt - 1];
  if (days === undefined) return null;
  return new Date(Math.max(dueAt.getTime() + days * DAY_MS, now.getTime() + MIN_RETRY_GAP_MS));
}

/** The policy's grace date: an unpaid balance keeps its places until then, and gives them up after it. */
export function graceEndsAt(dueAt: Date, graceDays: number): Date {
  return new Date(dueAt.getTime() + graceDays * DAY_MS);
}

/** The reminders before the due date: 7 days, then 2 days before, each sent once. */
export const REMINDERS = [
  { kind: "balance_due_7d", daysBefore: 7 },
  { kind: "balance_due_2d", daysBefore: 2 },
] as const;
export type ReminderKind = (typeof REMINDERS)[number]["kind"];

/**
 * The reminder whose window `now` is in: from 7 days before the due date until 2 days before it the first one, from
 * then until the due date the second (a registration made late gets only the later one).
 */
export function reminderDue(dueAt: Date, now: Date): ReminderKind | null {
  const left = dueAt.getTime() - now.getTime();
  if (left <= 0) return null;
  const [week, twoDays] = REMINDERS;
  if (left <= twoDays.daysBefore * DAY_MS) return twoDays.kind;
  if (left <= week.daysBefore * DAY_MS) return week.kind;
  return null;
}

/** A card works through the last day of its expiry month (UTC): true when that is before the due date. */
export function cardExpiresBefore(card: Pick<SavedCard, "expMonth" | "expYear">, dueAt: Date): boolean {
  const firstDayAfter = Date.UTC(card.expYear, card.expMonth, 1);
  return firstDayAfter <= dueAt.getTime();
}

/** "Visa ending 4242 (expires 04/2027)". */
export function cardText(card: SavedCard): string {
  const brand = card.brand ? card.brand.charAt(0).toUpperCase() + card.brand.slice(1) : "Card";
  return `${brand} ending ${card.last4} (expires ${String(card.expMonth).padStart(2, "0")}/${card.expYear})`;
}
