/**
 * A team's invite link (docs/behaviour.md, "A team's invite link"): the rows families fill in through the coach's
 * one shared link, checked by the team form's own schema, and what the coach's form shows of them.
 * Browser-safe: data, texts and pure rules.
 */
import { validate, type FieldErrors, type Validation } from "../forms.ts";
import { REGISTRATION_MESSAGES } from "./rules.ts";
import { ATHLETE_FIELDS, blankCoach, isComplete, teamSchemaFor, type AgeLimits, type AthleteRow, type TeamAthlete, type TeamFormValues } from "./teamRules.ts";

/** How often the coach's form (with JavaScript) asks for the families' rows. */
export const INVITE_POLL_MS = 5_000;

/** Where an invite link opens (its token follows; the logs and sent e-mails redact it). */
export const INVITE_PATH = "/team-invite";

export const INVITE_TEXT = {
  createButton: "Create an invite link for your athletes",
  intro: "Share this link with your athletes' families (by text or e-mail): each family fills in its own athlete's row and signs the waiver, and the row appears here.",
  copy: "Copy link",
  copied: "Link copied",
  created: "Your team's invite link is ready",
  rowsTitle: "Rows filled in by families",
  noRows: "No family has filled in a row yet. New rows appear here (reload the page without JavaScript).",
  complete: "complete",
  waiverMissing: "waiver and medical release not signed yet (the family can sign after payment)",
  heldNote: "A row a family corrects after you pressed Register Team reaches the team only if you go back and register again.",
  // The family's page
  title: (team: string) => `Join ${team}`,
  already: "Already on the team",
  noneYet: "No athlete is on the team yet.",
  saved: "Thank you: your athlete's row is saved. The coach sees it now.",
  updated: "Your athlete's row is updated.",
  ownRow: "You filled in this row from this browser: you can correct it until the coach pays.",
  closed: "The coach has paid for this team: this link no longer takes changes. Use the link in the e-mail your athlete received to check the details or sign the waiver.",
  full: (max: number) => `This team already has ${max} athletes, the most one team can register. Please ask the coach.`,
  waiverPartial: "To sign now, type your full name, choose who you are and tick the box; or leave all three empty to sign after payment.",
  unknownTeam: "your coach's team",
} as const;

/** One family's row as the coach's form shows it: the coach is the team's contact and sees the whole row. */
export interface InvitedRow {
  id: number;
  row: AthleteRow;
  waiverSigned: boolean;
  /** What the athlete still lacks (a minor's waiver). */
  missing: string[];
}

/** The invite as the coach's team form shows it. */
export interface TeamInviteView {
  url: string;
  rows: InvitedRow[];
}

/** Values that are a team of one row: the team form's schema checks the row, its messages are the team form's. */
const oneRowTeam = (row: AthleteRow): TeamFormValues => ({ formSessionId: "", coachInfo: { ...blankCoach(), firstName: "x", lastName: "x", email: "x@example.com", phone: "x" }, athletes: [row] });

/**
 * A family's row (fields `athlete[firstName]`...): every field required, each checked as the team form checks it
 * (age within the event's limits, the listed shirt sizes, a valid e-mail). Errors under `athlete.<field>`.
 */
export function validateInviteRow(ages: AgeLimits, posted: unknown): Validation<TeamAthlete> {
  const body = (posted && typeof posted === "object" ? posted : {}) as Record<string, unknown>;
  const raw = (body.athlete && typeof body.athlete === "object" ? body.athlete : {}) as Record<string, unknown>;
  const row = Object.fromEntries(ATHLETE_FIELDS.map((f) => [f, typeof raw[f] === "string" ? raw[f].slice(0, 6000).trim() : ""])) as AthleteRow;
  const errors: FieldErrors = {};
  for (const f of ATHLETE_FIELDS) if (row[f] === "") errors[`athlete.${f}`] = REGISTRATION_MESSAGES.required;
  // The schema checks complete rows only: a blank field is filled with a valid stand-in so every other field is checked too.
  const standIn: AthleteRow = { firstName: "x", lastName: "x", age: String(ages.min), email: "x@example.com", shirtSize: "Small", parentName: "x", parentPhoneNumber: "x" };
  const checked = Object.fromEntries(ATHLETE_FIELDS.map((f) => [f, row[f] === "" ? standIn[f] : row[f]])) as AthleteRow;
  const team = validate(teamSchemaFor(ages), oneRowTeam(checked));
  if (!team.ok) for (const [k, v] of Object.entries(team.errors)) if (k.startsWith("athletes.0.")) errors[`athlete.${k.slice("athletes.0.".length)}`] ??= v;
  // The team form's e-mail message names the athlete: without a name yet, the plain one.
  if (errors["athlete.email"] && (row.firstName === "" || row.lastName === "") && row.email !== "") errors["athlete.email"] = REGISTRATION_MESSAGES.email;
  const first = Object.values(errors)[0];
  if (first !== undefined || !isComplete(row)) return { ok: false, errors, message: first ?? REGISTRATION_MESSAGES.required };
  return {
    ok: true,
    data: { firstName: row.firstName, lastName: row.lastName, age: Number(row.age), email: row.email, shirtSize: row.shirtSize as TeamAthlete["shirtSize"], parentName: row.parentName, parentPhoneNumber: row.parentPhoneNumber },
  };
}

/** The team the coach pays for: the coach's own rows, then every family's row (each complete by the rule above). */
export const withInvitedRows = (values: TeamFormValues, invited: InvitedRow[]): TeamFormValues => ({ ...values, athletes: [...values.athletes, ...invited.map((r) => r.row)] });

/** How many more families an invite takes: the team's maximum less the coach's own non-blank rows and the rows in. */
export function invitePlacesLeft(maximum: number, coachRows: AthleteRow[], familyRows: number): number {
  const own = coachRows.filter((r) => ATHLETE_FIELDS.some((f) => r[f].trim() !== "")).length;
  return Math.max(0, maximum - own - familyRows);
}
