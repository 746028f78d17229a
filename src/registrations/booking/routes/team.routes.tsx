import { Router, type Request, type RequestHandler } from "express";
import { domainErrorStatus } from "../../../http/errors.ts";
import { limitsInOneTrip } from "../../../http/rateLimit.ts";
import { validate } from "../../../shared/forms.ts";
import { formBody, formPost, jsonPost, type Refusal } from "../../../http/forms.ts";
import { EVENT_NOT_FOUND } from "../../../shared/events/rules.ts";
import type { EventDetail } from "../../../shared/events/types.ts";
import { formatPrice } from "../../../shared/money.ts";
import { DISCOUNT_TEXT } from "../../../shared/discounts/rules.ts";
import { DiscountRefused, discountOf } from "../../core/money/codes.ts";
import {
  TEAM_MAXIMUM,
  TEAM_TEXT,
  blankAthlete,
  teamErrorTitle,
  teamFormValues,
  teamSchemaFor,
  shownTotalMatches,
  countAthletes,
  type TeamFormValues,
  type TeamRegistration,
} from "../../../shared/registrations/teamRules.ts";
import { teamPages } from "./teamPage.tsx";
import { loadEvent, newFormSessionId, notFound, RATE_LIMITED, REGISTRATION_RATE_LIMIT, remember, type RegistrationRouteDeps } from "../../core/routeKit.tsx";
import { amountDueNow } from "../../core/money/deposit.ts";
import { teamCheckoutPath, teamHolder } from "./teamHold.ts";
import { withInvitedRows } from "../../../shared/registrations/invites.ts";

/** Team registration: /team-register/{id} and /team-registration?eventId= (the form, with and without JavaScript), and POST /api/team-registration. */
export function teamRoutes(deps: RegistrationRouteDeps): Router {
  const router = Router();
  const limit = deps.rateLimiter({ name: "team-registration", ...REGISTRATION_RATE_LIMIT, message: RATE_LIMITED });

  const { heldTeam, showForm, startValues, invites } = teamPages(deps);

  router.get("/team-register/:id", async (req, res) => {
    const event = await loadEvent(deps, req.params.id);
    if (!event) return notFound(req, res);
    await showForm(req, res, event, await startValues(req, event.id), {});
  });

  // The home page's team modal sends eventId; the spec also accepts event; event 1 without either.
  router.get("/team-registration", async (req, res) => {
    const raw = req.query.eventId ?? req.query.event ?? "1";
    const event = await loadEvent(deps, raw);
    if (!event) return notFound(req, res);
    await showForm(req, res, event, await startValues(req, event.id), {});
  });

  const hold = teamHolder(deps, heldTeam);

  const discountTitle = (err: DiscountRefused) => (err.reason === "discount_missing" ? DISCOUNT_TEXT.missingTitle : DISCOUNT_TEXT.invalidTitle);

  /** Only the register button counts against the rate limit; adding and removing rows without JavaScript does not. */
  const registering = (req: Request) => formBody(req).intent !== "add" && formBody(req).remove === undefined;
  const registerLimits = limitsInOneTrip(limit, deps.paymentLimit);
  const limitRegistering: RequestHandler = (req, res, next) => (registering(req) ? registerLimits(req, res, next) : next());

  // The form shows the first problem above the rows too (`_form`).
  const teamForm = formPost({
    input: (_req, posted: { event: EventDetail; values: TeamFormValues; team: TeamFormValues; held: (reference: string, data: TeamRegistration) => Promise<void> }) => ({ ...posted.team }),
    check: (input, { event }) => {
      const result = validate(teamSchemaFor(event.ageLimits), input);
      return result.ok ? result : { ...result, errors: { ...result.errors, _form: result.message } };
    },
    page: (req, res, { event, values }, state, status) => showForm(req, res, event, values, state.errors, status),
    run: async (req, res, data, { event, held: toInvite }) => {
      const held = await hold(req, res, event, data, "");
      await toInvite(held.registration.reference, data);
      if (held.status === "settled") {
        remember(req, "team", event.id, held.registration.reference);
        return { redirect: `${teamCheckoutPath(event)}&success=true` };
      }
      return { redirect: teamCheckoutPath(event), toast: { title: TEAM_TEXT.readyTitle, description: TEAM_TEXT.ready, variant: "success" } };
    },
    refused: (_req, _res, err): Refusal => {
      if (err instanceof DiscountRefused) return { errors: { discountCode: err.message, _form: err.message }, status: 422 };
      const status = domainErrorStatus(err);
      return { errors: { _form: status === 502 ? TEAM_TEXT.paymentSetup : err.message }, status };
    },
  });

  router.post("/team-register/:id", limitRegistering, async (req, res) => {
    const event = await loadEvent(deps, req.params.id);
    if (!event) return notFound(req, res);
    const body = formBody(req);
    const values = teamFormValues(req.body);
    if (values.athletes.length === 0) values.athletes.push(blankAthlete());
    if (!values.formSessionId) values.formSessionId = newFormSessionId();
    if (body.intent === "invite" || body.removeInvited !== undefined) {
      if (body.intent === "invite") await invites.create(req, event, values);
      else await invites.save(req, event.id, values).then(() => invites.removeRow(req, event.id, body.removeInvited));
      return void res.redirect(303, `/team-register/${event.id}`);
    }
    if (body.intent === "add") {
      if (values.athletes.length < TEAM_MAXIMUM) values.athletes.push(blankAthlete());
      await invites.save(req, event.id, values);
      return showForm(req, res, event, values, {});
    }
    if (body.remove !== undefined) {
      const index = Number(body.remove);
      if (Number.isInteger(index) && index >= 0 && index < values.athletes.length && values.athletes.length > 1) values.athletes.splice(index, 1);
      await invites.save(req, event.id, values);
      return showForm(req, res, event, values, {});
    }
    const { values: team, held } = await invites.forHold(req, event.id, values, body.invite);
    // Without JavaScript the button shows the total of the last page rendered: a coach who completed more rows since
    // (or a family who filled in its row) sees the new total before anything is charged.
    const complete = countAthletes(team.athletes).complete;
    if (!shownTotalMatches(body.shownTotalCents, complete * event.teamPriceCents)) {
      return showForm(req, res, event, values, { _form: TEAM_TEXT.totalChanged(complete, complete * event.teamPriceCents) }, 409);
    }
    await teamForm(req, res, { event, values, team, held });
  });

  // pricePerAthlete, totalAmount and discountedAmount from the browser are ignored: the server prices the team.
  const teamJson = jsonPost({
    check: (input, { event, invited }: { event: EventDetail; invited: (values: TeamFormValues) => TeamFormValues; held: (reference: string, data: TeamRegistration) => Promise<void> }) => validate(teamSchemaFor(event.ageLimits), invited(teamFormValues(input))),
    invalid: ({ errors, message }) => ({ status: 400, json: { success: false, title: teamErrorTitle(message), error: message, userFriendlyMessage: message, fieldErrors: errors } }),
    run: async (req, res, data, { event, held: toInvite }) => {
      const code = formBody(req).discountCode;
      const held = await hold(req, res, event, data, typeof code === "string" ? code.slice(0, 200).trim() : "");
      const { registration } = held;
      await toInvite(registration.reference, data);
      if (held.status === "settled") {
        remember(req, "team", event.id, registration.reference);
        return { json: { success: true, alreadyPaid: true, status: registration.status, registrationId: registration.reference } };
      }
      return {
        json: {
          success: true,
          title: TEAM_TEXT.readyTitle,
          clientSecret: held.clientSecret,
          amount: amountDueNow(registration) / 100,
          amountFormatted: formatPrice(amountDueNow(registration)),
          isFreeRegistration: registration.amountCents === 0,
          athletes: registration.places,
          pricePerAthlete: event.teamPriceCents / 100,
          totalAmount: registration.listPriceCents / 100,
          discount: held.discount === undefined ? await discountOf(deps, registration) : held.discount,
          registrationId: registration.reference,
          reservedUntil: registration.reservedUntil?.toISOString() ?? null,
          checkoutUrl: teamCheckoutPath(event),
        },
      };
    },
    refused: (_req, _res, err) => {
      if (err instanceof DiscountRefused) {
        return { status: 422, json: { success: false, title: discountTitle(err), error: err.message, userFriendlyMessage: err.message, fieldErrors: { discountCode: err.message } } };
      }
      const status = domainErrorStatus(err);
      const title = status === 502 ? TEAM_TEXT.paymentSetupTitle : TEAM_TEXT.registrationErrorTitle;
      const message = status === 502 ? TEAM_TEXT.paymentSetup : err.message;
      return { status, json: { success: false, title, error: message, userFriendlyMessage: message } };
    },
  });

  router.post("/api/team-registration", limitsInOneTrip(limit, deps.paymentLimit, deps.codeGuesses), async (req, res) => {
    const event = await loadEvent(deps, formBody(req).eventId);
    if (!event) return void res.status(404).json({ success: false, title: TEAM_TEXT.registrationErrorTitle, error: EVENT_NOT_FOUND, userFriendlyMessage: EVENT_NOT_FOUND });
    // The invite's rows are read before the body is checked, so the check counts them (see coachInvites.forHold).
    const body = formBody(req);
    const forHold = body.invite === true ? await invites.forHold(req, event.id, teamFormValues(body), true) : undefined;
    await teamJson(req, res, { event, invited: (v: TeamFormValues) => (forHold ? withInvitedRows(v, forHold.rows) : v), held: forHold?.held ?? (async () => undefined) });
  });

  return router;
}
