import type { Request, Response } from "express";
import { DomainError } from "../../../errors.ts";
import { formBody } from "../../../http/forms.ts";
import { measureHold } from "../../../metrics/hooks.ts";
import type { EventDetail } from "../../../shared/events/types.ts";
import { REGISTRATION_ERRORS } from "../../../shared/registrations/rules.ts";
import { teamFormSessionId, type TeamRegistration } from "../../../shared/registrations/teamRules.ts";
import { chosenPlan } from "../../core/money/deposit.ts";
import type { Registration } from "../../core/registration.ts";
import { newFormSessionId, remember, visitorOf, type RegistrationRouteDeps } from "../../core/routeKit.tsx";
import { holdTeam } from "../hold.ts";

export const teamCheckoutPath = (event: EventDetail) => `/stripe-checkout?eventId=${event.id}&eventName=${encodeURIComponent(event.title)}&option=team`;

/** Holds the team, for the form post and the JSON call alike (team.routes.tsx); `heldTeam` is the coach's team held already. */
export function teamHolder(deps: RegistrationRouteDeps, heldTeam: (req: Request, eventId: number) => Promise<Registration | undefined>) {
  return async function hold(req: Request, res: Response, event: EventDetail, data: TeamRegistration, discountCode: string) {
    // A call without the form's id (the spec's payload has none) continues the coach's held team, so a double submit holds one team.
    if (!data.formSessionId) data.formSessionId = (await heldTeam(req, event.id))?.formSessionId ?? newFormSessionId();
    if (!teamFormSessionId.safeParse(data.formSessionId).success) throw new DomainError("conflict", REGISTRATION_ERRORS.formExpired);
    return measureHold(deps.db, () =>
      holdTeam(deps, event, data, visitorOf(req, res), {
        code: discountCode || undefined,
        plan: chosenPlan(formBody(req).paymentPlan),
        onHeld: (reference) => remember(req, "team", event.id, reference),
      }),
    );
  };
}
