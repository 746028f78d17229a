import { Router, type Request, type Response } from "express";
import type { PageContext } from "../../../http/render.tsx";
import { domainErrorStatus } from "../../../http/errors.ts";
import { DISCOUNT_REASONS, DISCOUNT_TEXT } from "../../../shared/discounts/rules.ts";
import { EVENT_NOT_FOUND } from "../../../shared/events/rules.ts";
import type { EventDetail } from "../../../shared/events/types.ts";
import type { PaymentPanelProps } from "../../../../widgets/islands/RegistrationSteps.tsx";
import { RegistrationNotConfirmed } from "../../../../views/pages/registration/RegisterPage.tsx";
import { boughtFacts } from "./confirmation.tsx";
import { CheckoutAlreadyPaid, CheckoutComplete, CheckoutError, CheckoutNotConfirmed, CheckoutPay, TeamCheckoutPay, type CheckoutDetails } from "../../../../views/pages/registration/CheckoutPage.tsx";
import { REGISTRATION_MESSAGES } from "../../../shared/registrations/rules.ts";
import { TEAM_TEXT } from "../../../shared/registrations/teamRules.ts";
import type { Registration } from "../../core/registration.ts";
import { findByReference } from "../../core/tables/registrations.ts";
import { DiscountRefused } from "../../core/money/codes.ts";
import { paymentReceivedContent } from "./confirmation.tsx";
import { PaymentNotOpenError } from "../../../payments/core.ts";
import { checkoutPackageName } from "../../../shared/registrations/packages.ts";
import { completeFree } from "../completeFree.ts";
import { confirmReturn } from "../confirmReturn.ts";
import { PAYMENT_SETUP_ERROR, preparePayment } from "../../core/money/payment.ts";
import { holdIsLive } from "../../core/deps.ts";
import { teamCheckoutPath } from "./teamHold.ts";
import { confirmationPageManageHref } from "../../changes/links.ts";
import { checkoutPage, holdEndsText, loadEvent, ownReference, RATE_LIMITED, REGISTRATION_RATE_LIMIT, type RegistrationRouteDeps } from "../../core/routeKit.tsx";
import { paymentStep } from "../../core/money/paymentStep.ts";
import { formBody, jsonPost, type JsonAnswer } from "../../../http/forms.ts";
import { isRegistered } from "../../core/states.ts";

const codeText = (v: unknown) => (typeof v === "string" ? v.slice(0, 200) : "");

/**
 * The payment of a held registration, individual or team: GET /stripe-checkout (the payment page driven by the
 * session; `option=team` for a coach's team) and POST /api/events/:id/stripe-payment-success (the browser's return
 * after the card, or the completion of a free registration).
 */
export function checkoutRoutes(deps: RegistrationRouteDeps): Router {
  const { db, site, paymentCore } = deps;
  const router = Router();
  const limit = deps.rateLimiter({ name: "registration-return", ...REGISTRATION_RATE_LIMIT, message: RATE_LIMITED });
  const shell = (req: Request, res: Response, content: React.ReactElement, opts: { status?: number; card?: boolean; team?: boolean } = {}) =>
    checkoutPage(req, res, paymentCore.gateway, content, { ...opts, description: opts.team ? "Complete your team registration." : undefined });

  router.get("/stripe-checkout", async (req, res) => {
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
      const panel = await paymentPanel(req, res, event, registration, team);
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
  });

  async function paymentPanel(req: Request, res: Response, event: EventDetail, r: Registration, team: boolean): Promise<PaymentPanelProps> {
    const clientSecret = await preparePayment(deps, r);
    const name = team ? `${r.contact.firstName} ${r.contact.lastName}` : `${r.athletes[0]!.firstName} ${r.athletes[0]!.lastName}`;
    return {
      eventId: event.id,
      publishableKey: paymentCore.gateway.publishableKey,
      payment: await paymentStep(deps, event, r, clientSecret),
      billing: { name, email: r.contact.email, phone: r.contact.phone },
      backHref: team ? `/team-register/${event.id}` : `/register/${event.id}?step=1`,
      csrfToken: (res.locals.page as PageContext).csrfToken,
      from: "checkout",
      ...(team ? { option: "team" as const } : {}),
    };
  }

  function freeFailed(req: Request, err: unknown): JsonAnswer {
    if (err instanceof DiscountRefused) return { status: domainErrorStatus(err), json: { success: false, title: DISCOUNT_TEXT.freeFailedTitle, error: err.message, message: err.message } };
    req.log.error({ err: (err as Error).message }, "free registration failed");
    return { status: 503, json: { success: false, title: DISCOUNT_TEXT.freeFailedTitle, error: DISCOUNT_TEXT.freeFailed, message: DISCOUNT_TEXT.freeFailed } };
  }

  const completeFreeJson = jsonPost({
    run: async (req, _res, body, event: EventDetail) => {
      const reference = ownReference(req, event.id, body.option);
      const registration = reference ? await findByReference(db, reference) : undefined;
      if (!registration) throw new DiscountRefused("discount_no_registration", DISCOUNT_REASONS.noRegistration);
      const outcome = await completeFree(deps, registration, codeText(body.discountCode));
      return { json: { success: true, status: "paid", free: outcome.status === "free", title: DISCOUNT_TEXT.freeDoneTitle, registrationId: registration.reference } };
    },
    refused: (req, _res, err) => freeFailed(req, err),
    failed: (req, _res, err) => freeFailed(req, err),
  });

  const confirmReturnJson = jsonPost({
    run: async (req, _res, body, event: EventDetail): Promise<JsonAnswer> => {
      const intentId = typeof body.paymentIntentId === "string" ? body.paymentIntentId.slice(0, 200) : "";
      const result = await confirmReturn(deps, ownReference(req, event.id, body.option), intentId);
      switch (result.status) {
        case "paid":
          return { json: { success: true, status: "paid", registrationId: result.payment.reference } };
        case "refunded":
          return { status: 409, json: { success: false, status: "refunded", error: "The event filled up before your payment arrived; your payment has been refunded and an e-mail is on its way." } };
        case "failed":
          return { status: 402, json: { success: false, status: "failed", error: result.message } };
        case "mismatch":
          return { status: 409, json: { success: false, status: "needs_review", error: "Payment Successful - Action Required" } };
        default:
          return { status: 202, json: { success: false, status: "pending", error: "The payment is not complete yet." } };
      }
    },
    refused: (_req, _res, err) => ({ status: domainErrorStatus(err), json: { success: false, error: err.message } }),
    failed: (req, _res, err) => {
      req.log.error({ err: (err as Error).message }, "could not confirm a registration payment");
      return { status: 502, json: { success: false, error: PAYMENT_SETUP_ERROR.message } };
    },
  });

  // The card's return and the free completion share the spec's URL; `freeRegistration` tells them apart.
  router.post("/api/events/:id/stripe-payment-success", limit, deps.codeGuesses, async (req, res) => {
    const event = await loadEvent(deps, req.params.id);
    if (!event) return void res.status(404).json({ success: false, error: EVENT_NOT_FOUND });
    const free = formBody(req).freeRegistration;
    await (free === true || free === "true" ? completeFreeJson : confirmReturnJson)(req, res, event);
  });

  return router;
}

function individualDetails(event: EventDetail, r: Registration): CheckoutDetails {
  const athlete = r.athletes[0]!;
  return {
    eventTitle: event.title,
    optionLabel: checkoutPackageName(r.packageCode),
    athleteName: `${athlete.firstName} ${athlete.lastName}`,
    email: r.contact.email,
    days: event.days.filter((d) => r.dayIds.includes(d.id)).map((d) => d.label),
    amountCents: r.listPriceCents,
    reservedUntil: holdEndsText(r.reservedUntil!, event),
  };
}

function teamDetails(event: EventDetail, r: Registration) {
  return {
    eventTitle: event.title,
    teamName: r.teamName,
    coachName: `${r.contact.firstName} ${r.contact.lastName}`,
    email: r.contact.email,
    athletes: r.athletes.map((a) => ({ name: `${a.firstName} ${a.lastName}`, shirtSize: a.shirtSize ?? "" })),
    pricePerAthleteCents: Math.round(r.listPriceCents / Math.max(1, r.places)),
    amountCents: r.listPriceCents,
    reservedUntil: holdEndsText(r.reservedUntil!, event),
  };
}
