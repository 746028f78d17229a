/**
 * Camp payment plans: a deposit today, the balance charged to the saved card on its due date. The policy is data on
 * each event (`events.deposit_kind`, `deposit_value`, `balance_due_days`, `balance_grace_days`); these pure rules
 * turn it into what a registration pays, and the words every page, summary and e-mail uses. Browser-safe.
 */
import { formatPrice } from "../money.ts";
import { startOfDayIn } from "../timeZones.ts";
import { dateFormat } from "../dateFormats.ts";

export const DEPOSIT_KINDS = ["none", "fixed", "percent"] as const;
export type DepositKind = (typeof DEPOSIT_KINDS)[number];

export interface DepositPolicy {
  kind: DepositKind;
  /** fixed: cents per athlete; percent: whole percent of the price (rounded to whole dollars per athlete). */
  value: number;
  /** The balance is due this many days before the first day (00:00 in the event's zone). */
  balanceDueDays: number;
  /** Days after the due date an unpaid balance keeps its places. */
  balanceGraceDays: number;
}

/**
 * The grace default: longer than the last retry (7 days after the due date, balances/schedule.ts) so a balance whose
 * 4th attempt fails is overdue with its places still kept, and its payer has days to pay it from the manage page.
 */
export const DEFAULT_BALANCE_GRACE_DAYS = 10;

export const NO_DEPOSIT: DepositPolicy = { kind: "none", value: 0, balanceDueDays: 14, balanceGraceDays: DEFAULT_BALANCE_GRACE_DAYS };

export const PAYMENT_PLANS = ["full", "deposit"] as const;
export type PaymentPlan = (typeof PAYMENT_PLANS)[number];

/**
 * A deposit is offered only while the balance's due date is at least this many days away: every balance then gets
 * its reminder a week before, and a card that fails has its retries before the camp.
 */
export const MIN_DAYS_BEFORE_DUE = 7;

const DAY_MS = 86_400_000;

export interface DepositPlan {
  todayCents: number;
  balanceCents: number;
  /** When the balance is charged: 00:00 of the due day in the event's zone. */
  dueAt: Date;
}

/** The event's first day and zone, as the due date is counted from them. */
export interface FirstDay {
  /** YYYY-MM-DD */
  date: string;
  timeZone: string;
}

/** The calendar day `days` before an ISO day. */
function daysBefore(day: string, days: number): string {
  return new Date(Date.parse(`${day}T00:00:00Z`) - days * DAY_MS).toISOString().slice(0, 10);
}

/** When a balance is due for an event: 00:00 in its zone, `balanceDueDays` calendar days before its first day. */
export function balanceDueAt(policy: Pick<DepositPolicy, "balanceDueDays">, firstDay: FirstDay): Date {
  return startOfDayIn(daysBefore(firstDay.date, policy.balanceDueDays), firstDay.timeZone);
}

/** The deposit for `athletes` places of a registration priced `priceCents` in all, before the cap at the price. */
export function depositCents(policy: DepositPolicy, priceCents: number, athletes: number): number {
  if (policy.kind === "fixed") return policy.value * athletes;
  if (policy.kind === "percent") return Math.round((priceCents * policy.value) / 100 / athletes / 100) * 100 * athletes;
  return 0;
}

/**
 * What a deposit plan pays today and later, or null when none is offered: no policy, nothing left to pay later (the
 * deposit would be the whole price), or the due date is less than MIN_DAYS_BEFORE_DUE days away (`now`). The
 * deposit never exceeds the price.
 */
export function depositPlan(policy: DepositPolicy, priceCents: number, athletes: number, firstDay: FirstDay, now: Date): DepositPlan | null {
  if (policy.kind === "none" || priceCents <= 0 || athletes < 1) return null;
  const todayCents = Math.min(depositCents(policy, priceCents, athletes), priceCents);
  if (todayCents <= 0 || todayCents >= priceCents) return null;
  const dueAt = balanceDueAt(policy, firstDay);
  if (dueAt.getTime() - now.getTime() < MIN_DAYS_BEFORE_DUE * DAY_MS) return null;
  return { todayCents, balanceCents: priceCents - todayCents, dueAt };
}

/**
 * Whether a deposit would be offered but is the whole price or more (a code brought the price down to it): then the
 * registration pays in full today, no more than the deposit, instead of being refused.
 */
export function depositCoversPrice(policy: DepositPolicy, priceCents: number, athletes: number, firstDay: FirstDay, now: Date): boolean {
  if (policy.kind === "none" || priceCents <= 0 || athletes < 1) return false;
  if (balanceDueAt(policy, firstDay).getTime() - now.getTime() < MIN_DAYS_BEFORE_DUE * DAY_MS) return false;
  return depositCents(policy, priceCents, athletes) >= priceCents;
}

/** "June 5, 2027": a due date as its day in the event's zone. */
export function dueDayText(dueAt: Date, timeZone: string): string {
  return dateFormat("en-US", { timeZone, year: "numeric", month: "long", day: "numeric" }).format(dueAt);
}

export const DEPOSIT_TEXT = {
  planLegend: "How would you like to pay?",
  payInFull: (totalCents: number) => `Pay in full ${formatPrice(totalCents)}`,
  payDeposit: (plan: DepositPlan, timeZone: string) => `Pay today ${formatPrice(plan.todayCents)}, then ${formatPrice(plan.balanceCents)} on ${dueDayText(plan.dueAt, timeZone)}`,
  /** The event page's line under the price: per athlete, for the full package. */
  perAthlete: (plan: DepositPlan, timeZone: string) => `or ${formatPrice(plan.todayCents)} today and ${formatPrice(plan.balanceCents)} on ${dueDayText(plan.dueAt, timeZone)}`,
  notOffered: "A deposit is no longer offered for this event: please choose Pay in full.",
  /** A code brought the price to the deposit or below: it is paid in full today (depositCoversPrice). */
  coveredByCode: (priceCents: number, depositCents: number) =>
    `With this code the price, ${formatPrice(priceCents)}, is no more than the ${formatPrice(depositCents)} deposit: it is paid in full today, and nothing is owed later.`,
  planUnknown: "Please choose how you would like to pay.",
  owed: (balanceCents: number, dueAt: Date, timeZone: string) => `${formatPrice(balanceCents)} due on ${dueDayText(dueAt, timeZone)}`,
} as const;

/**
 * The consent the card networks require before a card is stored for a later merchant-initiated charge: the amount,
 * the date, and how it can be changed. Shown next to the Pay button and kept with the registration (text + version);
 * a change to these words is a new version.
 */
export const CARD_CONSENT_VERSION = "2026-12-02";

export function cardConsentText(brandName: string, plan: Pick<DepositPlan, "balanceCents" | "dueAt">, timeZone: string): string {
  return (
    `I authorize ${brandName} to save this card and charge it for the remaining balance of ${formatPrice(plan.balanceCents)} on ` +
    `${dueDayText(plan.dueAt, timeZone)}, and again within 7 days if that charge fails. I can pay the balance earlier or use another card ` +
    `from my registration's page at any time, and canceling under the cancellation policy stops the charge.`
  );
}

/** The plan the visitor chose, as posted: absent means full; anything else is refused. */
export function parsePaymentPlan(raw: unknown): PaymentPlan | null {
  if (raw === undefined || raw === null || raw === "") return "full";
  return (PAYMENT_PLANS as readonly unknown[]).includes(raw) ? (raw as PaymentPlan) : null;
}

/** What a deposit-paid registration still owes, as its confirmation, e-mails and manage page say it. */
export function balanceLine(balanceCents: number, dueAt: Date, timeZone: string): string {
  return `${formatPrice(balanceCents)} on ${dueDayText(dueAt, timeZone)}, charged to the card you paid the deposit with. You can pay it earlier or use another card from your registration's page.`;
}

/** What the manage page shows of a deposit plan: what is owed and when, the card the balance is charged to. */
export interface BalanceView {
  owedCents: number;
  paidCents: number;
  dueText: string;
  overdue: boolean;
  /** The due date has passed and the balance is still owed (being charged, declined and tried again, or waiting for the cardholder). */
  pastDue: boolean;
  /** "Visa ending 4242, expires 12/2034"; null until the card is known. */
  cardText: string | null;
  payHref: string;
  cardHref: string;
}
