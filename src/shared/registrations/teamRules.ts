/**
 * Team registration rules: the coach, the athlete rows, the team price, and the form's one zod schema, shared by
 * the server and the TeamForm widget so both say the spec's words (section 5, "Team").
 * Browser-safe: zod and plain data only.
 */
import * as z from "zod/mini";
import { formatPrice } from "../money.ts";
import { formSessionIdSchema, REGISTRATION_ERRORS, REGISTRATION_MESSAGES, SHIRT_SIZES } from "./rules.ts";

export const TEAM_MINIMUM = 5;
/** Our own ceiling: a roster bigger than this is a mistake or abuse (and would not fit one form post). */
export const TEAM_MAXIMUM = 60;
/** 'Ages 10+ through high school', as every page says; an event's own limits (events.min_age, max_age) replace it. */
export const TEAM_AGE: AgeLimits = { min: 10, max: 19 };
export interface AgeLimits {
  min: number;
  max: number;
}
/** The form starts with this many blank athlete rows. */
export const TEAM_START_ROWS = 2;
export const TEAM_PACKAGE = { code: "team", label: "Team Registration" } as const;

/** The spec's titles and messages, word for word, and our own where it has none. */
export const TEAM_TEXT = {
  coachRequiredTitle: "Coach Information Required",
  coachRequired: (fields: string[]) => `Please fill in: ${fields.join(", ")}`,
  invalidEmailTitle: "Invalid Email",
  coachEmail: "Please enter a valid email address for the coach.",
  minimumTitle: "Minimum Team Size Required",
  minimum: (complete: number, incomplete: number) =>
    `You have ${complete} complete athletes. Need at least ${TEAM_MINIMUM}. ${incomplete > 0 ? `${incomplete} athletes have missing information.` : "Please add more athletes."}`,
  athleteEmail: (first: string, last: string) => `Please enter a valid email address for ${first} ${last}.`,
  registrationErrorTitle: "Registration Error",
  registrationErrorDefault: "Please check all fields and try again.",
  unexpected: "An unexpected error occurred. Please check your information and try again.",
  paymentSetupTitle: "Payment Setup Error",
  paymentSetup: "Unable to set up payment. Please try again.",
  readyTitle: "Team Registration Ready!",
  ready: "Your team's places are held for 30 minutes. Taking you to payment...",
  minimumNote: `Minimum ${TEAM_MINIMUM} athletes required`,
  processing: "Processing...",
  button: (totalCents: number) => `Register Team - ${formatPrice(totalCents)}`,
  // Ours: the spec's button names the total; with the deposit plan chosen it names what is paid today.
  depositButton: (todayCents: number) => `Register Team - Pay ${formatPrice(todayCents)} today`,
  // Ours:
  age: (limits: AgeLimits) =>
    limits.min === TEAM_AGE.min && limits.max === TEAM_AGE.max
      ? `Athletes must be ${limits.min} to ${limits.max} years old (ages 10+ through high school): enter the age in whole years`
      : `Athletes must be ${limits.min} to ${limits.max} years old for this event: enter the age in whole years`,
  shirtSize: "Please choose one of the listed sizes",
  totalChanged: (athletes: number, totalCents: number) =>
    `Your team now has ${athletes} complete ${athletes === 1 ? "athlete" : "athletes"}, so the total is ${formatPrice(totalCents)}. Please check it and press Register Team again.`,
  tooMany: `A team can have at most ${TEAM_MAXIMUM} athletes. Please register the rest as a second team.`,
  notEnoughPlaces: (left: number, team: number) =>
    left === 0
      ? "This event is sold out: every place is taken or held. Please choose another event."
      : `Only ${left} ${left === 1 ? "place is" : "places are"} left at this event, not enough for your team of ${team} athletes. Please register fewer athletes or choose another event.`,
  dataNotFound: "Team registration data not found. Please restart the registration process.",
  unreadable: "Please enter this as text",
  control: "Please remove line breaks and special control characters",
  format: "Please remove invisible direction or layout characters",
  invisible: "Please enter visible text",
} as const;

export const COACH_FIELDS = [
  { name: "firstName", label: "First Name" },
  { name: "lastName", label: "Last Name" },
  { name: "email", label: "Email" },
  { name: "phone", label: "Phone" },
] as const;

export const ATHLETE_FIELDS = ["firstName", "lastName", "age", "email", "shirtSize", "parentName", "parentPhoneNumber"] as const;
export type AthleteField = (typeof ATHLETE_FIELDS)[number];
export type AthleteRow = Record<AthleteField, string>;
export type CoachValues = { firstName: string; lastName: string; email: string; phone: string; teamName: string };

/** The form's values: every field as the visitor typed it (a row may be blank or half filled). */
export interface TeamFormValues {
  formSessionId: string;
  coachInfo: CoachValues;
  athletes: AthleteRow[];
}

export const blankAthlete = (): AthleteRow => ({ firstName: "", lastName: "", age: "", email: "", shirtSize: "", parentName: "", parentPhoneNumber: "" });
export const blankCoach = (): CoachValues => ({ firstName: "", lastName: "", email: "", phone: "", teamName: "" });

/** A value the form could have sent: a string (a JSON number only for the age); anything else is marked unreadable. */
const UNREADABLE = "\u0000unreadable";
const text = (v: unknown, numberOk = false) =>
  v === undefined || v === null ? "" : typeof v === "string" ? v.slice(0, 6000) : numberOk && typeof v === "number" && Number.isFinite(v) ? String(v) : UNREADABLE;

/**
 * Any input (a JSON body, or a form post whose rows the body parser gives as an array or, past 20 rows, as an
 * object with numeric keys) as form values: strings only, rows in their order, at most one row past the maximum
 * kept (so the maximum's message can show).
 */
export function teamFormValues(input: unknown): TeamFormValues {
  const body = (input && typeof input === "object" ? input : {}) as Record<string, unknown>;
  const coach = (body.coachInfo && typeof body.coachInfo === "object" ? body.coachInfo : {}) as Record<string, unknown>;
  const raw = body.athletes;
  let rows: unknown[] = [];
  if (Array.isArray(raw)) rows = raw;
  else if (raw && typeof raw === "object") {
    rows = Object.entries(raw as Record<string, unknown>)
      .filter(([k]) => /^\d{1,3}$/.test(k))
      .sort(([a], [b]) => Number(a) - Number(b))
      .map(([, v]) => v);
  }
  return {
    formSessionId: typeof body.formSessionId === "string" ? body.formSessionId.slice(0, 100) : "",
    coachInfo: { firstName: text(coach.firstName), lastName: text(coach.lastName), email: text(coach.email), phone: text(coach.phone), teamName: text(coach.teamName) },
    athletes: rows.slice(0, TEAM_MAXIMUM + 1).map((r) => {
      const row = (r && typeof r === "object" ? r : {}) as Record<string, unknown>;
      return Object.fromEntries(ATHLETE_FIELDS.map((f) => [f, text(row[f], f === "age")])) as AthleteRow;
    }),
  };
}

/** The spec: an athlete is complete only with every one of the seven fields non-blank. */
export const isComplete = (row: AthleteRow) => ATHLETE_FIELDS.every((f) => row[f].trim() !== "");
const isBlank = (row: AthleteRow) => ATHLETE_FIELDS.every((f) => row[f].trim() === "");

export function countAthletes(rows: AthleteRow[]): { complete: number; incomplete: number } {
  const complete = rows.filter(isComplete).length;
  return { complete, incomplete: rows.filter((r) => !isComplete(r) && !isBlank(r)).length };
}

/** The summary's total: complete athletes times the team price (a discount, if any, is taken off by the caller). */
export const teamTotalCents = (completeAthletes: number, teamPriceCents: number) => completeAthletes * teamPriceCents;

export interface TeamAthlete {
  firstName: string;
  lastName: string;
  age: number;
  email: string;
  shirtSize: (typeof SHIRT_SIZES)[number];
  parentName: string;
  parentPhoneNumber: string;
}

export interface TeamRegistration {
  formSessionId: string;
  coach: { firstName: string; lastName: string; email: string; phone: string; teamName: string | null };
  /** The complete athletes, in the form's order: the team that is registered. */
  athletes: TeamAthlete[];
}

const MAX = { name: 100, email: 254, phone: 40, parent: 160, team: 160 } as const;

/** Single-line text: no control characters or line breaks, no bidi overrides, not only invisible characters. */
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;
const FORMAT = /[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029]/;
const INVISIBLE_ONLY = /^[\s\u00ad\u034f\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b-\u200f\u2060-\u2064\u3164\ufe00-\ufe0f\ufeff\uffa0]+$/u;
function textProblem(v: string): string | null {
  if (v === UNREADABLE) return TEAM_TEXT.unreadable;
  if (CONTROL.test(v)) return TEAM_TEXT.control;
  if (FORMAT.test(v)) return TEAM_TEXT.format;
  // Values are trimmed: spaces alone are a blank field, but zero-width characters alone are not text.
  if (v.trim() !== "" && INVISIBLE_ONLY.test(v.trim())) return TEAM_TEXT.invisible;
  return null;
}
const anEmail = z.email();
const emailOk = (v: string) => anEmail.safeParse(v).success;

/** The title that goes with a message of this schema (toasts and JSON answers). */
export function teamErrorTitle(message: string): string {
  if (message.startsWith("Please fill in: ")) return TEAM_TEXT.coachRequiredTitle;
  if (message === TEAM_TEXT.coachEmail) return TEAM_TEXT.invalidEmailTitle;
  if (message.startsWith("You have ")) return TEAM_TEXT.minimumTitle;
  return TEAM_TEXT.registrationErrorTitle;
}

/**
 * The team form's one schema. Issues come in the spec's order (coach fields, coach e-mail, team size, each
 * athlete's e-mail), so the first message is the one the spec shows; every field's own message comes too.
 * The form session id is checked by the routes (the widget has one from the server). Ages are checked against the
 * event's limits (`teamSchemaFor(event.ageLimits)`); `teamRegistrationSchema` is the one for 10 to 19.
 */
export const teamSchemaFor = (ages: AgeLimits) => z.pipe(
  z.pipe(z.unknown(), z.transform((input) => teamFormValues(input))).check(z.superRefine((v, ctx) => {
    const issue = (path: (string | number)[], message: string) => ctx.addIssue({ code: "custom", path, message });
    // Unreadable or hostile text first: such a value is refused whatever else the form holds.
    for (const [f, value] of Object.entries(v.coachInfo)) {
      const problem = textProblem(value);
      if (problem) issue(["coachInfo", f], problem);
    }
    v.athletes.forEach((row, i) => {
      for (const f of ATHLETE_FIELDS) {
        const problem = textProblem(row[f]);
        if (problem) issue(["athletes", i, f], problem);
      }
    });
    const coach = v.coachInfo;
    const missing = COACH_FIELDS.filter((f) => coach[f.name].trim() === "");
    if (missing.length > 0) {
      issue(["coachInfo"], TEAM_TEXT.coachRequired(missing.map((f) => f.label)));
      for (const f of missing) issue(["coachInfo", f.name], REGISTRATION_MESSAGES.required);
    }
    if (coach.email.trim() !== "" && !emailOk(coach.email.trim())) issue(["coachInfo", "email"], TEAM_TEXT.coachEmail);

    const { complete, incomplete } = countAthletes(v.athletes);
    if (v.athletes.length > TEAM_MAXIMUM) issue(["athletes"], TEAM_TEXT.tooMany);
    else if (complete < TEAM_MINIMUM) issue(["athletes"], TEAM_TEXT.minimum(complete, incomplete));

    v.athletes.forEach((row, i) => {
      if (!isComplete(row)) return;
      const first = row.firstName.trim();
      const last = row.lastName.trim();
      if (!emailOk(row.email.trim())) issue(["athletes", i, "email"], TEAM_TEXT.athleteEmail(first, last));
      const age = row.age.trim();
      if (!/^\d{1,2}$/.test(age) || Number(age) < ages.min || Number(age) > ages.max) issue(["athletes", i, "age"], TEAM_TEXT.age(ages));
      if (!(SHIRT_SIZES as readonly string[]).includes(row.shirtSize.trim())) issue(["athletes", i, "shirtSize"], TEAM_TEXT.shirtSize);
      const limits: [AthleteField, number][] = [["firstName", MAX.name], ["lastName", MAX.name], ["email", MAX.email], ["parentName", MAX.parent], ["parentPhoneNumber", MAX.phone]];
      for (const [f, max] of limits) if (row[f].trim().length > max) issue(["athletes", i, f], REGISTRATION_ERRORS.tooLong(max));
    });
    const coachLimits: [keyof CoachValues, number][] = [["firstName", MAX.name], ["lastName", MAX.name], ["email", MAX.email], ["phone", MAX.phone], ["teamName", MAX.team]];
    for (const [f, max] of coachLimits) if (coach[f].trim().length > max) issue(["coachInfo", f], REGISTRATION_ERRORS.tooLong(max));
  })),
  z.transform(
    (v: TeamFormValues): TeamRegistration => ({
      formSessionId: v.formSessionId,
      coach: {
        firstName: v.coachInfo.firstName.trim(),
        lastName: v.coachInfo.lastName.trim(),
        email: v.coachInfo.email.trim(),
        phone: v.coachInfo.phone.trim(),
        teamName: v.coachInfo.teamName.trim() || null,
      },
      athletes: v.athletes.filter(isComplete).map((r) => ({
        firstName: r.firstName.trim(),
        lastName: r.lastName.trim(),
        age: Number(r.age.trim()),
        email: r.email.trim(),
        shirtSize: r.shirtSize.trim() as TeamAthlete["shirtSize"],
        parentName: r.parentName.trim(),
        parentPhoneNumber: r.parentPhoneNumber.trim(),
      })),
    }),
  ),
);

export const teamRegistrationSchema = teamSchemaFor(TEAM_AGE);

/**
 * Without JavaScript the button's total is the one of the last page the server rendered, while the coach may have
 * completed more rows since. The form posts that shown total (`shownTotalCents`); a register post whose total
 * differs is answered with the form again and `TEAM_TEXT.totalChanged`, so the charge is always the amount the
 * coach pressed. A post without the field (the JSON call) has nothing to compare.
 */
export function shownTotalMatches(shown: unknown, totalCents: number): boolean {
  if (shown === undefined) return true;
  return typeof shown === "string" && /^\d{1,9}$/.test(shown) && Number(shown) === totalCents;
}

export const teamFormSessionId = formSessionIdSchema;

/** Form values from a stored team (Back from the checkout): the same form id, so a resubmit updates it. */
export function teamValuesOf(r: TeamRegistration): TeamFormValues {
  return {
    formSessionId: r.formSessionId,
    coachInfo: { ...r.coach, teamName: r.coach.teamName ?? "" },
    athletes: r.athletes.map((a) => ({ ...a, age: String(a.age) })),
  };
}

/** The coach's confirmation (its e-mail and its page) says so: each family got its own link in the same transaction (manage/family.ts). */
export const FAMILIES_EMAILED =
  "We've e-mailed each athlete's family (at the athlete's address on the roster) its own private link to check the details, add medical notes and, for an athlete under 18, sign the liability waiver and medical release. Your roster page (the link below) shows who is still missing what and sends a family its link again.";
