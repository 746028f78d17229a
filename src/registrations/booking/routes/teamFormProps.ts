import type { Request, Response } from "express";
import { depositOfferOf } from "../../../../components/PaymentPlanChoice.tsx";
import type { TeamFormProps } from "../../../../widgets/islands/TeamForm.tsx";
import { formBody } from "../../../http/forms.ts";
import type { PageContext } from "../../../http/render.tsx";
import type { EventDetail } from "../../../shared/events/types.ts";
import type { FieldErrors } from "../../../shared/forms.ts";
import type { TeamFormValues } from "../../../shared/registrations/teamRules.ts";
import type { TeamInviteView } from "../../../shared/registrations/invites.ts";
import { discountOf } from "../../core/money/codes.ts";
import type { Registration } from "../../core/registration.ts";
import type { RegistrationRouteDeps } from "../../core/routeKit.tsx";

/** The team form island's props (teamPage.tsx): the rows as posted or held, the held team's code and the plan chosen. */
export async function teamFormProps(
  deps: RegistrationRouteDeps,
  req: Request,
  res: Response,
  at: { event: EventDetail; values: TeamFormValues; errors: FieldErrors; held: Registration | undefined; now: Date; invite: TeamInviteView | null },
): Promise<TeamFormProps> {
  const { event, held } = at;
  return {
    ageLimits: event.ageLimits,
    eventId: event.id,
    eventTitle: event.title,
    teamPriceCents: event.teamPriceCents,
    csrfToken: (res.locals.page as PageContext).csrfToken,
    action: `/team-register/${event.id}`,
    values: at.values,
    errors: at.errors,
    discount: held ? await heldDiscount(deps, held) : null,
    depositOffer: depositOfferOf(event, at.now),
    invite: at.invite,
    paymentPlan: typeof formBody(req).paymentPlan === "string" ? String(formBody(req).paymentPlan) : held?.deposit ? "deposit" : "full",
  };
}

async function heldDiscount(deps: RegistrationRouteDeps, r: Registration): Promise<TeamFormProps["discount"]> {
  const found = await discountOf(deps, r);
  return found ? { code: found.code, type: found.type as "percent" | "fixed", value: found.value } : null;
}
