import { Router } from "express";
import * as z from "zod/mini";
import { validate } from "../../../shared/forms.ts";
import { formPost } from "../../../http/forms.ts";
import { flashToast } from "../../../http/pageContext.ts";
import type { EventDetail } from "../../../shared/events/types.ts";
import { REGISTRATION_MESSAGES } from "../../../shared/registrations/rules.ts";
import { resendManageLinks } from "../links.ts";
import { loadEvent, type RegistrationRouteDeps } from "../../core/routeKit.tsx";

/** "Lost your confirmation?" per address per hour. */
export const RESEND_RATE_LIMIT = { windowMs: 60 * 60_000, limit: 5 } as const;

export const RESEND_TEXT = {
  title: "Check your inbox",
  sent: "If that address registered for this event, we've e-mailed it a new link to the registration. It can take a few minutes to arrive.",
  rateLimited: "Too many requests for a registration link from your connection. Please wait an hour and try again, or contact us.",
} as const;

const resendSchema = z.object({ email: z.pipe(z.string(REGISTRATION_MESSAGES.email).check(z.trim(), z.maxLength(254)), z.email(REGISTRATION_MESSAGES.email)) });

const backToForm = (event: EventDetail) => `/events/${event.id}#lost-confirmation`;

/** "Lost your confirmation?" (`POST /events/{id}/lost-confirmation`): new manage links to an address that registered. */
export function lostConfirmationRoutes(deps: RegistrationRouteDeps): Router {
  const router = Router();
  const resendLimit = deps.rateLimiter({ name: "registration-link-resend", ...RESEND_RATE_LIMIT, message: RESEND_TEXT.rateLimited });

  const resendForm = formPost({
    check: (sent, _event: EventDetail) => validate(resendSchema, sent),
    page: (req, res, event) => {
      flashToast(req, { title: REGISTRATION_MESSAGES.email, variant: "destructive" });
      res.redirect(303, backToForm(event));
    },
    run: async (req, _res, { email }, event) => {
      // After the answer, so that neither its words nor its time say whether the address registered. The log line
      // says how many links went out, never the address.
      const log = req.log;
      setImmediate(() => {
        resendManageLinks(deps, event.id, email).then(
          (sent) => log.info({ eventId: event.id, sent }, "manage links re-sent"),
          (err: Error) => log.error({ err: err.message, eventId: event.id }, "could not re-send manage links"),
        );
      });
      return { redirect: backToForm(event), toast: { title: RESEND_TEXT.title, description: RESEND_TEXT.sent } };
    },
  });
  router.post("/events/:id/lost-confirmation", resendLimit, async (req, res) => {
    const event = await loadEvent(deps, req.params.id);
    if (!event) return void res.status(404).send();
    await resendForm(req, res, event);
  });

  return router;
}
