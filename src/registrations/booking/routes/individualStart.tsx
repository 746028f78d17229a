import type { Request, Response } from "express";
import { PaymentNotOpenError } from "../../../payments/core.ts";
import type { EventDetail } from "../../../shared/events/types.ts";
import { holdIsLive } from "../../core/deps.ts";
import { PAYMENT_SETUP_ERROR, preparePayment } from "../../core/money/payment.ts";
import { paymentStep } from "../../core/money/paymentStep.ts";
import { ownReference, type RegistrationRouteDeps } from "../../core/routeKit.tsx";
import { isRegistered } from "../../core/states.ts";
import { findByReference } from "../../core/tables/registrations.ts";
import { confirmationContent, paymentReceivedContent } from "./confirmation.tsx";
import { individualPages, valuesOf } from "./individualPage.tsx";
import { individualPrefillValues } from "./returningPrefill.tsx";
import { offeredAthletes } from "../../waitlist/tables/rounds.ts";

/**
 * GET /register/{id} (individual.routes.tsx): step 1 with the visitor's own registration, the payment step of a live
 * hold, or the confirmation once registered; why it cannot register now otherwise.
 */
export function registerPage(deps: RegistrationRouteDeps, confirmation: (req: Request, res: Response, event: EventDetail) => Promise<void>) {
  const { db } = deps;
  const { page, stepsWidget, status, unavailable } = individualPages(deps);

  return async function showRegister(req: Request, res: Response, event: EventDetail): Promise<void> {
    const reference = ownReference(req, event.id);
    const own = reference ? await findByReference(db, reference) : undefined;
    if ((own && isRegistered(own.status)) || own?.status === "needs_review") return confirmation(req, res, event);
    const held = own && holdIsLive(own, deps.clock()) ? own : undefined;

    const st = await status(event, held?.id);
    // A waiting-list offer's form registers exactly the athletes it was offered.
    const fixed = own ? await offeredAthletes(db, own.formSessionId) : undefined;
    if (st !== "open") return unavailable(req, res, event, st);

    if (req.query.step === "payment" && held) {
      try {
        const clientSecret = await preparePayment(deps, held);
        return page(req, res, event, stepsWidget(req, event, valuesOf(event, held), {}, await paymentStep(deps, event, held, clientSecret), fixed), { card: true });
      } catch (err) {
        // Charged (or being charged) before the payment was recorded here: the reload says so, never a card form or a 502.
        if (err instanceof PaymentNotOpenError) return page(req, res, event, (await paymentReceivedContent(deps, req, event, held.reference)) ?? (await confirmationContent(deps, req, event)));
        req.log.error({ err: (err as Error).message, reference: held.reference }, "could not load the registration's PaymentIntent");
        return page(req, res, event, stepsWidget(req, event, valuesOf(event, held), { _form: PAYMENT_SETUP_ERROR.message }, null, fixed), { status: 502 });
      }
    }
    // Step 1: a new form, or the visitor's own registration again (Back keeps every value).
    page(req, res, event, stepsWidget(req, event, own ? valuesOf(event, own) : individualPrefillValues(req, event.id), {}, null, fixed), { card: true });
  };
}
