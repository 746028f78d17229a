import { Router, type Request, type Response } from "express";
import * as z from "zod";
import { domainErrorStatus } from "../../../http/errors.ts";
import { validate } from "../../../shared/forms.ts";
import { formBody, formError, formPost, jsonPost } from "../../../http/forms.ts";
import { EVENT_NOT_FOUND } from "../../../shared/events/rules.ts";
import type { EventDetail } from "../../../shared/events/types.ts";
import { formatPrice } from "../../../shared/money.ts";
import { DISCOUNT_TEXT } from "../../../shared/discounts/rules.ts";
import { confirmationContent, paymentReceivedContent } from "./confirmation.tsx";
import { PaymentNotOpenError } from "../../../payments/core.ts";
import { REGISTRATION_ERRORS, registrationSchema, sendsGuardianBlock, type IndividualRegistration } from "../../../shared/registrations/rules.ts";
import { findByReference } from "../../core/tables/registrations.ts";
import { DiscountRefused, discountOf } from "../../core/money/codes.ts";
import { packageName } from "../../../shared/registrations/packages.ts";
import { holdIndividual } from "../hold.ts";
import { measureHold } from "../../../metrics/hooks.ts";
import { PAYMENT_SETUP_ERROR, preparePayment } from "../../core/money/payment.ts";
import { holdIsLive } from "../../core/deps.ts";
import { individualPages, keptValues, valuesOf } from "./individualPage.tsx";
import { loadEvent, notFound, ownReference, RATE_LIMITED, REGISTRATION_RATE_LIMIT, remember, visitorOf, type RegistrationRouteDeps } from "../../core/routeKit.tsx";
import { paymentStep } from "../../core/money/paymentStep.ts";
import { amountDueNow, chosenPlan, depositCoveredNotice, depositStep } from "../../core/money/deposit.ts";
import { isRegistered } from "../../core/states.ts";

const apiBody = z.object({
  option: z.string().max(20).optional(),
  formSessionId: z.unknown(),
  discountCode: z.unknown().optional(),
  paymentPlan: z.unknown().optional(),
  registrationData: z.record(z.string(), z.unknown()).optional(),
});

/** An individual's registration: /register/{id} (steps 1 and 2, with and without JavaScript), its JSON call, and the confirmation. */
export function individualRoutes(deps: RegistrationRouteDeps): Router {
  const { db } = deps;
  const router = Router();
  const limit = deps.rateLimiter({ name: "registration", ...REGISTRATION_RATE_LIMIT, message: RATE_LIMITED });

  const { page, stepsWidget, status, unavailable } = individualPages(deps);

  const confirmation = async (req: Request, res: Response, event: EventDetail) => page(req, res, event, await confirmationContent(deps, req, event));

  router.get("/register/:id", async (req, res) => {
    const event = await loadEvent(deps, req.params.id);
    if (!event) return notFound(req, res);
    if (req.query.paymentSuccess === "true") return confirmation(req, res, event);

    const reference = ownReference(req, event.id);
    const own = reference ? await findByReference(db, reference) : undefined;
    if ((own && isRegistered(own.status)) || own?.status === "needs_review") return confirmation(req, res, event);
    const held = own && holdIsLive(own, deps.clock()) ? own : undefined;

    const st = await status(event, held?.id);
    if (st !== "open") return unavailable(req, res, event, st);

    if (req.query.step === "payment" && held) {
      try {
        const clientSecret = await preparePayment(deps, held);
        return page(req, res, event, stepsWidget(req, event, valuesOf(event, held), {}, await paymentStep(deps, event, held, clientSecret)), { card: true });
      } catch (err) {
        // Charged (or being charged) before the payment was recorded here: the reload says so, never a card form or a 502.
        if (err instanceof PaymentNotOpenError) return page(req, res, event, (await paymentReceivedContent(deps, req, event, held.reference)) ?? (await confirmationContent(deps, req, event)));
        req.log.error({ err: (err as Error).message, reference: held.reference }, "could not load the registration's PaymentIntent");
        return page(req, res, event, stepsWidget(req, event, valuesOf(event, held), { _form: PAYMENT_SETUP_ERROR.message }, null), { status: 502 });
      }
    }
    // Step 1: a new form, or the visitor's own registration again (Back keeps every value).
    page(req, res, event, stepsWidget(req, event, own ? valuesOf(event, own) : {}, {}, null), { card: true });
  });

  /** Holds the places, for both the form post and the JSON call; a code is the visitor's, checked by the server. */
  function hold(req: Request, res: Response, event: EventDetail, data: IndividualRegistration, rawCode: unknown, rawPlan: unknown) {
    const code = typeof rawCode === "string" ? rawCode.slice(0, 200).trim() : "";
    return measureHold(deps.db, () =>
      holdIndividual(deps, event, data, visitorOf(req, res), {
        code: code || undefined,
        plan: chosenPlan(rawPlan),
        onHeld: (reference) => remember(req, "individual", event.id, reference),
      }),
    );
  }

  // The schema reads the body as sent: a field sent twice or nested is refused, not dropped.
  const registerForm = formPost({
    check: (input, event: EventDetail) => validate(registrationSchema(event), input),
    page: (req, res, event, state, status) => page(req, res, event, stepsWidget(req, event, keptValues(state.values), state.errors, null), { status, card: true }),
    run: async (req, res, data, event) => {
      const outcome = await hold(req, res, event, data, formBody(req).discountCode, formBody(req).paymentPlan);
      if (outcome.status !== "settled") return { redirect: `/register/${event.id}?step=payment` };
      remember(req, "individual", event.id, outcome.registration.reference);
      return { redirect: `/register/${event.id}?paymentSuccess=true` };
    },
    refused: (req, res, err, event) => {
      if (err instanceof DiscountRefused) return { errors: { discountCode: err.message }, status: 422 };
      if (err.reason === "registration_closed") return unavailable(req, res, event, "closed", domainErrorStatus(err));
      return formError(req, res, err);
    },
  });
  router.post("/register/:id", limit, deps.paymentLimit, deps.codeGuesses, async (req, res) => {
    const event = await loadEvent(deps, req.params.id);
    if (!event) return notFound(req, res);
    await registerForm(req, res, event);
  });

  // Amounts the browser sends are ignored: the price is the event's package price, less a code the server checks.
  const intentJson = jsonPost({
    input: (_req, sent: { event: EventDetail; input: Record<string, unknown> }) => sent.input,
    // The spec's table has no guardian block: a call without it registers and the contact is asked for afterwards.
    check: (input, { event }) => validate(registrationSchema(event, { guardian: sendsGuardianBlock(input) ? "required" : "later" }), input),
    invalid: ({ errors, message }) => ({ status: 400, json: { success: false, error: message, userFriendlyMessage: REGISTRATION_ERRORS.formInvalid, fieldErrors: errors } }),
    run: async (req, res, data, { event, input }) => {
      const outcome = await hold(req, res, event, data, input.discountCode, input.paymentPlan);
      const { registration } = outcome;
      if (outcome.status === "settled") {
        remember(req, "individual", event.id, registration.reference);
        return { json: { success: true, alreadyPaid: true, status: registration.status, registrationId: registration.reference } };
      }
      return {
        json: {
          success: true,
          clientSecret: outcome.clientSecret,
          // Plan deposit: what is charged now is the deposit; the balance and its date come with it.
          amount: amountDueNow(registration) / 100,
          amountFormatted: formatPrice(amountDueNow(registration)),
          deposit: depositStep(event, registration),
          notice: depositCoveredNotice(event, registration),
          isFreeRegistration: registration.amountCents === 0,
          discount: outcome.withoutCode ? null : await discountOf(deps, registration),
          registrationId: registration.reference,
          optionLabel: packageName(registration.packageCode),
          reservedUntil: registration.reservedUntil?.toISOString() ?? null,
        },
      };
    },
    refused: (_req, _res, err) => {
      if (err instanceof DiscountRefused) {
        const title = err.reason === "discount_missing" ? DISCOUNT_TEXT.missingTitle : DISCOUNT_TEXT.invalidTitle;
        return { status: 422, json: { success: false, title, error: err.message, userFriendlyMessage: err.message, fieldErrors: { discountCode: err.message } } };
      }
      const title = err.kind === "upstream_failed" ? PAYMENT_SETUP_ERROR.title : err.reason === "sold_out" ? "Sold Out" : undefined;
      return { status: domainErrorStatus(err), json: { success: false, error: err.message, userFriendlyMessage: err.message, ...(title ? { title } : {}) } };
    },
  });
  router.post("/api/events/:id/create-payment-intent", limit, deps.paymentLimit, deps.codeGuesses, async (req, res) => {
    const event = await loadEvent(deps, req.params.id);
    if (!event) return void res.status(404).json({ success: false, error: EVENT_NOT_FOUND });
    const body = apiBody.safeParse(req.body ?? {});
    if (!body.success) return void res.status(400).json({ success: false, error: REGISTRATION_ERRORS.formInvalid, userFriendlyMessage: REGISTRATION_ERRORS.formInvalid });
    const data = body.data.registrationData ?? {};
    const input = { ...data, registrationType: data.registrationType ?? body.data.option, formSessionId: body.data.formSessionId, discountCode: body.data.discountCode ?? data.discountCode, paymentPlan: body.data.paymentPlan ?? data.paymentPlan };
    await intentJson(req, res, { event, input });
  });

  router.get("/event-registration/:id", async (req, res) => {
    const event = await loadEvent(deps, req.params.id);
    if (!event) return notFound(req, res);
    await confirmation(req, res, event);
  });

  return router;
}
