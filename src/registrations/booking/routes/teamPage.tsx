import type { Request, Response } from "express";
import { renderPage } from "../../../http/render.tsx";
import type { FieldErrors } from "../../../shared/forms.ts";
import { placesOpen } from "../../waitlist/forSale.ts";
import { registrationStatus, REGISTRATION_STATUS_LABEL, teamSavingsCents } from "../../../shared/events/rules.ts";
import type { EventDetail } from "../../../shared/events/types.ts";
import { formatPrice } from "../../../shared/money.ts";
import { Widget } from "../../../../views/components/Widget.tsx";
import { RegistrationUnavailable } from "../../../../views/pages/registration/RegisterPage.tsx";
import { TeamRegisterPage } from "../../../../views/pages/registration/TeamRegisterPage.tsx";
import { REGISTRATION_ERRORS } from "../../../shared/registrations/rules.ts";
import { TEAM_MINIMUM, TEAM_TEXT, type TeamFormValues } from "../../../shared/registrations/teamRules.ts";
import type { RegistrationRouteDeps } from "../../core/routeKit.tsx";
import { heldTeams } from "./teamHeld.ts";
import { teamFormProps } from "./teamFormProps.ts";
import { teamReturningParts } from "./returningPrefill.tsx";
import { coachInvites } from "./teamInvite.ts";

/** The team form's pages (team.tsx's handlers answer with them): the form with the coach's held team, or why a team cannot register now. */
export function teamPages(deps: RegistrationRouteDeps) {
  const { db } = deps;

  const { heldTeam, startValues: heldValues } = heldTeams(deps);
  const invites = coachInvites(deps);
  /** A coach with an invite link starts from the draft on the server; otherwise from the held team or a new form. */
  const startValues = async (req: Request, eventId: number) => (await invites.draftValues(req, eventId)) ?? (await heldValues(req, eventId));

  function page(req: Request, res: Response, event: EventDetail, content: React.ReactNode, status?: number) {
    res.set("cache-control", "no-store");
    renderPage(
      req,
      res,
      <TeamRegisterPage event={{ ...event, savingsCents: teamSavingsCents(event) }}>{content}</TeamRegisterPage>,
      {
        title: `Team Registration: ${event.title}`,
        description: `Register your team for ${event.title} at ${formatPrice(event.teamPriceCents)} per athlete, ${event.dateText}, ${event.location}.`,
        sameForStatelessVisitors: true,
        status,
        noindex: true,
      },
    );
  }

  /** The form, or why a team cannot register now (closed, or fewer places left than the smallest team). */
  async function showForm(req: Request, res: Response, event: EventDetail, values: TeamFormValues, errors: FieldErrors, status?: number) {
    const held = await heldTeam(req, event.id);
    const now = deps.clock();
    const left = await placesOpen(db, event.id, now, held?.id);
    const st = registrationStatus(event, left, now);
    if (st === "closed") {
      return page(req, res, event, <RegistrationUnavailable title={REGISTRATION_STATUS_LABEL.closed} message={REGISTRATION_ERRORS.closed} eventId={event.id} />, status);
    }
    if (st === "soldOut" || left < TEAM_MINIMUM) {
      return page(req, res, event, <RegistrationUnavailable title={REGISTRATION_STATUS_LABEL.soldOut} message={TEAM_TEXT.notEnoughPlaces(left, TEAM_MINIMUM)} eventId={event.id} />, status);
    }
    const props = await teamFormProps(deps, req, res, { event, values, errors, held, now, invite: await invites.view(req, event.id) });
    page(req, res, event, <>{teamReturningParts(req, event)}<Widget name="TeamForm" load="interaction" props={props} /></>, status);
  }

  return { heldTeam, showForm, startValues, invites };
}
