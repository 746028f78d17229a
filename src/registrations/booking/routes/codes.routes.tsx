import { Router, type Request } from "express";
import * as z from "zod";
import { parseEventId } from "../../../shared/events/rules.ts";
import { centsToDollars as dollars } from "../../../shared/money.ts";
import { DISCOUNT_REASONS, DISCOUNT_TEXT, appliedMessage, type DiscountAmount } from "../../../shared/discounts/rules.ts";
import type { Registration } from "../../core/registration.ts";
import { findByReference } from "../../core/tables/registrations.ts";
import { DiscountRefused, applyCode, removeCode } from "../../core/money/codes.ts";
import { completeFree } from "../completeFree.ts";
import { paymentUnderWay } from "../../core/money/payment.ts";
import { AmountChangeInFlightError, PaymentNotOpenError } from "../../../payments/core.ts";
import { RATE_LIMITED, REGISTRATION_RATE_LIMIT, type RegistrationRouteDeps } from "../../core/routeKit.tsx";
import { formBody, formPost, jsonPost, type JsonAnswer, type Redirect } from "../../../http/forms.ts";
import { domainErrorStatus } from "../../../http/errors.ts";
import { limitsInOneTrip } from "../../../http/rateLimit.ts";

const codeBody = z.object({
  discountCode: z.unknown().optional(),
  /** The spec sends it; the amount is always computed from the visitor's pending registration. */
  originalPrice: z.unknown().optional(),
  eventId: z.unknown().optional(),
  remove: z.unknown().optional(),
  /** 'team' on the team checkout: the coach's team registration, not an individual one. */
  option: z.unknown().optional(),
});

const codeText = (v: unknown) => (typeof v === "string" ? v.slice(0, 200) : "");

function discountJson(code: string, listCents: number, amount: DiscountAmount) {
  return {
    code,
    discountAmount: dollars(amount.offCents),
    finalPrice: dollars(amount.finalCents),
    originalPrice: dollars(listCents),
    discountAmountCents: amount.offCents,
    finalPriceCents: amount.finalCents,
    isFree: amount.free,
  };
}

/** A code on the payment step: POST /api/validate-discount, its form twin, and the free completion's form. */
export function codeRoutes(deps: RegistrationRouteDeps): Router {
  const router = Router();
  const freeLimit = deps.rateLimiter({ name: "free-registration", ...REGISTRATION_RATE_LIMIT, message: RATE_LIMITED });

  /** The visitor's own registration for the event, their team's with option 'team' (or the newest one they started). */
  async function ownRegistration(req: Request, rawEventId: unknown, option?: unknown): Promise<Registration | undefined> {
    const eventId = parseEventId(typeof rawEventId === "number" ? String(rawEventId) : rawEventId);
    const own = option === "team" ? req.session?.teamRegistrations : req.session?.registrations;
    const reference = eventId !== null ? own?.[String(eventId)] : req.session?.registrationRefs?.at(-1);
    return reference ? findByReference(deps.db, reference) : undefined;
  }

  /**
   * A code may change the amount only while no card payment of the registration is confirmed or being confirmed
   * (another tab's card form): then it is refused with 409 and nothing changes; a payment found confirmed is settled.
   */
  async function refuseWhilePaying(registration: Registration): Promise<void> {
    if (await paymentUnderWay(deps, registration.reference)) throw new DiscountRefused("discount_payment_under_way", DISCOUNT_REASONS.paymentUnderWay);
  }

  /** The payment became confirmed between that check and the change: the same 409, never a 5xx. */
  const confirmedMeanwhile = (err: unknown) => err instanceof PaymentNotOpenError || err instanceof AmountChangeInFlightError;

  function refused(err: DiscountRefused): JsonAnswer {
    const title = err.reason === "discount_missing" ? DISCOUNT_TEXT.missingTitle : err.kind === "conflict" ? DISCOUNT_TEXT.errorTitle : DISCOUNT_TEXT.invalidTitle;
    return { status: domainErrorStatus(err), json: { success: false, valid: false, title, message: err.message, error: err.message } };
  }

  function failed(req: Request, err: unknown): JsonAnswer {
    if (confirmedMeanwhile(err)) return refused(new DiscountRefused("discount_payment_under_way", DISCOUNT_REASONS.paymentUnderWay));
    req.log.error({ err: (err as Error).message }, "discount code could not be applied");
    return { status: 503, json: { success: false, valid: false, title: DISCOUNT_TEXT.errorTitle, message: DISCOUNT_TEXT.error, error: DISCOUNT_TEXT.error } };
  }

  router.post(
    "/api/validate-discount",
    deps.codeGuesses,
    jsonPost({
      // Never refused: a body that is not an object reads as empty.
      check: (sent) => ({ ok: true, data: codeBody.safeParse(sent).data ?? {} }),
      run: async (req, _res, input) => {
        const registration = await ownRegistration(req, input.eventId, input.option);
        const remove = input.remove === true || input.remove === "true";
        if (!remove && !codeText(input.discountCode).trim()) throw new DiscountRefused("discount_missing", DISCOUNT_TEXT.missing);
        if (!registration || registration.status !== "pending_payment") throw new DiscountRefused("discount_no_registration", DISCOUNT_REASONS.noRegistration);
        await refuseWhilePaying(registration);
        if (remove) {
          const { clientSecret, amountCents } = await removeCode(deps, registration);
          return { json: { success: true, valid: false, removed: true, clientSecret, finalPriceCents: amountCents, finalPrice: dollars(amountCents) } };
        }
        const applied = await applyCode(deps, registration, codeText(input.discountCode));
        const discount = discountJson(applied.code, applied.listCents, applied.amount);
        if (!applied.paymentUpdated) {
          return { json: { success: true, valid: true, title: DISCOUNT_TEXT.appliedTitle, message: DISCOUNT_TEXT.refresh, refreshRequired: true, discount } };
        }
        const { title, message } = appliedMessage(applied.amount);
        return { json: { success: true, valid: true, title, message, discount, clientSecret: applied.clientSecret, isFreeRegistration: applied.amount.free } };
      },
      refused: (req, _res, err) => (err instanceof DiscountRefused ? refused(err) : failed(req, err)),
      failed: (req, _res, err) => failed(req, err),
    }),
  );

  // ---- without JavaScript: form posts that redirect back with a toast ----
  const team = (req: Request) => (formBody(req).option === "team" ? "&option=team" : "");
  const backTo = (req: Request, eventId: string) => (formBody(req).from === "checkout" ? `/stripe-checkout?eventId=${eventId}${team(req)}` : `/register/${eventId}?step=payment`);

  function codeFailed(req: Request, err: unknown, eventId: string): Redirect {
    if (confirmedMeanwhile(err)) err = new DiscountRefused("discount_payment_under_way", DISCOUNT_REASONS.paymentUnderWay);
    if (!(err instanceof DiscountRefused)) {
      req.log.error({ err: (err as Error).message }, "discount code could not be applied");
      return { redirect: backTo(req, eventId), toast: { title: DISCOUNT_TEXT.errorTitle, description: DISCOUNT_TEXT.error, variant: "destructive" } };
    }
    const title = err.reason === "discount_missing" ? DISCOUNT_TEXT.missingTitle : DISCOUNT_TEXT.invalidTitle;
    const toast = { title, description: err.message, variant: "destructive" } as const;
    if (err.kind === "conflict") return { redirect: formBody(req).option === "team" ? `/team-register/${eventId}` : `/register/${eventId}`, toast };
    return { redirect: backTo(req, eventId), toast };
  }

  const codeForm = formPost({
    run: async (req, _res, input, eventId: string) => {
      const registration = await ownRegistration(req, eventId, input.option);
      if (!registration || registration.status !== "pending_payment") throw new DiscountRefused("discount_no_registration", DISCOUNT_REASONS.noRegistration);
      await refuseWhilePaying(registration);
      if (input.remove) {
        await removeCode(deps, registration);
        return { redirect: backTo(req, eventId), toast: { title: "Discount Removed", description: "The discount code was removed.", variant: "default" } };
      }
      const code = codeText(input.discountCode);
      if (!code.trim()) throw new DiscountRefused("discount_missing", DISCOUNT_TEXT.missing);
      const applied = await applyCode(deps, registration, code);
      const { title, message } = applied.paymentUpdated ? appliedMessage(applied.amount) : { title: DISCOUNT_TEXT.appliedTitle, message: DISCOUNT_TEXT.refresh };
      return { redirect: backTo(req, eventId), toast: { title, description: message, variant: "success" } };
    },
    refused: (req, _res, err, eventId) => codeFailed(req, err, eventId),
    failed: (req, _res, err, eventId) => codeFailed(req, err, eventId),
  });
  router.post("/register/:id/discount", deps.codeGuesses, async (req, res) => {
    const eventId = String(parseEventId(req.params.id) ?? "");
    if (!eventId) return void res.redirect(303, "/events");
    await codeForm(req, res, eventId);
  });

  function freeFailed(req: Request, err: unknown, eventId: string): Redirect {
    if (!(err instanceof DiscountRefused)) req.log.error({ err: (err as Error).message }, "free registration failed");
    const description = err instanceof DiscountRefused ? err.message : DISCOUNT_TEXT.freeFailedUnexpected;
    return { redirect: backTo(req, eventId), toast: { title: DISCOUNT_TEXT.freeFailedTitle, description, variant: "destructive" } };
  }

  const freeForm = formPost({
    run: async (req, _res, input, eventId: string) => {
      const registration = await ownRegistration(req, eventId, input.option);
      if (!registration) throw new DiscountRefused("discount_no_registration", DISCOUNT_REASONS.noRegistration);
      await completeFree(deps, registration, codeText(input.discountCode));
      return { redirect: input.from === "checkout" ? `/stripe-checkout?eventId=${eventId}${team(req)}&success=true` : `/register/${eventId}?paymentSuccess=true` };
    },
    refused: (req, _res, err, eventId) => freeFailed(req, err, eventId),
    failed: (req, _res, err, eventId) => freeFailed(req, err, eventId),
  });
  router.post("/register/:id/free", limitsInOneTrip(freeLimit, deps.codeGuesses), async (req, res) => {
    const eventId = String(parseEventId(req.params.id) ?? "");
    if (!eventId) return void res.redirect(303, "/events");
    await freeForm(req, res, eventId);
  });

  return router;
}
