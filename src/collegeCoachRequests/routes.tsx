import { Router, type Request, type Response } from "express";
import { renderPage } from "../http/render.tsx";
import { emptyForm, type FormState } from "../shared/forms.ts";
import { formBody, formPost, jsonPost } from "../http/forms.ts";
import { flashToast } from "../http/pageContext.ts";
import { EVENT_LOAD_FAILED, EVENT_NOT_FOUND_TITLE } from "../shared/events/rules.ts";
import type { EventDetail } from "../shared/events/types.ts";
import { coachEvent, coachRegistrationState } from "../shared/collegeCoachRequests/rules.ts";
import { COACH_MESSAGES } from "../shared/collegeCoachRequests/schemas.ts";
import { logoUpload, MAX_CONCURRENT_UPLOADS, receivedLogo } from "./routes/logoUpload.ts";
import { CoachRegistrationPage } from "../../views/pages/collegeCoachRequests/CoachRegistrationPage.tsx";
import { EventNotFoundPage } from "../../views/pages/events/EventNotFoundPage.tsx";
import { checkRequest, loadEvent, save, type CoachRequestDeps, type Loaded, type Posted } from "./requests.ts";

export const COACH_PAGE = "/coach-registration";
export const COACH_API = "/api/clinician-request";

/** Both coach request endpoints together allow this many posts per visitor per window. */
export const COACH_REQUEST_RATE_LIMIT = { windowMs: 15 * 60_000, limit: 10 } as const;
const RATE_LIMITED = "Too many registrations from your connection. Please wait a few minutes and try again.";

/**
 * College coach requests: `beforeCsrf` parses the multipart posts (mounted ahead of the CSRF check), `routes`
 * rate-limits them and serves the page, its form post and POST /api/clinician-request.
 */
export function coachRequestRoutes(deps: CoachRequestDeps): { beforeCsrf: Router; routes: Router } {
  const { db, now } = deps;
  const beforeCsrf = Router();
  // Not the form kit: multer reads the multipart body before the CSRF check, which needs its `_csrf` field.
  beforeCsrf.post([COACH_PAGE, COACH_API], logoUpload(deps.csrf, deps.maxConcurrentUploads ?? MAX_CONCURRENT_UPLOADS));

  const routes = Router();
  // Counted after the CSRF check, so a forged post cannot use up a coach's allowance.
  routes.post([COACH_PAGE, COACH_API], deps.rateLimiter({ name: "coach-request", ...COACH_REQUEST_RATE_LIMIT, message: RATE_LIMITED }));
  const page = (req: Request, res: Response, event: EventDetail, opts: { open: boolean; form?: FormState; logoNote?: string; status?: number }) =>
    renderPage(req, res, <CoachRegistrationPage event={coachEvent(event)} open={opts.open} form={opts.form ?? emptyForm} logoNote={opts.logoNote} />, {
      title: "College Coach Registration",
      description: `College coaches: request to attend the ${event.title} (${event.dateText}, ${event.location}).`,
      status: opts.status,
    });
  const notFound = (req: Request, res: Response, status: number, message: string, pageText = message) =>
    renderPage(req, res, <EventNotFoundPage message={pageText} />, {
      title: EVENT_NOT_FOUND_TITLE,
      description: message,
      status,
      noindex: true,
    });
  const unavailable = (req: Request, res: Response, err: unknown, json: boolean) => {
    req.log.error({ err }, "coach registration event could not be loaded");
    res.set("retry-after", "30");
    if (json) res.status(503).json({ success: false, error: EVENT_LOAD_FAILED });
    else notFound(req, res, 503, EVENT_LOAD_FAILED);
  };

  routes.get(COACH_PAGE, async (req, res) => {
    let loaded: Loaded;
    try {
      loaded = await loadEvent(db, req.query.eventId);
    } catch (err) {
      return unavailable(req, res, err, false);
    }
    if (!loaded.ok) return notFound(req, res, loaded.status, loaded.message, loaded.pageText);
    page(req, res, loaded.event, { open: coachRegistrationState(loaded.event, now()) === "open" });
  });

  /** The event a post names, open for requests; undefined once the page or the JSON error has answered. */
  async function posted(req: Request, res: Response, json: boolean): Promise<Posted | undefined> {
    let loaded: Loaded;
    try {
      loaded = await loadEvent(db, formBody(req).eventId);
    } catch (err) {
      unavailable(req, res, err, json);
      return undefined;
    }
    if (!loaded.ok) {
      if (json) res.status(loaded.status).json({ success: false, error: loaded.message });
      else notFound(req, res, loaded.status, loaded.message, loaded.pageText);
      return undefined;
    }
    if (coachRegistrationState(loaded.event, now()) !== "open") {
      if (json) res.status(409).json({ success: false, error: COACH_MESSAGES.closed });
      else page(req, res, loaded.event, { open: false, status: 409 });
      return undefined;
    }
    const { _csrf: _token, eventId: _event, ...values } = formBody(req);
    return { detail: loaded.event, event: coachEvent(loaded.event), values, logo: receivedLogo(req, res) };
  }

  const requestForm = formPost({
    input: (_req, p: Posted) => p.values,
    check: checkRequest,
    page: (req, res, p, form, status) => {
      flashToast(req, { ...COACH_MESSAGES.validationToast, variant: "destructive" });
      const logoNote = p.logo && !("error" in p.logo) ? "Your logo was fine but is not kept while the form has errors: please attach it again." : undefined;
      page(req, res, p.detail, { open: true, form, logoNote, status });
    },
    run: async (_req, _res, checked, p) => {
      await save(deps, p.event, checked);
      return { redirect: `/events/${p.event.id}`, toast: { ...COACH_MESSAGES.submitted, variant: "success" } };
    },
    failed: (req, res, err, p) => {
      // Nothing was saved: the coach keeps the form and is told, instead of an error page.
      req.log.error({ err }, "coach request could not be saved");
      flashToast(req, { ...COACH_MESSAGES.failed, variant: "destructive" });
      page(req, res, p.detail, { open: true, form: { values: p.values, errors: {} }, status: 503 });
    },
  });
  routes.post(COACH_PAGE, async (req, res) => {
    const p = await posted(req, res, false);
    if (p) await requestForm(req, res, p);
  });

  const requestJson = jsonPost({
    input: (_req, p: Posted) => p.values,
    check: checkRequest,
    run: async (_req, _res, checked, p) => ({ status: 201, json: { success: true, id: await save(deps, p.event, checked), message: COACH_MESSAGES.submitted.title } }),
  });
  routes.post(COACH_API, async (req, res) => {
    const p = await posted(req, res, true);
    if (p) await requestJson(req, res, p);
  });

  return { beforeCsrf, routes };
}
