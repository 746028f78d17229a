import { Router, type Request, type Response } from "express";
import * as z from "zod";
import { domainErrorStatus } from "../../../http/errors.ts";
import { limitsInOneTrip } from "../../../http/rateLimit.ts";
import { validate } from "../../../shared/forms.ts";
import { formBody, formError, formPost, jsonPost } from "../../../http/forms.ts";
import { EVENT_NOT_FOUND } from "../../../shared/events/rules.ts";
import type { EventDetail } from "../../../shared/events/types.ts";
import { DISCOUNT_TEXT } from "../../../shared/discounts/rules.ts";
import { confirmationContent } from "./confirmation.tsx";
import { REGISTRATION_ERRORS, registrationSchema, sendsGuardianBlock } from "../../../shared/registrations/rules.ts";
import { DiscountRefused } from "../../core/money/codes.ts";
import { PAYMENT_SETUP_ERROR } from "../../core/money/payment.ts";
import { individualPages, keptValues } from "./individualPage.tsx";
import { loadEvent, notFound, RATE_LIMITED, REGISTRATION_RATE_LIMIT, remember, type RegistrationRouteDeps } from "../../core/routeKit.tsx";
import { heldAnswer, individualHolder } from "./individualHold.ts";
import { registerPage } from "./individualStart.tsx";
import { applySiblingIntent, SIBLING_INTENT_FIELD, SIBLING_TEXT, SIBLINGS_FIELD } from "../../../shared/registrations/siblings.ts";
import { offeredAthletes } from "../../waitlist/tables/rounds.ts";

const apiBody = z.object({
  option: z.string().max(20).optional(),
  formSessionId: z.unknown(),
  discountCode: z.unknown().optional(),
  paymentPlan: z.unknown().optional(),
  registrationData: z.record(z.string(), z.unknown()).optional(),
});

/** An individual's registration: /register/{id} (steps 1 and 2, with and without JavaScript), its JSON call, and the confirmation. */
export function individualRoutes(deps: RegistrationRouteDeps): Router {
  const router = Router();
  const limit = deps.rateLimiter({ name: "registration", ...REGISTRATION_RATE_LIMIT, message: RATE_LIMITED });
  const holdLimits = limitsInOneTrip(limit, deps.paymentLimit, deps.codeGuesses);

  const { page, stepsWidget, unavailable } = individualPages(deps);
  const offeredAthletesOf = (values: Record<string, string>) => (values.formSessionId ? offeredAthletes(deps.db, values.formSessionId) : Promise.resolve(undefined));

  const confirmation = async (req: Request, res: Response, event: EventDetail) => page(req, res, event, await confirmationContent(deps, req, event));
  const showRegister = registerPage(deps, confirmation);

  router.get("/register/:id", async (req, res) => {
    const event = await loadEvent(deps, req.params.id);
    if (!event) return notFound(req, res);
    if (req.query.paymentSuccess === "true") return confirmation(req, res, event);
    await showRegister(req, res, event);
  });

  const hold = individualHolder(deps);

  // The schema reads the body as sent: a field sent twice or nested is refused, not dropped.
  const registerForm = formPost({
    check: (input, event: EventDetail) => validate(registrationSchema(event), input),
    page: async (req, res, event, state, status) => {
      const values = keptValues(state.values);
      page(req, res, event, stepsWidget(req, event, values, state.errors, null, await offeredAthletesOf(values)), { status, card: true });
    },
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
  router.post("/register/:id", holdLimits, async (req, res) => {
    const event = await loadEvent(deps, req.params.id);
    if (!event) return notFound(req, res);
    // Without JavaScript, "Add a sibling" and "Remove athlete N" post the form: it comes back with one athlete more or fewer, nothing held.
    const intent = formBody(req)[SIBLING_INTENT_FIELD];
    if (typeof intent === "string") {
      const values = keptValues(formBody(req));
      // A waiting-list offer's form keeps the athletes it was offered (its buttons are not shown): the form comes back as sent.
      const fixed = await offeredAthletesOf(values);
      if (fixed !== undefined) return page(req, res, event, stepsWidget(req, event, values, { [SIBLINGS_FIELD]: SIBLING_TEXT.offerFixed(fixed) }, null, fixed), { status: 409, card: true });
      return page(req, res, event, stepsWidget(req, event, applySiblingIntent(values, intent, event.days.length), {}, null), { card: true });
    }
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
      return { json: await heldAnswer(deps, event, outcome) };
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
  router.post("/api/events/:id/create-payment-intent", holdLimits, async (req, res) => {
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
