/**
 * What an event is made of when it is created or changed (the operators' `npm run events` command), checked with one
 * schema: each field as typed (`eventChangesSchema`: dates YYYY-MM-DD, dollars to integer cents, an IANA zone), then
 * the whole event as it would be stored (`eventSchema`: dates in order, registration closing and the freeze date not
 * after the start, a full package). Browser-safe. Every refusal is one sentence.
 */
import type { SiblingDiscount } from "../registrations/siblings.ts";
import { z } from "zod";
import { HEADLINE_PACKAGE, isPackageCode, PACKAGE_CODES, type PackageCode } from "../registrations/packages.ts";

export const MAX_CAPACITY = 100_000;
const MAX_PRICE_CENTS = 10_000_000;
const DAY_MS = 86_400_000;

/** A real calendar day: 2027-02-30 is refused. */
export function isCalendarDay(value: string): boolean {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(value)) return false;
  const d = new Date(`${value}T00:00:00Z`);
  return !Number.isNaN(d.getTime()) && d.toISOString().slice(0, 10) === value;
}

/** A zone Intl knows (America/Chicago, Europe/Paris); abbreviations such as CST are refused. */
export function isTimeZone(value: string): boolean {
  if (!/^[A-Za-z_]+(?:\/[A-Za-z0-9_+-]+)+$|^UTC$/.test(value)) return false;
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: value });
    return true;
  } catch {
    return false;
  }
}

const day = (what: string) => z.string().trim().refine(isCalendarDay, { message: `${what} is a date as YYYY-MM-DD, e.g. 2027-06-05.` });
const dollars = (what: string) =>
  z
    .string()
    .trim()
    .regex(/^\$?\d{1,6}(?:\.\d{1,2})?$/, { message: `${what} is dollars and cents, e.g. 349.00.` })
    .transform((v) => {
      const [whole, cents = ""] = v.replace(/^\$/, "").split(".");
      return Number(whole) * 100 + Number(cents.padEnd(2, "0"));
    })
    .refine((c) => c > 0 && c <= MAX_PRICE_CENTS, { message: `${what} is above $0.00 and at most $100,000.00.` });
const text = (what: string, max: number) =>
  z.string().trim().min(1, { message: `${what} cannot be empty.` }).max(max, { message: `${what} is at most ${max} characters.` });

/** `CODE=PRICE` or `CODE=PRICE=LABEL`, e.g. `full=349.00` or `1day=149.00=1 Day`. */
const packageSpec = z
  .string()
  .transform((v, ctx) => {
    const [code = "", price = "", ...label] = v.split("=");
    if (!isPackageCode(code)) {
      ctx.addIssue({ code: "custom", message: `A package is CODE=PRICE with a code among ${PACKAGE_CODES.join(", ")}, not ${v}.` });
      return z.NEVER;
    }
    const cents = dollars(`The ${code} package's price`).safeParse(price);
    if (!cents.success) {
      ctx.addIssue({ code: "custom", message: cents.error.issues[0]!.message });
      return z.NEVER;
    }
    const name = label.join("=").trim();
    if (name.length > 80) {
      ctx.addIssue({ code: "custom", message: `The ${code} package's label is at most 80 characters.` });
      return z.NEVER;
    }
    return { code, priceCents: cents.data, ...(name ? { label: name } : {}) };
  });

/** The fields an operator gives, each as typed; the absent ones keep their value (or, on create, come from the copied event). */
export const eventChangesSchema = z
  .object({
    title: text("The title", 160),
    startDate: day("The start date"),
    endDate: day("The end date"),
    dateText: text("The date text", 80),
    timeZone: z.string().trim().refine(isTimeZone, { message: "The time zone is an IANA name such as America/Chicago." }),
    location: text("The location", 160),
    capacity: z
      .string()
      .trim()
      .regex(/^[1-9]\d{0,5}$/, { message: `The capacity is a whole number from 1 to ${MAX_CAPACITY}.` })
      .transform(Number)
      .refine((n) => n <= MAX_CAPACITY, { message: `The capacity is a whole number from 1 to ${MAX_CAPACITY}.` }),
    packages: z.array(packageSpec).refine((list) => new Set(list.map((p) => p.code)).size === list.length, { message: "Each package code is given once." }),
    teamPriceCents: dollars("The team price"),
    registrationClosesOn: z.union([day("The registration closing date"), z.literal("none")]).transform((v) => (v === "none" ? null : v)),
    changesFreezeOn: z.union([day("The freeze date"), z.literal("none")]).transform((v) => (v === "none" ? null : v)),
    listed: z.boolean(),
    /** `none`, `fixed=75.00` (dollars per athlete) or `percent=25` (whole percent, rounded to whole dollars per athlete). */
    deposit: z
      .string()
      .trim()
      .transform((v, ctx): DepositSetting => {
        if (v === "none") return { kind: "none", value: 0 };
        const fixed = /^fixed=(.*)$/.exec(v);
        if (fixed) {
          const cents = dollars("The deposit").safeParse(fixed[1]);
          if (cents.success) return { kind: "fixed", value: cents.data };
        }
        const percent = /^percent=([1-9]\d?)$/.exec(v);
        if (percent) return { kind: "percent", value: Number(percent[1]) };
        ctx.addIssue({ code: "custom", message: `The deposit is none, fixed=DOLLARS (per athlete, e.g. fixed=75.00) or percent=1 to 99, not ${v}.` });
        return z.NEVER;
      }),
    /** `none`, `fixed=25.00` (dollars off each additional athlete of a family) or `percent=10` (whole percent). */
    siblingDiscount: z
      .string()
      .trim()
      .transform((v, ctx): SiblingDiscount => {
        if (v === "none") return { kind: "none", value: 0 };
        const fixed = /^fixed=(.*)$/.exec(v);
        if (fixed) {
          const cents = dollars("The sibling discount").safeParse(fixed[1]);
          if (cents.success && cents.data > 0) return { kind: "fixed", value: cents.data };
        }
        const percent = /^percent=([1-9]\d?)$/.exec(v);
        if (percent) return { kind: "percent", value: Number(percent[1]) };
        ctx.addIssue({ code: "custom", message: `The sibling discount is none, fixed=DOLLARS (off each additional athlete, e.g. fixed=25.00) or percent=1 to 99, not ${v}.` });
        return z.NEVER;
      }),
    balanceDueDays: z
      .string()
      .trim()
      .regex(/^\d{1,3}$/, { message: "The balance is due a whole number of days (0 to 365) before the first day." })
      .transform(Number)
      .refine((n) => n <= 365, { message: "The balance is due a whole number of days (0 to 365) before the first day." }),
  })
  .partial()
  .strict();

/** An event's deposit policy as the command sets it (src/shared/registrations/deposits.ts). */
export interface DepositSetting {
  kind: "none" | "fixed" | "percent";
  value: number;
}

export type EventChanges = z.output<typeof eventChangesSchema>;

export interface EditedPackage {
  code: PackageCode;
  label: string;
  priceCents: number;
  dayCount: number;
}

/** An event's editable fields as they will be stored. */
export interface EditedEvent {
  title: string;
  startDate: string;
  endDate: string;
  dateText: string;
  timeZone: string;
  location: string;
  capacity: number;
  packages: EditedPackage[];
  teamPriceCents: number;
  /** Registration closes at the start of this day in the event's zone; null: at the start of the first day. */
  registrationClosesOn: string | null;
  /** Paid registrations can change until the start of this day in the event's zone; null: 7 days before the start. */
  changesFreezeOn: string | null;
  listed: boolean;
  deposit: DepositSetting;
  /** Off each additional athlete of a family (src/shared/registrations/siblings.ts). */
  siblingDiscount: SiblingDiscount;
  /** The balance of a deposit is due this many days before the first day. */
  balanceDueDays: number;
}

const MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"];
const parts = (d: string) => ({ y: Number(d.slice(0, 4)), m: Number(d.slice(5, 7)) - 1, d: Number(d.slice(8, 10)) });

/** The dates as visitors read them: 'June 5-7, 2027', 'June 30 - July 2, 2027', 'December 30, 2027 - January 1, 2028'. */
export function dateTextFor(startDate: string, endDate: string): string {
  const s = parts(startDate);
  const e = parts(endDate);
  if (startDate === endDate) return `${MONTHS[s.m]} ${s.d}, ${s.y}`;
  if (s.y !== e.y) return `${MONTHS[s.m]} ${s.d}, ${s.y} - ${MONTHS[e.m]} ${e.d}, ${e.y}`;
  if (s.m !== e.m) return `${MONTHS[s.m]} ${s.d} - ${MONTHS[e.m]} ${e.d}, ${e.y}`;
  return `${MONTHS[s.m]} ${s.d}-${e.d}, ${e.y}`;
}

/** The event's days, first to last. */
export function daysOf(startDate: string, endDate: string): string[] {
  const out: string[] = [];
  for (let t = Date.parse(`${startDate}T00:00:00Z`); t <= Date.parse(`${endDate}T00:00:00Z`); t += DAY_MS) out.push(new Date(t).toISOString().slice(0, 10));
  return out;
}

/** 'Thursday, June 5', as the day choice shows it. */
export function dayLabel(date: string): string {
  return new Date(`${date}T12:00:00Z`).toLocaleDateString("en-US", { timeZone: "UTC", weekday: "long", month: "long", day: "numeric" });
}

/** The longest an event runs. */
export const MAX_EVENT_DAYS = 14;

/** The whole event, as it would be stored: the rules that tie its fields together. */
export const eventSchema = z
  .custom<EditedEvent>()
  .superRefine((e, ctx) => {
    const fail = (message: string) => ctx.addIssue({ code: "custom", message });
    if (e.endDate < e.startDate) return fail(`The end date ${e.endDate} is before the start date ${e.startDate}.`);
    const days = daysOf(e.startDate, e.endDate).length;
    if (days > MAX_EVENT_DAYS) return fail(`An event runs at most ${MAX_EVENT_DAYS} days; ${e.startDate} to ${e.endDate} is ${days}.`);
    if (e.registrationClosesOn !== null && e.registrationClosesOn > e.startDate)
      return fail(`Registration cannot close after the start: ${e.registrationClosesOn} is after ${e.startDate}.`);
    if (e.changesFreezeOn !== null && e.changesFreezeOn > e.startDate) return fail(`The freeze date ${e.changesFreezeOn} is after the start date ${e.startDate}.`);
    if (e.changesFreezeOn !== null && e.registrationClosesOn !== null && e.changesFreezeOn < e.registrationClosesOn)
      return fail(`The freeze date ${e.changesFreezeOn} is before registration closes (${e.registrationClosesOn}): paid registrations could not change while others still register.`);
    const s = parts(e.startDate);
    const end = parts(e.endDate);
    if (!e.dateText.includes(MONTHS[s.m]!) || !new RegExp(`\\b${s.d}\\b`).test(e.dateText) || !e.dateText.includes(String(end.y)))
      return fail(`The date text "${e.dateText}" does not match ${e.startDate} to ${e.endDate} (e.g. "${dateTextFor(e.startDate, e.endDate)}"; leave --date-text out to have it written).`);
    if (!e.packages.some((p) => p.code === HEADLINE_PACKAGE)) return fail(`An event needs a ${HEADLINE_PACKAGE} package (its headline price): --package ${HEADLINE_PACKAGE}=PRICE.`);
    const tooLong = e.packages.find((p) => p.dayCount > days);
    if (tooLong) return fail(`The ${tooLong.code} package is ${tooLong.dayCount} days; the event has ${days}.`);
  });

/** The first refusal as one line, or null when the event can be stored. */
export function eventRefusal(event: EditedEvent): string | null {
  const checked = eventSchema.safeParse(event);
  return checked.success ? null : checked.error.issues[0]!.message;
}
