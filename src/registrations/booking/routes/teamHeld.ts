import type { Request } from "express";
import type { PageContext } from "../../../http/render.tsx";
import { blankAthlete, blankCoach, TEAM_START_ROWS, teamValuesOf, type TeamFormValues } from "../../../shared/registrations/teamRules.ts";
import { holdIsLive } from "../../core/deps.ts";
import type { Registration } from "../../core/registration.ts";
import { ownReference, type RegistrationRouteDeps } from "../../core/routeKit.tsx";
import { teamOf } from "../../core/tables/formHolds.ts";
import { findByReference } from "../../core/tables/registrations.ts";
import { teamPrefillValues } from "./returningPrefill.tsx";

/** The coach's held team (this session's, still holding its places) and the form's values that start from it. */
export function heldTeams(deps: RegistrationRouteDeps) {
  /** The coach's team for the event while it still holds its places. */
  async function heldTeam(req: Request, eventId: number): Promise<Registration | undefined> {
    const reference = ownReference(req, eventId, "team");
    const r = reference ? await findByReference(deps.db, reference) : undefined;
    return r && r.kind === "team" && holdIsLive(r, deps.clock()) ? r : undefined;
  }

  /** A new form, or the coach's held team again (Back from the checkout keeps every row and the same form id). */
  async function startValues(req: Request, eventId: number): Promise<TeamFormValues> {
    const held = await heldTeam(req, eventId);
    // A waiting-list offer's hold has no athletes yet: one blank row per place held.
    if (held) return held.athletes.length > 0 ? teamValuesOf(teamOf(held)) : { ...teamValuesOf(teamOf(held)), athletes: Array.from({ length: held.places }, blankAthlete) };
    const formSessionId = (req.res!.locals.page as PageContext).newFormId();
    return teamPrefillValues(req, eventId, formSessionId) ?? { formSessionId, coachInfo: blankCoach(), athletes: Array.from({ length: TEAM_START_ROWS }, blankAthlete) };
  }

  return { heldTeam, startValues };
}
