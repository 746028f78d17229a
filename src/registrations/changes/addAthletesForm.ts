import type { EventDetail } from "../../shared/events/types.ts";
import { validate, type FieldErrors } from "../../shared/forms.ts";
import { REGISTRATION_MESSAGES } from "../../shared/registrations/rules.ts";
import { ATHLETE_FIELDS, teamSchemaFor, teamValuesOf, type AthleteRow, type TeamAthlete } from "../../shared/registrations/teamRules.ts";
import type { Registration } from "../core/registration.ts";
import { teamOf } from "../core/tables/formHolds.ts";
import { CHANGE_TEXT } from "../../shared/registrations/changeTexts.ts";

/** The coach's form for athletes added to a paid team: its rows as posted and their checks. */

/** The new athletes' rows as posted (`athletes[0][firstName]`...): strings only, at most `max` rows. */
export function postedRows(body: Record<string, unknown>, max: number): AthleteRow[] {
  const raw = body.athletes;
  const list: unknown[] = Array.isArray(raw) ? raw : raw && typeof raw === "object" ? Object.entries(raw as Record<string, unknown>).filter(([k]) => /^\d{1,3}$/.test(k)).sort(([a], [b]) => Number(a) - Number(b)).map(([, v]) => v) : [];
  return list.slice(0, max).map((row) => {
    const r = (row && typeof row === "object" ? row : {}) as Record<string, unknown>;
    return Object.fromEntries(ATHLETE_FIELDS.map((f) => [f, typeof r[f] === "string" ? (r[f]).slice(0, 400) : ""])) as AthleteRow;
  });
}

/**
 * The coach's new athletes, checked by the team form's own schema and messages: the team as it stands with the new
 * rows after it, so every rule (ages for this event, shirt sizes, e-mails, lengths, the team's ceiling) is the
 * registration's. A row left wholly blank is ignored; a row partly filled needs every field. Errors come back under
 * the form's names (`athletes.0.email`, the new rows counted from 0).
 */
export function validateNewAthletes(event: EventDetail, r: Registration, rows: AthleteRow[]): { ok: true; athletes: TeamAthlete[] } | { ok: false; errors: FieldErrors } {
  const team = teamValuesOf(teamOf({ ...r, athletes: r.athletes.filter((a) => a.withdrawnAt === null) }));
  const errors: FieldErrors = {};
  const filled = rows.map((row, i) => ({ row, i })).filter(({ row }) => ATHLETE_FIELDS.some((f) => row[f].trim() !== ""));
  for (const { row, i } of filled) for (const f of ATHLETE_FIELDS) if (row[f].trim() === "") errors[`athletes.${i}.${f}`] = REGISTRATION_MESSAGES.required;
  if (filled.length === 0) errors.athletes = CHANGE_TEXT.noAthletes;
  const existing = team.athletes.length;
  const checked = validate(teamSchemaFor(event.ageLimits), { ...team, athletes: [...team.athletes, ...filled.map(({ row }) => row)] });
  if (!checked.ok) {
    for (const [k, v] of Object.entries(checked.errors)) {
      const m = /^athletes\.(\d+)\.(\w+)$/.exec(k);
      if (m && Number(m[1]) >= existing) errors[`athletes.${filled[Number(m[1]) - existing]!.i}.${m[2]}`] ??= v;
      else if (k === "athletes") errors.athletes ??= v;
    }
  }
  if (Object.keys(errors).length > 0 || !checked.ok) return { ok: false, errors };
  return { ok: true, athletes: checked.data.athletes.slice(existing) };
}
