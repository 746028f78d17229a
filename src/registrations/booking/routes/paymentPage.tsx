import type { Request, Response } from "express";
import { RegistrationNotConfirmed } from "../../../../views/pages/registration/RegisterPage.tsx";
import { boughtFacts, paymentReceivedContent } from "./confirmation.tsx";
import { CheckoutAlreadyPaid, CheckoutComplete, CheckoutError, CheckoutNotConfirmed, CheckoutPay, TeamCheckoutPay } from "../../../../views/pages/registration/CheckoutPage.tsx";
import { REGISTRATION_MESSAGES } from "../../../shared/registrations/rules.ts";
import { TEAM_TEXT } from "../../../shared/registrations/teamRules.ts";
import { findByReference } from "../../core/tables/registrations.ts";
import { PaymentNotOpenError } from "../../../payments/core.ts";
import { PAYMENT_SETUP_ERROR } from "../../core/money/payment.ts";
import { holdIsLive } from "../../core/deps.ts";
import { teamCheckoutPath } from "./teamHold.ts";
import { confirmationPageManageHref } from "../../changes/links.ts";
import { checkoutPage, loadEvent, ownReference, type RegistrationRouteDeps } from "../../core/routeKit.tsx";
import { isRegistered } from "../../core/states.ts";
import { individualDetails, paymentPanel, teamDetails } from "./paymentPanel.ts";

/**
 * GET /stripe-checkout (checkout.routes.tsx): the payment page driven by the session (`option=team` for a coach's
 * team): the card form of a live hold, or what became of the registration.
 */
export function paymentPage(deps: RegistrationRouteDeps) {
  const { db, site, paymentCore } = deps;
  const shell = (req: Request, res: Response, content: React.ReactElement, opts: { status?: number; card?: boolean; team?: boolean } = {}) =>
    checkoutPage(req, res, paymentCore.gateway, content, { ...opts, description: opts.team ? "Complete your team registration." : undefined });

  return async function showPayment(req: Request, res: Response): Promise<void> {
    const q = req.query;
    const team = q.option === "team";
    const eventsHref = team ? "/team-events" : undefined;
    // Query parameters are for display only; a client secret someone put in the address is never echoed back.
    const retry = typeof q.eventId === "string" ? `/stripe-checkout?eventId=${encodeURIComponent(q.eventId.slice(0, 12))}${team ? "&option=team" : ""}` : "/stripe-checkout";
    if (typeof q.eventId !== "string" || q.eventId === "") return shell(req, res, <CheckoutError message="No event ID provided" retryHref={eventsHref ?? retry} />, { status: 400, team });
    const event = await loadEvent(deps, q.eventId);
    if (!event) return shell(req, res, <CheckoutError message={REGISTRATION_MESSAGES.notFound} retryHref={eventsHref ?? retry} />, { status: 404, team });
    const done = team ? `${teamCheckoutPath(event)}&success=true` : undefined;
    // Stripe's redirect back (after a 3-D Secure page) appends payment_intent and redirect_status.
    if ((q.redirect_status === "succeeded" || q.payment_intent_status === "succeeded") && typeof q.payment_intent === "string") {
      const next = done ?? `/event-registration/${event.id}?paymentSuccess=true&paymentIntentId=${encodeURIComponent(q.payment_intent.slice(0, 200))}`;
      res.set("refresh", `2; url=${next}`);
      return shell(req, res, <CheckoutAlreadyPaid next={next} />, { team });
    }
    const reference = ownReference(req, event.id, team ? "team" : undefined);
    const registration = reference ? await findByReference(db, reference) : undefined;
    if (registration && isRegistered(registration.status)) {
      const manageHref = await confirmationPageManageHref(req, deps, registration);
      return shell(req, res, <CheckoutComplete eventTitle={event.title} email={registration.contact.email} manageHref={manageHref} familiesEmailed={team} reference={registration.reference} facts={boughtFacts(event, registration)} />, { team });
    }
    if (q.success === "true" || registration?.status === "needs_review") {
      return shell(req, res, <CheckoutNotConfirmed><RegistrationNotConfirmed email={site.email} phone={site.phone} /></CheckoutNotConfirmed>, { team });
    }
    if (!registration || !holdIsLive(registration, deps.clock()) || (registration.kind === "team") !== team) {
      const message = team ? TEAM_TEXT.dataNotFound : "No registration is waiting for payment. Please fill in the registration form again.";
      return shell(req, res, <CheckoutError message={message} retryHref={team ? `/team-register/${event.id}` : `/register/${event.id}`} />, { status: 404, team });
    }
    try {
      const panel = await paymentPanel(deps, res, event, registration, team);
      if (team) return shell(req, res, <TeamCheckoutPay details={teamDetails(event, registration)} panel={panel} />, { card: true, team });
      shell(req, res, <CheckoutPay details={individualDetails(event, registration)} panel={panel} />, { card: true });
    } catch (err) {
      // Charged (or being charged) before the payment was recorded here: the reload says so, never a card form or a 502.
      if (err instanceof PaymentNotOpenError) {
        const received = await paymentReceivedContent(deps, req, event, registration.reference);
        return shell(req, res, <CheckoutNotConfirmed>{received ?? <RegistrationNotConfirmed email={site.email} phone={site.phone} />}</CheckoutNotConfirmed>, { team });
      }
      req.log.error({ err: (err as Error).message, reference: registration.reference }, "could not load the registration's PaymentIntent");
      shell(req, res, <CheckoutError message={team ? TEAM_TEXT.paymentSetup : PAYMENT_SETUP_ERROR.message} retryHref={retry} />, { status: 502, team });
    }
   };
}
