/**
 * The college coach request: the spec's constants and messages, and the one schema the dialog, the page and
 * the API all validate with. Browser-safe: zod and plain data only.
 */
import * as z from "zod/mini";
import { multiLine, singleLine, wholeNumber } from "../text.ts";

export const DIVISIONS = ["D1", "D2", "D3", "NAIA", "JUCO", "Other"] as const;
export const AREAS_OF_INTEREST = [
  "Lightweight (125-141 lbs)",
  "Middleweight (149-165 lbs)",
  "Heavyweight (174+ lbs)",
  "Open to All Weight Classes",
] as const;
export const ATHLETES = { min: 0, max: 50 } as const;

/** The spec's words, plus our own for rules the spec leaves silent (formats and lengths). */
export const COACH_MESSAGES = {
  fullName: "Full name is required",
  title: "Title/Position is required",
  collegeName: "College/University name is required",
  emailRequired: "Email is required",
  email: "Valid email is required",
  cellPhone: "Cell phone is required",
  divisionLevel: "Division level is required",
  conference: "Conference is required",
  daysAttending: "At least one day must be selected",
  phoneFormat: "Please enter a valid 10-digit phone number",
  website: "Please enter a valid website address, e.g. https://athletics.example.edu",
  numberOfAthletes: `Number of athletes must be a whole number from ${ATHLETES.min} to ${ATHLETES.max}`,
  areasOfInterest: "Please choose from the listed areas of interest",
  unknownDay: "Please choose from this event's days",
  validationToast: { title: "Form Validation Error", description: "Please correct the highlighted fields" },
  submitted: {
    title: "Registration Submitted Successfully",
    description: "Thank you for your interest! We'll review your application and get back to you soon.",
  },
  failed: { title: "Submission Failed", description: "Please try again or contact us directly if the problem persists." },
  notOffered: "College coach registration is not offered for this event.",
  closed: "College coach registration for this event is closed.",
} as const;

const tooLong = (label: string, max: number) => `${label} must be at most ${max} characters`;

/** A required one-line text: missing or blank gives the spec's message. */
const required = (message: string, label: string, max: number) => singleLine(message).check(z.minLength(1, message), z.maxLength(max, tooLong(label, max)));

/** An optional text: blank or missing becomes undefined. */
const optional = (label: string, max: number, lines: "single" | "multi" = "single") =>
  z.pipe(
    z.optional((lines === "single" ? singleLine() : multiLine()).check(z.maxLength(max, tooLong(label, max)))),
    z.transform((v) => (v ? v : undefined)),
  );

const tenDigits = (v: string) => v.replace(/\D/g, "").length === 10;

/** A form post sends one checkbox as a string, several as an array, none as nothing. */
const asList = (v: unknown): unknown[] => (v === undefined || v === null || v === "" ? [] : Array.isArray(v) ? (v as unknown[]) : [v]);

/** 'athletics.example.edu' is taken as https://athletics.example.edu; only http(s) addresses with a dotted host pass. */
export function normaliseWebsite(raw: string): string | null {
  const withScheme = /^[a-z][a-z0-9+.-]*:/i.test(raw) ? raw : `https://${raw}`;
  try {
    const url = new URL(withScheme);
    if (url.protocol !== "https:" && url.protocol !== "http:") return null;
    if (!/^[^.\s]+(\.[^.\s]+)+$/.test(url.hostname) || url.username || url.password) return null;
    return url.href;
  } catch {
    return null;
  }
}

/** Blank, null or missing is null; otherwise a JSON integer or a string of digits (the shared rule) in range. */
const athletes = z.pipe(
  z.transform((v) => (v === undefined || v === null || v === "" ? null : v)),
  z.nullable(
    z.pipe(
      wholeNumber({ type: COACH_MESSAGES.numberOfAthletes, whole: COACH_MESSAGES.numberOfAthletes }),
      z.number().check(z.gte(ATHLETES.min, COACH_MESSAGES.numberOfAthletes), z.lte(ATHLETES.max, COACH_MESSAGES.numberOfAthletes)),
    ),
  ),
);

/**
 * The coach request for one event: `dayDates` are that event's days (YYYY-MM-DD), the only ones a coach can pick.
 * The event id and the logo are not part of it (the route reads the event first; the logo is checked by content).
 */
export function coachRequestSchema(dayDates: readonly string[]) {
  return z.object({
    fullName: required(COACH_MESSAGES.fullName, "Full name", 120),
    title: required(COACH_MESSAGES.title, "Title/Position", 120),
    collegeName: required(COACH_MESSAGES.collegeName, "College/University name", 160),
    email: z.pipe(
      singleLine(COACH_MESSAGES.emailRequired).check(z.minLength(1, COACH_MESSAGES.emailRequired), z.maxLength(254, COACH_MESSAGES.email)),
      z.email(COACH_MESSAGES.email),
    ),
    cellPhone: required(COACH_MESSAGES.cellPhone, "Cell phone", 40).check(z.refine(tenDigits, COACH_MESSAGES.phoneFormat)),
    schoolPhone: optional("School phone", 40).check(z.refine((v) => v === undefined || tenDigits(v), COACH_MESSAGES.phoneFormat)),
    schoolWebsite: z.pipe(
      optional("School website", 300),
      z.transform((v, ctx) => {
        if (v === undefined) return undefined;
        const url = normaliseWebsite(v);
        if (url === null || url.length > 300) {
          ctx.issues.push({ code: "custom", message: COACH_MESSAGES.website, input: v });
          return z.NEVER;
        }
        return url;
      }),
    ),
    divisionLevel: z.pipe(z.transform((v) => (v === "" ? undefined : v)), z.enum(DIVISIONS, COACH_MESSAGES.divisionLevel)),
    conference: required(COACH_MESSAGES.conference, "Conference", 120),
    numberOfAthletes: athletes,
    areasOfInterest: z.pipe(
      z
        .pipe(z.transform(asList), z.array(z.unknown(), COACH_MESSAGES.areasOfInterest).check(z.maxLength(20, COACH_MESSAGES.areasOfInterest)))
        .check(z.refine((areas) => areas.every((a) => (AREAS_OF_INTEREST as readonly unknown[]).includes(a)), COACH_MESSAGES.areasOfInterest)),
      z.transform((areas) => AREAS_OF_INTEREST.filter((a) => areas.includes(a))),
    ),
    daysAttending: z.pipe(
      z
        .pipe(
          z.transform(asList),
          z.array(z.unknown(), COACH_MESSAGES.daysAttending).check(z.minLength(1, COACH_MESSAGES.daysAttending), z.maxLength(20, COACH_MESSAGES.unknownDay)),
        )
        .check(z.refine((days) => days.every((d) => (dayDates as readonly unknown[]).includes(d)), COACH_MESSAGES.unknownDay)),
      z.transform((days) => dayDates.filter((d) => days.includes(d))),
    ),
    notes: optional("Notes", 2000, "multi"),
  });
}

export type CoachRequest = z.output<ReturnType<typeof coachRequestSchema>>;
