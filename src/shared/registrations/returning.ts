/**
 * "Registered before?": a returning family or coach asks for a link that fills in the form of this event from their
 * latest registration. The ask form's schema and words, the link's limits, and the rules that carry last season's
 * details forward (a grade moved up a year, an age older by the years passed). Browser-safe: zod and plain data only.
 */
import * as z from "zod/mini";
import { REGISTRATION_MESSAGES } from "./rules.ts";
import type { AthleteRow, CoachValues } from "./teamRules.ts";

/** The link opens once, for 30 minutes; an address gets at most 3 such e-mails in 24 hours. */
export const RETURNING_LINK = { validMs: 30 * 60_000, perAddressPerDay: 3 } as const;

/** Where the link's path starts (the token follows): logs and the sent outbox redact what follows it. */
export const RETURNING_PATH = "/returning";

/** Where the ask was made: it decides the form the link opens and where the answer returns. */
export const RETURNING_FROM = ["register", "team", "event"] as const;
export type ReturningFrom = (typeof RETURNING_FROM)[number];

/** The form a link opens. */
export type ReturningForm = "individual" | "team";

export const RETURNING_TEXT = {
  title: "Registered before?",
  intro: "Registered with us before, as an athlete, a parent or a coach? Enter that e-mail address and we'll e-mail you a link that fills in this form from your last registration.",
  button: "Email Me a Link",
  sentTitle: "Check your inbox",
  sent: "If that address has registered with us before, we've e-mailed it a link that fills in the form. The link works once, for 30 minutes.",
  rateLimited: "Too many requests for a link from your connection. Please wait an hour and try again, or contact us.",
  usedTitle: "This link was used or has expired",
  used: "A link that fills in the form works once, for 30 minutes, in the browser that opens it. Ask for a new one below, or fill in the form yourself.",
  prefilledTitle: "Filled in from your last registration",
  prefilled: (eventTitle: string) =>
    `We filled in this form from your registration for ${eventTitle}. Please check every field (the grade is moved up where a season has passed), then read and tick the agreements again: they are signed anew each season.`,
  others: (names: string[]) => `Also registered last time: ${names.join(", ")}. Register ${names.length === 1 ? "them" : "each of them"} with this form once this registration is done.`,
  teamPrefilled: (eventTitle: string) => `We filled in the coach's details from your registration for ${eventTitle}. Tick last season's athletes who come again: each one ticked becomes a row, with the age moved up by the years passed.`,
  teamListLegend: "Last season's athletes",
  teamListButton: "Add the ticked athletes",
} as const;

const emailField = z.pipe(z.string(REGISTRATION_MESSAGES.email).check(z.trim(), z.maxLength(254)), z.email(REGISTRATION_MESSAGES.email));

/** The ask: an e-mail address, and where the form was (none: the event page). */
export const returningAskSchema = z.object({
  email: emailField,
  from: z.optional(z.enum(RETURNING_FROM)),
});

/** Where an ask was made, read from a post that may be invalid (anything else: the event page). */
export function askedFrom(value: unknown): ReturningFrom {
  return (RETURNING_FROM as readonly unknown[]).includes(value) ? (value as ReturningFrom) : "event";
}

/** Where the answer to an ask made at `from` returns to. */
export function returningBackTo(eventId: number, from: ReturningFrom | undefined): string {
  if (from === "register") return `/register/${eventId}#returning`;
  if (from === "team") return `/team-register/${eventId}#returning`;
  return `/events/${eventId}#returning`;
}

/** Seasons passed between two events: the difference of their starting years (never negative). */
export function seasonsBetween(before: Date, after: Date): number {
  return Math.max(0, after.getUTCFullYear() - before.getUTCFullYear());
}

const ORDINAL = (n: number) => (n % 100 >= 11 && n % 100 <= 13 ? "th" : n % 10 === 1 ? "st" : n % 10 === 2 ? "nd" : n % 10 === 3 ? "rd" : "th");
const HIGH_SCHOOL_YEARS = ["Freshman", "Sophomore", "Junior", "Senior"] as const;
/** The last grade a camp takes ('Ages 10+ through high school'): it stays as it is. */
export const LAST_GRADE = 12;

/**
 * A grade as typed last season (free text: '10th', '10', '10th grade', 'Junior'), moved up by `seasons`, in the same
 * form; the last grade stays, and a text the rule does not read stays as typed (the visitor sees and edits it).
 */
export function gradeMovedUp(grade: string, seasons: number): string {
  const text = grade.trim();
  if (seasons <= 0 || text === "") return grade;
  const numbered = /^(\d{1,2})(st|nd|rd|th)?(\s*grade)?$/i.exec(text);
  if (numbered) {
    const from = Number(numbered[1]);
    if (from < 1 || from >= LAST_GRADE) return grade;
    const to = Math.min(LAST_GRADE, from + seasons);
    const suffix = numbered[2] ? (numbered[2] === numbered[2].toUpperCase() ? ORDINAL(to).toUpperCase() : ORDINAL(to)) : "";
    return `${to}${suffix}${numbered[3] ?? ""}`;
  }
  const year = HIGH_SCHOOL_YEARS.findIndex((y) => y.toLowerCase() === text.toLowerCase());
  if (year >= 0) {
    const moved = HIGH_SCHOOL_YEARS[Math.min(HIGH_SCHOOL_YEARS.length - 1, year + seasons)]!;
    return text === text.toLowerCase() ? moved.toLowerCase() : moved;
  }
  return grade;
}

/** An age last season, older by the seasons passed (blank stays blank). */
export function ageMovedUp(age: number | null, seasons: number): string {
  return age === null ? "" : String(age + Math.max(0, seasons));
}

/**
 * What an opened link fills in, kept in the session of the browser that opened it: step 1's values with a family's
 * athletes as siblings (never the agreements, the card or a waiver) and the names of the athletes not filled in (past
 * MAX_SIBLINGS, or a team's), or the coach and last season's team rows.
 */
export interface ReturningPrefill {
  eventId: number;
  form: ReturningForm;
  /** The event the details come from. */
  fromEventTitle: string;
  values: Record<string, string>;
  /** The athletes of the last registration(s) the form does not fill in. */
  others: string[];
  team?: { coach: CoachValues; athletes: AthleteRow[] };
}

/** What the returning box shows on a form: the note when the form was filled in, and the names of the others. */
export interface ReturningBoxProps {
  eventId: number;
  from: ReturningFrom;
  /** In a widget (which has no page context): the page's token. */
  csrfToken?: string;
  /** Set once a link filled in the form: the event the details come from, and the other athletes of that registration. */
  prefilled?: { fromEventTitle: string; others: string[] } | null;
}
