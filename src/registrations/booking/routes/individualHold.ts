import type { Request, Response } from "express";
import { measureHold } from "../../../metrics/hooks.ts";
import type { EventDetail } from "../../../shared/events/types.ts";
import { formatPrice } from "../../../shared/money.ts";
import { packageName } from "../../../shared/registrations/packages.ts";
import type { IndividualRegistration } from "../../../shared/registrations/rules.ts";
import { discountOf } from "../../core/money/codes.ts";
import { amountDueNow, chosenPlan, depositCoveredNotice, depositStep } from "../../core/money/deposit.ts";
import { familyLines } from "../../core/family.ts";
import { remember, visitorOf, type RegistrationRouteDeps } from "../../core/routeKit.tsx";
import { holdIndividual, type HoldOutcome } from "../hold.ts";

/** Holds the places, for both the form post and the JSON call (individual.routes.tsx); a code is the visitor's, checked by the server. */
export function individualHolder(deps: RegistrationRouteDeps) {
  return function hold(req: Request, res: Response, event: EventDetail, data: IndividualRegistration, rawCode: unknown, rawPlan: unknown) {
    const code = typeof rawCode === "string" ? rawCode.slice(0, 200).trim() : "";
    return measureHold(deps.db, () =>
      holdIndividual(deps, event, data, visitorOf(req, res), {
        code: code || undefined,
        plan: chosenPlan(rawPlan),
        onHeld: (reference) => remember(req, "individual", event.id, reference),
      }),
    );
  };
}

/** The JSON call's answer for places held and waiting for payment: what to charge now and what the page shows beside it. */
export async function heldAnswer(deps: RegistrationRouteDeps, event: EventDetail, outcome: Extract<HoldOutcome, { status: "held" }>) {
  const { registration } = outcome;
  return {
    success: true,
    clientSecret: outcome.clientSecret,
    // Plan deposit: what is charged now is the deposit; the balance and its date come with it.
    amount: amountDueNow(registration) / 100,
    amountFormatted: formatPrice(amountDueNow(registration)),
    deposit: depositStep(event, registration),
    notice: depositCoveredNotice(event, registration),
    isFreeRegistration: registration.amountCents === 0,
    discount: outcome.discount === undefined ? await discountOf(deps, registration) : outcome.discount,
    registrationId: registration.reference,
    optionLabel: packageName(registration.packageCode),
    reservedUntil: registration.reservedUntil?.toISOString() ?? null,
    family: familyLines(event, registration),
  };
}
