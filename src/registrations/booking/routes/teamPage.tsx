import type { Request, Response } from "express";
import { renderPage, type PageContext } from "../../../http/render.tsx";
import type { FieldErrors } from "../../../shared/forms.ts";
import { placesOpen } from "../../waitlist/offers.ts";
import { registrationStatus, REGISTRATION_STATUS_LABEL, teamSavingsCents } from "../../../shared/events/rules.ts";
import type { EventDetail } from "../../../shared/events/types.ts";
import { formatPrice } from "../../../shared/money.ts";
import { Widget } from "../../../../views/components/Widget.tsx";
import { RegistrationUnavailable } from "../../../../views/pages/registration/RegisterPage.tsx";
import { TeamRegisterPage } from "../../../../views/pages/registration/TeamRegisterPage.tsx";
import type { TeamFormProps } from "../../../../widgets/islands/TeamForm.tsx";
import type { Registration } from "../../core/registration.ts";
import { teamOf } from "../../core/tables/formHolds.ts";
import { findByReference } from "../../core/tables/registrations.ts";
import { REGISTRATION_ERRORS } from "../../../shared/registrations/rules.ts";
import { discountOf } from "../../core/money/codes.ts";
import { holdIsLive } from "../../core/deps.ts";
import { TEAM_MINIMUM, TEAM_START_ROWS, TEAM_TEXT, blankAthlete, blankCoach, teamValuesOf, type TeamFormValues } from "../../../shared/registrations/teamRules.ts";
import { ownReference, type RegistrationRouteDeps } from "../../core/routeKit.tsx";
import { depositOfferOf } from "../../../../components/PaymentPlanChoice.tsx";
import { formBody } from "../../../http/forms.ts";

/** The team form's pages (team.tsx's handlers answer with them): the form with the coach's held team, or why a team cannot register now. */
export function teamPages(deps: RegistrationRouteDeps) {
  const { db } = deps;

  /** The coach's team for the event while it still holds its places. */
  async function heldTeam(req: Request, eventId: number): Promise<Registration | undefined> {
    const reference = ownReference(req, eventId, "team");
    const r = reference ? await findByReference(db, reference) : undefined;
    return r && r.kind === "team" && holdIsLive(r, deps.clock()) ? r : undefined;
  }

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
    const props: TeamFormProps = {
      ageLimits: event.ageLimits,
      eventId: event.id,
      eventTitle: event.title,
      teamPriceCents: event.teamPriceCents,
      csrfToken: (res.locals.page as PageContext).csrfToken,
      action: `/team-register/${event.id}`,
      values,
      errors,
      discount: held ? await heldDiscount(held) : null,
      depositOffer: depositOfferOf(event, now),
      paymentPlan: typeof formBody(req).paymentPlan === "string" ? String(formBody(req).paymentPlan) : held?.deposit ? "deposit" : "full",
    };
    page(req, res, event, <Widget name="TeamForm" load="interaction" props={props} />, status);
  }

  async function heldDiscount(r: Registration): Promise<TeamFormProps["discount"]> {
    const found = await discountOf(deps, r);
    return found ? { code: found.code, type: found.type as "percent" | "fixed", value: found.value } : null;
  }

  /** A new form, or the coach's held team again (Back from the checkout keeps every row and the same form id). */
  async function startValues(req: Request, eventId: number): Promise<TeamFormValues> {
    const held = await heldTeam(req, eventId);
    // A waiting-list offer's hold has no athletes yet: one blank row per place held.
    if (held) return held.athletes.length > 0 ? teamValuesOf(teamOf(held)) : { ...teamValuesOf(teamOf(held)), athletes: Array.from({ length: held.places }, blankAthlete) };
    return { formSessionId: (req.res!.locals.page as PageContext).newFormId(), coachInfo: blankCoach(), athletes: Array.from({ length: TEAM_START_ROWS }, blankAthlete) };
  }

  return { heldTeam, showForm, startValues };
}
