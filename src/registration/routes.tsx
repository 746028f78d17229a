import { randomBytes } from "node:crypto";
import { Router, type Request, type Response } from "express";
import * as z from "zod";
import type { RateLimiterFactory } from "../http/rateLimit.ts";
import { renderPage, type PageContext } from "../http/render.tsx";
import { domainErrorStatus } from "../http/errors.ts";
import { DomainError } from "../errors.ts";
import { validate, type FieldErrors } from "../http/forms.ts";
import { stripeScripts } from "../payments/setup.ts";
import { findEvent, placesLeft } from "../events/repository.ts";
import { EVENT_NOT_FOUND, parseEventId, registrationStatus, REGISTRATION_STATUS_LABEL, type RegistrationStatus } from "../events/rules.ts";
import type { EventDetail } from "../events/types.ts";
import { formatPrice } from "../money.ts";
import { DEFAULT_PACKAGE, REGISTRATION_ERRORS, REGISTRATION_MESSAGES, dayField, packageOptions, registrationSchema } from "./rules.ts";
import { confirmPayment, holdAndPrepare, PAYMENT_SETUP_ERROR, REGISTRATION_KIND, type RegistrationDeps } from "./individual.ts";
import * as repo from "./repository.ts";
import type { Registration } from "./repository.ts";
import { DiscountRefused, discountOf, holdCode, precheckCode } from "../discounts/registrationDiscounts.ts";
import { DISCOUNT_TEXT } from "../discounts/rules.ts";
import { coachRegistrationState } from "../coaches/rules.ts";
import { Widget } from "../../views/components/Widget.tsx";
import type { PaymentStep } from "../../widgets/RegistrationSteps.tsx";
import {
  RegisterPage,
  RegistrationConfirmed,
  RegistrationNotConfirmed,
  RegistrationNotFoundPage,
  RegistrationUnavailable,
} from "../../views/pages/registration/RegisterPage.tsx";
import {
  CheckoutAlreadyPaid,
  CheckoutComplete,
  CheckoutError,
  CheckoutNotConfirmed,
  CheckoutPay,
  type CheckoutDetails,
} from "../../views/pages/registration/CheckoutPage.tsx";

/** Create-payment-intent calls (form posts included) per visitor per minute. */
export const REGISTRATION_RATE_LIMIT = { windowMs: 60_000, limit: 30 } as const;
const RATE_LIMITED = "Too many registration attempts from your connection. Please wait a minute and try again.";
const MAX_REFS = 20;

const newFormSessionId = () => randomBytes(16).toString("base64url");

/** 'Full Event' for the full package, else the package itself ('2 Days', 'Single Day'). */
export function optionLabel(event: EventDetail, code: string): string {
  if (code === "full") return "Full Event";
  return packageOptions(event).find((p) => p.code === code)?.label ?? code;
}

function remember(req: Request, eventId: number, reference: string): void {
  req.session.registrations = { ...(req.session.registrations ?? {}), [String(eventId)]: reference };
  const refs = (req.session.registrationRefs ?? []).filter((r) => r !== reference);
  req.session.registrationRefs = [...refs, reference].slice(-MAX_REFS);
}

/** The visitor's latest registration for the event: their individual one, or with option 'team' their team's. */
export const ownReference = (req: Request, eventId: number, option?: unknown) =>
  (option === "team" ? req.session?.teamRegistrations : req.session?.registrations)?.[String(eventId)];

/** Step 1's values from a stored registration (Back, a reload): the same form id, so a resubmit updates it. */
function valuesOf(event: EventDetail, r: Registration): Record<string, string> {
  const a = r.athletes[0]!;
  const values: Record<string, string> = {
    formSessionId: r.formSessionId,
    registrationType: r.packageCode,
    firstName: a.firstName,
    lastName: a.lastName,
    email: a.email,
    phone: a.phone ?? "",
    grade: a.grade ?? "",
    gender: a.gender ?? "",
    schoolName: a.schoolName ?? "",
    clubName: a.clubName ?? "",
    tShirtSize: a.shirtSize ?? "",
    emergencyContactName: a.emergencyContactName,
    emergencyContactPhone: a.emergencyContactPhone,
    specialRequirements: a.specialRequirements ?? "",
    agrees: "on",
  };
  event.days.forEach((d, i) => {
    if (r.dayIds.includes(d.id)) values[dayField(i)] = "on";
  });
  return values;
}

/** Form posts send strings; only the schema's own fields are kept for re-rendering. */
function keptValues(body: Record<string, unknown>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(body)) if (k !== "_csrf" && typeof v === "string") out[k] = v.slice(0, 2000);
  return out;
}

const apiBody = z.object({
  option: z.string().max(20).optional(),
  formSessionId: z.unknown(),
  discountCode: z.unknown().optional(),
  registrationData: z.record(z.string(), z.unknown()).optional(),
});

export function registrationRoutes(deps: RegistrationDeps & { rateLimiter: RateLimiterFactory }): Router {
  const { db, site, paymentCore } = deps;
  const router = Router();
  const limit = deps.rateLimiter({ name: "registration", ...REGISTRATION_RATE_LIMIT, message: RATE_LIMITED });
  const clock = deps.now ?? (() => new Date());

  /** The event a registration route names: listed events only; null when there is none. */
  async function loadEvent(raw: unknown): Promise<EventDetail | null> {
    const id = parseEventId(raw);
    if (id === null) return null;
    const event = await findEvent(db, id);
    return event && event.listed ? event : null;
  }

  function notFound(req: Request, res: Response) {
    renderPage(req, res, <RegistrationNotFoundPage />, { title: REGISTRATION_MESSAGES.notFoundTitle, description: REGISTRATION_MESSAGES.notFound, status: 404, noindex: true });
  }

  function page(req: Request, res: Response, event: EventDetail, content: React.ReactNode, opts: { status?: number; card?: boolean } = {}) {
    res.set("cache-control", "no-store");
    renderPage(req, res, <RegisterPage event={event} coachRegistration={coachRegistrationState(event, clock())}>{content}</RegisterPage>, {
      title: `Register for ${event.title}`,
      description: `Register for ${event.title}, ${event.dateText}, ${event.location}.`,
      sameForStatelessVisitors: true,
      status: opts.status,
      noindex: true,
      scripts: opts.card ? stripeScripts(paymentCore.gateway) : undefined,
    });
  }

  function stepsWidget(req: Request, event: EventDetail, values: Record<string, string>, errors: FieldErrors, payment: PaymentStep | null) {
    const ctx = (req.res!.locals.page as PageContext);
    return (
      <Widget
        name="RegistrationSteps"
        props={{
          eventId: event.id,
          eventTitle: event.title,
          packages: packageOptions(event),
          days: event.days,
          csrfToken: ctx.csrfToken,
          publishableKey: paymentCore.gateway.publishableKey,
          action: `/register/${event.id}`,
          values: { registrationType: DEFAULT_PACKAGE, ...values, formSessionId: values.formSessionId || newFormSessionId() },
          errors,
          payment,
        }}
      />
    );
  }

  async function status(event: EventDetail, except?: number): Promise<RegistrationStatus> {
    const now = clock();
    return registrationStatus(event, await placesLeft(db, event.id, now, except), now);
  }

  function unavailable(req: Request, res: Response, event: EventDetail, st: Exclude<RegistrationStatus, "open">, code = 200) {
    const message = st === "closed" ? REGISTRATION_ERRORS.closed : REGISTRATION_ERRORS.soldOut;
    page(req, res, event, <RegistrationUnavailable title={REGISTRATION_STATUS_LABEL[st]} message={message} eventId={event.id} />, { status: code });
  }

  /** Step 2's data; `clientSecret` is null when a discount made the registration free (no PaymentIntent). */
  async function paymentStep(event: EventDetail, r: Registration, clientSecret: string | null): Promise<PaymentStep> {
    return { reference: r.reference, eventTitle: event.title, optionLabel: optionLabel(event, r.packageCode), amountCents: r.amountCents, clientSecret, discount: await discountOf(deps, r) };
  }

  /** The registration's PaymentIntent for its amount; none when the amount is 0 (free: no Stripe call). */
  async function clientSecretFor(event: EventDetail, r: Registration): Promise<string | null> {
    if (r.amountCents === 0) return null;
    const { clientSecret } = await paymentCore.ensureIntent({
      kind: REGISTRATION_KIND,
      reference: r.reference,
      amountCents: r.amountCents,
      description: `${event.title}: ${r.packageLabel} (${r.reference})`,
      email: r.contact.email,
    });
    return clientSecret;
  }

  /** The confirmation, for a payment the server confirmed for this visitor's registration; anything else is neutral. */
  async function confirmation(req: Request, res: Response, event: EventDetail) {
    const reference = ownReference(req, event.id);
    const intentId = typeof req.query.paymentIntentId === "string" ? req.query.paymentIntentId.slice(0, 200) : undefined;
    let registration = reference ? await repo.findByReference(db, reference) : undefined;
    let payment = reference ? await paymentCore.latestFor(REGISTRATION_KIND, reference) : undefined;
    const matches = registration && (!intentId || payment?.providerPaymentId === intentId);
    // The browser came back before anything recorded the payment: ask Stripe through the core.
    if (matches && registration!.status !== "paid" && payment?.providerPaymentId && intentId) {
      try {
        await paymentCore.settle(payment.providerPaymentId, "return");
      } catch (err) {
        req.log.error({ err: (err as Error).message, reference }, "could not confirm the registration payment");
      }
      registration = await repo.findByReference(db, reference!);
      payment = await paymentCore.latestFor(REGISTRATION_KIND, reference!);
    }
    const shell = (content: React.ReactNode) => page(req, res, event, content);
    if (matches && registration!.status === "paid") {
      return shell(<RegistrationConfirmed email={registration!.contact.email} reference={registration!.reference} eventTitle={event.title} free={registration!.amountPaidCents === 0} />);
    }
    if (matches && payment?.status === "needs_review") {
      return shell(
        <RegistrationNotConfirmed email={site.email} phone={site.phone} title="Payment Successful - Action Required"
          message={`Your card was charged but we could not record your registration ${registration!.reference}. Please contact support immediately with your payment confirmation.`} />,
      );
    }
    return shell(<RegistrationNotConfirmed email={site.email} phone={site.phone} />);
  }

  router.get("/register/:id", async (req, res) => {
    const event = await loadEvent(req.params.id);
    if (!event) return notFound(req, res);
    if (req.query.paymentSuccess === "true") return confirmation(req, res, event);

    const reference = ownReference(req, event.id);
    const own = reference ? await repo.findByReference(db, reference) : undefined;
    if (own?.status === "paid") return confirmation(req, res, event);
    const now = clock();
    const held = own && own.status === "pending_payment" && (own.reservedUntil?.getTime() ?? 0) > now.getTime() ? own : undefined;

    const st = await status(event, held?.id);
    if (st !== "open") return unavailable(req, res, event, st);

    if (req.query.step === "payment" && held) {
      try {
        const clientSecret = await clientSecretFor(event, held);
        return page(req, res, event, stepsWidget(req, event, valuesOf(event, held), {}, await paymentStep(event, held, clientSecret)), { card: true });
      } catch (err) {
        req.log.error({ err: (err as Error).message, reference: held.reference }, "could not load the registration's PaymentIntent");
        return page(req, res, event, stepsWidget(req, event, valuesOf(event, held), { _form: "Payment system is temporarily unavailable. Please try again in a few moments." }, null), { status: 502 });
      }
    }
    // Step 1: a new form, or the visitor's own registration again (Back keeps every value).
    const values = own ? valuesOf(event, own) : {};
    page(req, res, event, stepsWidget(req, event, values, {}, null), { card: true });
  });

  /** Validates and holds, for both the form post and the JSON call. */
  async function start(req: Request, event: EventDetail, input: Record<string, unknown>) {
    const result = validate(registrationSchema(event), input);
    if (!result.ok) return { invalid: result } as const;
    // A discount code entered with step 1: checked before anything is held, taken with the hold, before any PaymentIntent.
    const code = typeof input.discountCode === "string" ? input.discountCode.slice(0, 200).trim() : "";
    try {
      if (code) await precheckCode(deps, event.id, result.data.formSessionId, code);
      const held = await holdAndPrepare(deps, event, result.data, {
        owned: req.session.registrationRefs ?? [],
        onHeld: (reference) => remember(req, event.id, reference),
        ...(code ? { beforeIntent: async (r: Registration) => void (await holdCode(deps, r, code)) } : {}),
      });
      return { held } as const;
    } catch (err) {
      if (!(err instanceof DiscountRefused)) throw err;
      return { invalid: { ok: false, errors: { discountCode: err.message }, message: err.message }, discountRefused: true } as const;
    }
  }

  router.post("/register/:id", limit, async (req, res) => {
    const event = await loadEvent(req.params.id);
    if (!event) return notFound(req, res);
    const { _csrf: _token, ...sent } = (req.body ?? {}) as Record<string, unknown>;
    const values = keptValues(sent);
    try {
      // The schema reads the body as sent: a field sent twice or nested is refused, not dropped.
      const outcome = await start(req, event, sent);
      if ("invalid" in outcome) return page(req, res, event, stepsWidget(req, event, values, outcome.invalid!.errors, null), { status: "discountRefused" in outcome ? 422 : 400, card: true });
      if (outcome.held.paid) return res.redirect(303, `/register/${event.id}?paymentSuccess=true`);
      res.redirect(303, `/register/${event.id}?step=payment`);
    } catch (err) {
      if (!(err instanceof DomainError)) throw err;
      if (err.message === REGISTRATION_ERRORS.closed) return unavailable(req, res, event, "closed", domainErrorStatus(err));
      page(req, res, event, stepsWidget(req, event, values, { _form: err.message }, null), { status: domainErrorStatus(err), card: true });
    }
  });

  router.post("/api/events/:id/create-payment-intent", limit, async (req, res) => {
    const event = await loadEvent(req.params.id);
    if (!event) return void res.status(404).json({ success: false, error: EVENT_NOT_FOUND });
    const body = apiBody.safeParse(req.body ?? {});
    if (!body.success) return void res.status(400).json({ success: false, error: REGISTRATION_ERRORS.formInvalid, userFriendlyMessage: REGISTRATION_ERRORS.formInvalid });
    // Amounts the browser sends are ignored: the price is the event's package price, less a code the server checks.
    const data = body.data.registrationData ?? {};
    const input = { ...data, registrationType: data.registrationType ?? body.data.option, formSessionId: body.data.formSessionId, discountCode: body.data.discountCode ?? data.discountCode };
    try {
      const outcome = await start(req, event, input);
      if ("invalid" in outcome) {
        const { errors, message } = outcome.invalid!;
        if ("discountRefused" in outcome) {
          const title = message === DISCOUNT_TEXT.missing ? DISCOUNT_TEXT.missingTitle : DISCOUNT_TEXT.invalidTitle;
          return void res.status(422).json({ success: false, title, error: message, userFriendlyMessage: message, fieldErrors: errors });
        }
        return void res.status(400).json({ success: false, error: message, userFriendlyMessage: REGISTRATION_ERRORS.formInvalid, fieldErrors: errors });
      }
      const { registration, clientSecret, paid } = outcome.held;
      if (paid) return void res.json({ success: true, alreadyPaid: true, registrationId: registration.reference });
      res.json({
        success: true,
        clientSecret,
        amount: registration.amountCents / 100,
        amountFormatted: formatPrice(registration.amountCents),
        isFreeRegistration: registration.amountCents === 0,
        discount: await discountOf(deps, registration),
        registrationId: registration.reference,
        optionLabel: optionLabel(event, registration.packageCode),
        reservedUntil: registration.reservedUntil?.toISOString() ?? null,
      });
    } catch (err) {
      if (!(err instanceof DomainError)) throw err;
      const title = err.kind === "upstream_failed" ? PAYMENT_SETUP_ERROR.title : err.message === REGISTRATION_ERRORS.soldOut ? "Sold Out" : undefined;
      res.status(domainErrorStatus(err)).json({ success: false, error: err.message, userFriendlyMessage: err.message, ...(title ? { title } : {}) });
    }
  });

  router.post("/api/events/:id/stripe-payment-success", limit, async (req, res) => {
    const event = await loadEvent(req.params.id);
    if (!event) return void res.status(404).json({ success: false, error: EVENT_NOT_FOUND });
    const intentId = typeof req.body?.paymentIntentId === "string" ? req.body.paymentIntentId.slice(0, 200) : "";
    try {
      const result = await confirmPayment(deps, ownReference(req, event.id, req.body?.option), intentId);
      switch (result.status) {
        case "paid":
          return void res.json({ success: true, status: "paid", registrationId: result.payment.reference });
        case "refunded":
          return void res.status(409).json({ success: false, status: "refunded", error: "The event filled up before your payment arrived; your payment has been refunded and an e-mail is on its way." });
        case "failed":
          return void res.status(402).json({ success: false, status: "failed", error: result.message });
        case "mismatch":
          return void res.status(409).json({ success: false, status: "needs_review", error: "Payment Successful - Action Required" });
        default:
          return void res.status(202).json({ success: false, status: "pending", error: "The payment is not complete yet." });
      }
    } catch (err) {
      if (err instanceof DomainError) return void res.status(domainErrorStatus(err)).json({ success: false, error: err.message });
      req.log.error({ err: (err as Error).message }, "could not confirm a registration payment");
      res.status(502).json({ success: false, error: "Payment system is temporarily unavailable. Please try again in a few moments." });
    }
  });

  // ---- /stripe-checkout: the payment page without the site's header and footer, driven by the session ----
  function checkoutPage(req: Request, res: Response, content: React.ReactElement, opts: { status?: number; card?: boolean } = {}) {
    res.set("cache-control", "no-store");
    renderPage(req, res, content, {
      title: "Checkout",
      description: "Complete your camp registration.",
      status: opts.status,
      bare: true,
      noindex: true,
      scripts: opts.card ? stripeScripts(paymentCore.gateway) : undefined,
    });
  }

  router.get("/stripe-checkout", async (req, res) => {
    const q = req.query;
    // Query parameters are for display only; a client secret someone put in the address is never echoed back.
    const retry = typeof q.eventId === "string" ? `/stripe-checkout?eventId=${encodeURIComponent(q.eventId.slice(0, 12))}` : "/stripe-checkout";
    if (typeof q.eventId !== "string" || q.eventId === "") return checkoutPage(req, res, <CheckoutError message="No event ID provided" retryHref={retry} />, { status: 400 });
    const event = await loadEvent(q.eventId);
    if (!event) return checkoutPage(req, res, <CheckoutError message={REGISTRATION_MESSAGES.notFound} retryHref={retry} />, { status: 404 });
    const confirmationUrl = (intentId?: string) => `/event-registration/${event.id}?paymentSuccess=true${intentId ? `&paymentIntentId=${encodeURIComponent(intentId)}` : ""}`;
    if (q.payment_intent_status === "succeeded" && typeof q.payment_intent === "string") {
      const next = confirmationUrl(q.payment_intent.slice(0, 200));
      res.set("refresh", `2; url=${next}`);
      return checkoutPage(req, res, <CheckoutAlreadyPaid next={next} />);
    }
    const reference = ownReference(req, event.id);
    const registration = reference ? await repo.findByReference(db, reference) : undefined;
    if (registration?.status === "paid") return checkoutPage(req, res, <CheckoutComplete eventTitle={event.title} email={registration.contact.email} />);
    if (q.success === "true") {
      return checkoutPage(req, res, <CheckoutNotConfirmed><RegistrationNotConfirmed email={site.email} phone={site.phone} /></CheckoutNotConfirmed>);
    }
    const now = clock();
    if (!registration || registration.status !== "pending_payment" || (registration.reservedUntil?.getTime() ?? 0) <= now.getTime()) {
      return checkoutPage(req, res, <CheckoutError message="No registration is waiting for payment. Please fill in the registration form again." retryHref={`/register/${event.id}`} />, { status: 404 });
    }
    try {
      const clientSecret = await clientSecretFor(event, registration);
      const athlete = registration.athletes[0]!;
      const details: CheckoutDetails = {
        eventTitle: event.title,
        optionLabel: registration.packageCode === "full" ? "Full Camp" : optionLabel(event, registration.packageCode),
        athleteName: `${athlete.firstName} ${athlete.lastName}`,
        email: registration.contact.email,
        days: event.days.filter((d) => registration.dayIds.includes(d.id)).map((d) => d.label),
        amountCents: registration.listPriceCents,
        reservedUntil: `${registration.reservedUntil!.toLocaleTimeString("en-US", { hour: "numeric", minute: "2-digit", timeZone: "UTC" })} UTC`,
      };
      checkoutPage(req, res, <CheckoutPay details={details} panel={{
        eventId: event.id,
        publishableKey: paymentCore.gateway.publishableKey,
        payment: await paymentStep(event, registration, clientSecret),
        billing: { name: details.athleteName, email: registration.contact.email, phone: registration.contact.phone },
        backHref: `/register/${event.id}?step=1`,
        csrfToken: (res.locals.page as PageContext).csrfToken,
        from: "checkout",
      }} />, { card: true });
    } catch (err) {
      req.log.error({ err: (err as Error).message, reference: registration.reference }, "could not load the registration's PaymentIntent");
      checkoutPage(req, res, <CheckoutError message="Payment system is temporarily unavailable. Please try again in a few moments." retryHref={retry} />, { status: 502 });
    }
  });

  router.get("/event-registration/:id", async (req, res) => {
    const event = await loadEvent(req.params.id);
    if (!event) return notFound(req, res);
    await confirmation(req, res, event);
  });

  return router;
}
