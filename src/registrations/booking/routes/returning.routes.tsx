import { Router } from "express";
import { validate } from "../../../shared/forms.ts";
import { formBody, formPost } from "../../../http/forms.ts";
import { flashToast } from "../../../http/pageContext.ts";
import { renderPage } from "../../../http/render.tsx";
import { HttpError, SESSION_UNAVAILABLE } from "../../../http/errors.ts";
import type { EventDetail } from "../../../shared/events/types.ts";
import { REGISTRATION_MESSAGES } from "../../../shared/registrations/rules.ts";
import { askedFrom, RETURNING_TEXT, returningAskSchema, returningBackTo } from "../../../shared/registrations/returning.ts";
import { ReturningLinkSpentPage } from "../../../../views/pages/registration/ReturningLinkSpentPage.tsx";
import { openReturningLink, sendReturningLink, spentLinkTarget } from "../returning.ts";
import { loadEvent, type RegistrationRouteDeps } from "../../core/routeKit.tsx";

/** "Registered before?" asks per address per hour (as "Lost your confirmation?"). */
export const RETURNING_RATE_LIMIT = { windowMs: 60 * 60_000, limit: 5 } as const;

/**
 * "Registered before?": `POST /events/{id}/returning` e-mails a link to an address that registered before (the same
 * answer, words and time for any address: the e-mail is decided after the answer), and `GET /returning/{token}`
 * opens it once: the form of its event is filled in for this browser's session only, then shown.
 */
export function returningRoutes(deps: RegistrationRouteDeps): Router {
  const router = Router();
  const askLimit = deps.rateLimiter({ name: "returning-link", ...RETURNING_RATE_LIMIT, message: RETURNING_TEXT.rateLimited });

  const askForm = formPost({
    check: (sent, _event: EventDetail) => validate(returningAskSchema, sent),
    page: (req, res, event) => {
      flashToast(req, { title: REGISTRATION_MESSAGES.email, variant: "destructive" });
      res.redirect(303, returningBackTo(event.id, askedFrom(formBody(req).from)));
    },
    run: async (req, _res, { email, from }, event) => {
      // After the answer, so that neither its words nor its time say whether the address registered. The log line
      // says whether a link went out, never the address.
      const log = req.log;
      setImmediate(() => {
        sendReturningLink(deps, event, email, from).then(
          (sent) => log.info({ eventId: event.id, sent }, "returning link asked"),
          (err: Error) => log.error({ err: err.message, eventId: event.id }, "could not send a returning link"),
        );
      });
      return { redirect: returningBackTo(event.id, from), toast: { title: RETURNING_TEXT.sentTitle, description: RETURNING_TEXT.sent } };
    },
  });
  router.post("/events/:id/returning", askLimit, async (req, res) => {
    const event = await loadEvent(deps, req.params.id);
    if (!event) return void res.status(404).send();
    await askForm(req, res, event);
  });

  router.get("/returning/:token", deps.manageLimit, async (req, res) => {
    res.set("cache-control", "no-store");
    // The prefill lives in the session: with the store down, the link is kept for later instead of used up.
    if (!req.session) throw new HttpError(503, SESSION_UNAVAILABLE, "Temporarily unavailable");
    const token = String(req.params.token);
    const prefill = await openReturningLink(deps, token);
    const event = prefill ? await loadEvent(deps, prefill.eventId) : null;
    if (prefill && event) {
      req.session.returningPrefill = prefill;
      return res.redirect(303, prefill.form === "team" ? `/team-register/${event.id}` : `/register/${event.id}`);
    }
    const target = await spentLinkTarget(deps, token);
    const asked = target ? await loadEvent(deps, target.eventId) : null;
    renderPage(req, res, <ReturningLinkSpentPage ask={asked ? { eventId: asked.id, eventTitle: asked.title, from: target!.form === "team" ? "team" : "register" } : null} />, {
      title: RETURNING_TEXT.usedTitle,
      description: RETURNING_TEXT.used,
      status: 410,
      noindex: true,
    });
  });

  return router;
}
