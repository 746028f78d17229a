import type { Request } from "express";
import type { ReactNode } from "react";
import type { PageContext } from "../../../http/render.tsx";
import type { EventDetail } from "../../../shared/events/types.ts";
import { ReturningBox, ReturningTeamList } from "../../../../components/ReturningFamily.tsx";
import type { ReturningBoxProps, ReturningForm, ReturningFrom, ReturningPrefill } from "../../../shared/registrations/returning.ts";
import { blankAthlete, TEAM_MAXIMUM, TEAM_START_ROWS, type TeamFormValues } from "../../../shared/registrations/teamRules.ts";

/**
 * What a "Registered before?" link opened in this browser fills in (returning.routes.tsx keeps it in the session):
 * the individual form's step 1, or the team form's coach and the rows of last season's athletes ticked.
 */

/** The prefill this session keeps for this event's form, if any. */
export function prefillFor(req: Request, eventId: number, form: ReturningForm): ReturningPrefill | undefined {
  const p = req.session?.returningPrefill;
  return p && p.eventId === eventId && p.form === form ? p : undefined;
}

/** Step 1's values from the prefill (none: a blank form). */
export function individualPrefillValues(req: Request, eventId: number): Record<string, string> {
  return { ...(prefillFor(req, eventId, "individual")?.values ?? {}) };
}

/** The box on a form: the ask, or the note that the form was filled in. */
export function returningBoxProps(req: Request, event: Pick<EventDetail, "id">, from: ReturningFrom): ReturningBoxProps {
  const p = prefillFor(req, event.id, from === "team" ? "team" : "individual");
  return {
    eventId: event.id,
    from,
    csrfToken: (req.res!.locals.page as PageContext).csrfToken,
    prefilled: p ? { fromEventTitle: p.fromEventTitle, others: p.others } : null,
  };
}

/** The team athletes the coach ticked (`?athlete=0&athlete=2`), as indexes into last season's team. */
function ticked(req: Request, count: number): number[] {
  const raw = req.query.athlete;
  const list = (Array.isArray(raw) ? raw : raw === undefined ? [] : [raw]).slice(0, TEAM_MAXIMUM);
  return [...new Set(list.map(Number).filter((i) => Number.isInteger(i) && i >= 0 && i < count))].sort((a, b) => a - b);
}

/** The team form's first values from the prefill: the coach, and a row per ticked athlete (else the blank rows). */
export function teamPrefillValues(req: Request, eventId: number, formSessionId: string): TeamFormValues | undefined {
  const team = prefillFor(req, eventId, "team")?.team;
  if (!team) return undefined;
  const rows = ticked(req, team.athletes.length).map((i) => ({ ...team.athletes[i]! }));
  return { formSessionId, coachInfo: { ...team.coach }, athletes: rows.length > 0 ? rows : Array.from({ length: TEAM_START_ROWS }, blankAthlete) };
}

/** Above the team form: the box, and last season's athletes to tick once a link filled it in. */
export function teamReturningParts(req: Request, event: Pick<EventDetail, "id">): ReactNode {
  const team = prefillFor(req, event.id, "team")?.team;
  return (
    <>
      <ReturningBox {...returningBoxProps(req, event, "team")} />
      {team && team.athletes.length > 0 ? <ReturningTeamList eventId={event.id} athletes={team.athletes} ticked={ticked(req, team.athletes.length)} /> : null}
    </>
  );
}
