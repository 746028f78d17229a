import { Router, type Request } from "express";
import { domainErrorStatus, isUnavailable, SERVICE_UNAVAILABLE } from "../../../http/errors.ts";
import { DISCOUNT_REASONS, DISCOUNT_TEXT } from "../../../shared/discounts/rules.ts";
import { EVENT_NOT_FOUND } from "../../../shared/events/rules.ts";
import type { EventDetail } from "../../../shared/events/types.ts";
import { findByReference } from "../../core/tables/registrations.ts";
import { DiscountRefused } from "../../core/money/codes.ts";
import { completeFree } from "../completeFree.ts";
import { confirmReturn } from "../confirmReturn.ts";
import { PAYMENT_SETUP_ERROR } from "../../core/money/payment.ts";
import { loadEvent, ownReference, RATE_LIMITED, REGISTRATION_RATE_LIMIT, type RegistrationRouteDeps } from "../../core/routeKit.tsx";
import { formBody, jsonPost, type JsonAnswer } from "../../../http/forms.ts";
import { paymentPage } from "./paymentPage.tsx";

const codeText = (v: unknown) => (typeof v === "string" ? v.slice(0, 200) : "");

/**
 * The payment of a held registration, individual or team: GET /stripe-checkout (the payment page driven by the
 * session; `option=team` for a coach's team) and POST /api/events/:id/stripe-payment-success (the browser's return
 * after the card, or the completion of a free registration).
 */
export function checkoutRoutes(deps: RegistrationRouteDeps): Router {
  const { db } = deps;
  const router = Router();
  const limit = deps.rateLimiter({ name: "registration-return", ...REGISTRATION_RATE_LIMIT, message: RATE_LIMITED });
  router.get("/stripe-checkout", paymentPage(deps));

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
      const result = await confirmReturn(deps, req, ownReference(req, event.id, body.option), intentId);
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
    failed: (req, res, err) => {
      // A database or Redis that did not answer is ours, not Stripe's: 503, and the card widget tries again.
      if (isUnavailable(err)) {
        req.log.warn({ err: (err as Error).message }, "could not confirm a registration payment: a service is not answering");
        res.set("retry-after", "5");
        return { status: 503, json: { success: false, error: SERVICE_UNAVAILABLE } };
      }
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
