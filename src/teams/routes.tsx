import { randomBytes } from "node:crypto";
import { Router, type Request, type RequestHandler, type Response } from "express";
import type { RateLimiterFactory } from "../http/rateLimit.ts";
import { renderPage, type PageContext } from "../http/render.tsx";
import { flashToast } from "../http/pageContext.ts";
import { domainErrorStatus } from "../http/errors.ts";
import { DomainError } from "../errors.ts";
import { validate, type FieldErrors } from "../http/forms.ts";
import { stripeScripts } from "../payments/setup.ts";
import { findEvent, placesLeft } from "../events/repository.ts";
import { EVENT_NOT_FOUND, parseEventId, registrationStatus, REGISTRATION_STATUS_LABEL, teamSavingsCents } from "../events/rules.ts";
import type { EventDetail } from "../events/types.ts";
import { formatPrice } from "../money.ts";
import * as discountRepo from "../discounts/repository.ts";
import { DiscountRefused, discountOf, holdCode, precheckCode } from "../discounts/registrationDiscounts.ts";
import { DISCOUNT_TEXT } from "../discounts/rules.ts";
import { Widget } from "../../views/components/Widget.tsx";
import { RegistrationNotConfirmed, RegistrationNotFoundPage, RegistrationUnavailable } from "../../views/pages/registration/RegisterPage.tsx";
import { CheckoutAlreadyPaid, CheckoutComplete, CheckoutError, CheckoutNotConfirmed, TeamCheckoutPay } from "../../views/pages/registration/CheckoutPage.tsx";
import { TeamRegisterPage } from "../../views/pages/registration/TeamRegisterPage.tsx";
import type { TeamFormProps } from "../../widgets/TeamForm.tsx";
import { intentDescription, REGISTRATION_KIND, type RegistrationDeps } from "../registration/individual.ts";
import * as repo from "../registration/repository.ts";
import type { Registration } from "../registration/repository.ts";
import { REGISTRATION_ERRORS, REGISTRATION_MESSAGES } from "../registration/rules.ts";
import { holdTeam } from "./hold.ts";
import { REGISTRATION_RATE_LIMIT } from "../registration/routes.tsx";
import {
  TEAM_MAXIMUM,
  TEAM_MINIMUM,
  TEAM_START_ROWS,
  TEAM_TEXT,
  blankAthlete,
  blankCoach,
  teamErrorTitle,
  teamFormSessionId,
  teamFormValues,
  teamRegistrationSchema,
  teamValuesOf,
  type TeamFormValues,
} from "./rules.ts";

const RATE_LIMITED = "Too many registration attempts from your connection. Please wait a minute and try again.";
const MAX_REFS = 20;
const newFormSessionId = () => randomBytes(16).toString("base64url");
const checkoutPath = (event: EventDetail) => `/stripe-checkout?eventId=${event.id}&eventName=${encodeURIComponent(event.title)}&option=team`;

/**
 * Team registration: /team-register/{id} and /team-registration?eventId= (the form, with and without JavaScript),
 * POST /api/team-registration, and the team's side of /stripe-checkout and of the browser's payment return.
 */
export function teamRoutes(deps: RegistrationDeps & { rateLimiter: RateLimiterFactory }): Router {
  const { db, paymentCore, site } = deps;
  const router = Router();
  const limit = deps.rateLimiter({ name: "team-registration", ...REGISTRATION_RATE_LIMIT, message: RATE_LIMITED });
  const clock = deps.now ?? (() => new Date());

  async function loadEvent(raw: unknown): Promise<EventDetail | null> {
    const id = parseEventId(typeof raw === "number" ? String(raw) : raw);
    if (id === null) return null;
    const event = await findEvent(db, id);
    return event && event.listed ? event : null;
  }

  const ownTeamReference = (req: Request, eventId: number) => req.session?.teamRegistrations?.[String(eventId)];
  function remember(req: Request, eventId: number, reference: string): void {
    req.session.teamRegistrations = { ...(req.session.teamRegistrations ?? {}), [String(eventId)]: reference };
    const refs = (req.session.registrationRefs ?? []).filter((r) => r !== reference);
    req.session.registrationRefs = [...refs, reference].slice(-MAX_REFS);
  }

  /** The coach's team for the event while it still holds its places. */
  async function heldTeam(req: Request, eventId: number): Promise<Registration | undefined> {
    const reference = ownTeamReference(req, eventId);
    const r = reference ? await repo.findByReference(db, reference) : undefined;
    return r && r.kind === "team" && r.status === "pending_payment" && (r.reservedUntil?.getTime() ?? 0) > clock().getTime() ? r : undefined;
  }

  function notFound(req: Request, res: Response) {
    renderPage(req, res, <RegistrationNotFoundPage />, { title: REGISTRATION_MESSAGES.notFoundTitle, description: REGISTRATION_MESSAGES.notFound, status: 404, noindex: true });
  }

  function page(req: Request, res: Response, event: EventDetail, content: React.ReactNode, status?: number) {
    res.set("cache-control", "no-store");
    renderPage(
      req,
      res,
      <TeamRegisterPage event={{ ...event, savingsCents: teamSavingsCents(event) }}>{content}</TeamRegisterPage>,
      {
        title: `Team Registration: ${event.title}`,
        description: `Register your team for ${event.title} at ${formatPrice(event.teamPriceCents)} per athlete, ${event.dateText}, ${event.location}.`,
        sameForStatelessVisitors: true,
        status,
        noindex: true,
      },
    );
  }

  /** The form, or why a team cannot register now (closed, or fewer places left than the smallest team). */
  async function showForm(req: Request, res: Response, event: EventDetail, values: TeamFormValues, errors: FieldErrors, status?: number) {
    const held = await heldTeam(req, event.id);
    const now = clock();
    const left = await placesLeft(db, event.id, now, held?.id);
    const st = registrationStatus(event, left, now);
    if (st === "closed") {
      return page(req, res, event, <RegistrationUnavailable title={REGISTRATION_STATUS_LABEL.closed} message={REGISTRATION_ERRORS.closed} eventId={event.id} />, status);
    }
    if (st === "soldOut" || left < TEAM_MINIMUM) {
      return page(req, res, event, <RegistrationUnavailable title={REGISTRATION_STATUS_LABEL.soldOut} message={TEAM_TEXT.notEnoughPlaces(left, TEAM_MINIMUM)} eventId={event.id} />, status);
    }
    const props: TeamFormProps = {
      eventId: event.id,
      eventTitle: event.title,
      teamPriceCents: event.teamPriceCents,
      csrfToken: (res.locals.page as PageContext).csrfToken,
      action: `/team-register/${event.id}`,
      values,
      errors,
      discount: held ? await heldDiscount(held) : null,
    };
    page(req, res, event, <Widget name="TeamForm" props={props} />, status);
  }

  async function heldDiscount(r: Registration): Promise<TeamFormProps["discount"]> {
    const found = await discountRepo.redemptionOf(db, r.id);
    if (!found || found.status === "released") return null;
    const code = await discountRepo.findCodeById(db, found.codeId);
    return code ? { code: code.code, type: code.type, value: code.value } : null;
  }

  /** A new form, or the coach's held team again (Back from the checkout keeps every row and the same form id). */
  async function startValues(req: Request, eventId: number): Promise<TeamFormValues> {
    const held = await heldTeam(req, eventId);
    if (held) return teamValuesOf(repo.teamOf(held));
    return { formSessionId: newFormSessionId(), coachInfo: blankCoach(), athletes: Array.from({ length: TEAM_START_ROWS }, blankAthlete) };
  }

  router.get("/team-register/:id", async (req, res) => {
    const event = await loadEvent(req.params.id);
    if (!event) return notFound(req, res);
    await showForm(req, res, event, await startValues(req, event.id), {});
  });

  // The home page's team modal sends eventId; the spec also accepts event; event 1 without either.
  router.get("/team-registration", async (req, res) => {
    const raw = req.query.eventId ?? req.query.event ?? "1";
    const event = await loadEvent(raw);
    if (!event) return notFound(req, res);
    await showForm(req, res, event, await startValues(req, event.id), {});
  });

  type Outcome = { invalid: { errors: FieldErrors; message: string; title: string }; status: number } | { held: Awaited<ReturnType<typeof holdTeam>> };

  /** Validates and holds, for the form post and the JSON call alike. */
  async function start(req: Request, event: EventDetail, input: unknown, discountCode: string): Promise<Outcome> {
    const result = validate(teamRegistrationSchema, input);
    if (!result.ok) return { invalid: { errors: result.errors, message: result.message, title: teamErrorTitle(result.message) }, status: 400 };
    const data = result.data;
    // A call without the form's id (the spec's payload has none) continues the coach's held team, so a double submit holds one team.
    if (!data.formSessionId) data.formSessionId = (await heldTeam(req, event.id))?.formSessionId ?? newFormSessionId();
    if (!teamFormSessionId.safeParse(data.formSessionId).success) throw new DomainError("conflict", REGISTRATION_ERRORS.formExpired);
    try {
      if (discountCode) await precheckCode(deps, event.id, data.formSessionId, discountCode, "team");
      const held = await holdTeam(deps, event, data, {
        owned: req.session.registrationRefs ?? [],
        onHeld: (reference) => remember(req, event.id, reference),
        beforeIntent: discountCode ? async (r) => void (await holdCode(deps, r, discountCode)) : undefined,
      });
      return { held };
    } catch (err) {
      if (!(err instanceof DiscountRefused)) throw err;
      const title = err.message === DISCOUNT_TEXT.missing ? DISCOUNT_TEXT.missingTitle : DISCOUNT_TEXT.invalidTitle;
      return { invalid: { errors: { discountCode: err.message }, message: err.message, title }, status: 422 };
    }
  }

  /** Only the register button counts against the rate limit; adding and removing rows without JavaScript does not. */
  const limitRegistering: RequestHandler = (req, res, next) => (req.body?.intent === "add" || req.body?.remove !== undefined ? next() : limit(req, res, next));

  router.post("/team-register/:id", limitRegistering, async (req, res) => {
    const event = await loadEvent(req.params.id);
    if (!event) return notFound(req, res);
    const values = teamFormValues(req.body);
    if (values.athletes.length === 0) values.athletes.push(blankAthlete());
    if (!values.formSessionId) values.formSessionId = newFormSessionId();
    if (req.body?.intent === "add") {
      if (values.athletes.length < TEAM_MAXIMUM) values.athletes.push(blankAthlete());
      return showForm(req, res, event, values, {});
    }
    if (req.body?.remove !== undefined) {
      const index = Number(req.body.remove);
      if (Number.isInteger(index) && index >= 0 && index < values.athletes.length && values.athletes.length > 1) values.athletes.splice(index, 1);
      return showForm(req, res, event, values, {});
    }
    try {
      const outcome = await start(req, event, values, "");
      if ("invalid" in outcome) return showForm(req, res, event, values, { ...outcome.invalid.errors, _form: outcome.invalid.message }, outcome.status);
      if (outcome.held.paid) return res.redirect(303, `${checkoutPath(event)}&success=true`);
      flashToast(req, { title: TEAM_TEXT.readyTitle, description: TEAM_TEXT.ready, variant: "success" });
      res.redirect(303, checkoutPath(event));
    } catch (err) {
      if (!(err instanceof DomainError)) throw err;
      const status = domainErrorStatus(err);
      const message = status === 502 ? TEAM_TEXT.paymentSetup : err.message;
      await showForm(req, res, event, values, { _form: message }, status);
    }
  });

  router.post("/api/team-registration", limit, async (req, res) => {
    const body = (req.body ?? {}) as Record<string, unknown>;
    const event = await loadEvent(body.eventId);
    if (!event) return void res.status(404).json({ success: false, title: TEAM_TEXT.registrationErrorTitle, error: EVENT_NOT_FOUND, userFriendlyMessage: EVENT_NOT_FOUND });
    // pricePerAthlete, totalAmount and discountedAmount from the browser are ignored: the server prices the team.
    const code = typeof body.discountCode === "string" ? body.discountCode.slice(0, 200).trim() : "";
    try {
      const outcome = await start(req, event, body, code);
      if ("invalid" in outcome) {
        const { errors, message, title } = outcome.invalid;
        return void res.status(outcome.status).json({ success: false, title, error: message, userFriendlyMessage: message, fieldErrors: errors });
      }
      const { registration, clientSecret, paid } = outcome.held;
      if (paid) return void res.json({ success: true, alreadyPaid: true, registrationId: registration.reference });
      res.json({
        success: true,
        title: TEAM_TEXT.readyTitle,
        clientSecret,
        amount: registration.amountCents / 100,
        amountFormatted: formatPrice(registration.amountCents),
        isFreeRegistration: registration.amountCents === 0,
        athletes: registration.places,
        pricePerAthlete: event.teamPriceCents / 100,
        totalAmount: registration.listPriceCents / 100,
        discount: await discountOf(deps, registration),
        registrationId: registration.reference,
        reservedUntil: registration.reservedUntil?.toISOString() ?? null,
        checkoutUrl: checkoutPath(event),
      });
    } catch (err) {
      if (!(err instanceof DomainError)) throw err;
      const status = domainErrorStatus(err);
      const title = status === 502 ? TEAM_TEXT.paymentSetupTitle : TEAM_TEXT.registrationErrorTitle;
      const message = status === 502 ? TEAM_TEXT.paymentSetup : err.message;
      res.status(status).json({ success: false, title, error: message, userFriendlyMessage: message });
    }
  });

  // ---- /stripe-checkout?option=team: the coach's held team from the session; other options go on to individuals ----
  function checkoutPage(req: Request, res: Response, content: React.ReactElement, opts: { status?: number; card?: boolean } = {}) {
    res.set("cache-control", "no-store");
    renderPage(req, res, content, {
      title: "Checkout",
      description: "Complete your team registration.",
      status: opts.status,
      bare: true,
      noindex: true,
      scripts: opts.card ? stripeScripts(paymentCore.gateway) : undefined,
    });
  }

  router.get("/stripe-checkout", async (req, res, next) => {
    const q = req.query;
    if (q.option !== "team") return next();
    if (typeof q.eventId !== "string" || q.eventId === "") return checkoutPage(req, res, <CheckoutError message="No event ID provided" retryHref="/team-events" />, { status: 400 });
    const event = await loadEvent(q.eventId);
    if (!event) return checkoutPage(req, res, <CheckoutError message={REGISTRATION_MESSAGES.notFound} retryHref="/team-events" />, { status: 404 });
    const done = `${checkoutPath(event)}&success=true`;
    if (q.payment_intent_status === "succeeded" && typeof q.payment_intent === "string") {
      res.set("refresh", `2; url=${done}`);
      return checkoutPage(req, res, <CheckoutAlreadyPaid next={done} />);
    }
    const reference = ownTeamReference(req, event.id);
    const registration = reference ? await repo.findByReference(db, reference) : undefined;
    if (registration?.status === "paid") return checkoutPage(req, res, <CheckoutComplete eventTitle={event.title} email={registration.contact.email} />);
    if (q.success === "true") {
      return checkoutPage(req, res, <CheckoutNotConfirmed><RegistrationNotConfirmed email={site.email} phone={site.phone} /></CheckoutNotConfirmed>);
    }
    if (!registration || registration.status !== "pending_payment" || (registration.reservedUntil?.getTime() ?? 0) <= clock().getTime()) {
      return checkoutPage(req, res, <CheckoutError message={TEAM_TEXT.dataNotFound} retryHref={`/team-register/${event.id}`} />, { status: 404 });
    }
    try {
      let clientSecret: string | null = null;
      if (registration.amountCents > 0) {
        ({ clientSecret } = await paymentCore.ensureIntent({
          kind: REGISTRATION_KIND,
          reference: registration.reference,
          amountCents: registration.amountCents,
          description: intentDescription(event, registration),
          email: registration.contact.email,
        }));
      }
      const coachName = `${registration.contact.firstName} ${registration.contact.lastName}`;
      checkoutPage(
        req,
        res,
        <TeamCheckoutPay
          details={{
            eventTitle: event.title,
            teamName: registration.teamName,
            coachName,
            email: registration.contact.email,
            athletes: registration.athletes.map((a) => ({ name: `${a.firstName} ${a.lastName}`, shirtSize: a.shirtSize ?? "" })),
            pricePerAthleteCents: Math.round(registration.listPriceCents / Math.max(1, registration.places)),
            amountCents: registration.listPriceCents,
            reservedUntil: `${registration.reservedUntil!.toLocaleTimeString("en-US", { hour: "numeric", minute: "2-digit", timeZone: "UTC" })} UTC`,
          }}
          panel={{
            eventId: event.id,
            publishableKey: paymentCore.gateway.publishableKey,
            payment: {
              reference: registration.reference,
              eventTitle: event.title,
              optionLabel: `Team Registration (${registration.places} athletes)`,
              amountCents: registration.amountCents,
              clientSecret,
              discount: await discountOf(deps, registration),
            },
            billing: { name: coachName, email: registration.contact.email, phone: registration.contact.phone },
            backHref: `/team-register/${event.id}`,
            csrfToken: (res.locals.page as PageContext).csrfToken,
            from: "checkout",
            option: "team",
          }}
        />,
        { card: true },
      );
    } catch (err) {
      req.log.error({ err: (err as Error).message, reference: registration.reference }, "could not load the team registration's PaymentIntent");
      checkoutPage(req, res, <CheckoutError message={TEAM_TEXT.paymentSetup} retryHref={checkoutPath(event)} />, { status: 502 });
    }
  });

  return router;
}
