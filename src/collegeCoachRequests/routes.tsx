import { Router, type Request, type RequestHandler, type Response } from "express";
import multer from "multer";
import type { Db } from "../db/knex.ts";
import type { Site } from "../shared/site.ts";
import type { Outbox } from "../email/outbox.ts";
import type { RateLimiterFactory } from "../http/rateLimit.ts";
import { renderPage } from "../http/render.tsx";
import { emptyForm, validate, type FieldErrors, type FormState, type Validation } from "../shared/forms.ts";
import { formBody, formPost, jsonPost } from "../http/forms.ts";
import { flashToast } from "../http/pageContext.ts";
import { HttpError } from "../http/errors.ts";
import { CsrfError, type Csrf } from "../http/csrf.ts";
import { findEvent } from "../events/repository.ts";
import { EVENT_LOAD_FAILED, EVENT_NOT_FOUND, EVENT_NOT_FOUND_TEXT, EVENT_NOT_FOUND_TITLE, parseEventId } from "../shared/events/rules.ts";
import type { EventDetail } from "../shared/events/types.ts";
import {
  checkLogoContent,
  coachEvent,
  coachRegistrationState,
  LOGO_FIELD,
  LOGO_MAX_BYTES,
  LOGO_MESSAGES,
  LOGO_SNIFF_BYTES,
  type CoachEvent,
  type LogoType,
} from "../shared/collegeCoachRequests/rules.ts";
import { COACH_MESSAGES, coachRequestSchema, type CoachRequest } from "../shared/collegeCoachRequests/schemas.ts";
import { saveCoachRequest } from "./repository.ts";
import { CoachRegistrationPage } from "../../views/pages/collegeCoachRequests/CoachRegistrationPage.tsx";
import { EventNotFoundPage } from "../../views/pages/events/EventNotFoundPage.tsx";

export interface CoachRequestDeps {
  db: Db;
  site: Site;
  outbox: Outbox;
  brandInbox: string;
  rateLimiter: RateLimiterFactory;
  /** Checked as the logo's part begins, before a byte of it is kept. */
  csrf: Pick<Csrf, "valid">;
  /** Multipart bodies read at once by this process (each holds up to 5 MB); more answer 503 at once. */
  maxConcurrentUploads?: number;
  now?: () => Date;
}

export const COACH_PAGE = "/coach-registration";
export const COACH_API = "/api/clinician-request";

/** Both coach request endpoints together allow this many posts per visitor per window. */
export const COACH_REQUEST_RATE_LIMIT = { windowMs: 15 * 60_000, limit: 10 } as const;
const RATE_LIMITED = "Too many registrations from your connection. Please wait a few minutes and try again.";
export const UNREADABLE = "The form could not be read. Please reload the page and try again.";
export const UPLOADS_BUSY = "Too many uploads are being received right now. Please try again in a moment.";
export const MAX_CONCURRENT_UPLOADS = 8;

declare module "express-serve-static-core" {
  interface Locals {
    /** Set when multer refused the logo for its size: the form is re-shown with this message. */
    logoRefusal?: string;
  }
}

/**
 * The multipart body of the coach request posts (fields and one logo, held in memory, never on disk), parsed by
 * multer with the 5 MB limit, ahead of the CSRF check, which then reads `_csrf` from these fields. The origin was
 * checked before (sameOriginOnly), and the token is checked again as the logo's part begins (the form sends `_csrf`
 * first, the dialog the `x-csrf-token` header): a forged post is refused before a byte of its file is kept. A body
 * multer cannot read (a NUL or a bad line in a part header, no boundary, a cut-off body) is the form's 400.
 */
function logoUpload(csrf: Pick<Csrf, "valid">, maxConcurrent: number): RequestHandler {
  const upload = multer({
    storage: multer.memoryStorage(),
    limits: { fileSize: LOGO_MAX_BYTES, files: 1, fields: 40, parts: 41, fieldSize: 16 * 1024, fieldNameSize: 100, fieldNestingDepth: 0 },
    fileFilter: (req, _file, accept) => (csrf.valid(req) ? accept(null, true) : accept(new CsrfError("invalid csrf token"))),
  }).single(LOGO_FIELD);
  let reading = 0;
  return (req, res, next) => {
    if (!req.is("multipart/form-data")) return next();
    if (reading >= maxConcurrent) {
      res.set("retry-after", "5");
      return next(new HttpError(503, UPLOADS_BUSY, "Service unavailable"));
    }
    // Counted until the response is over: the body's buffer lives as long as the request.
    reading += 1;
    res.once("close", () => (reading -= 1));
    upload(req, res, (err: unknown) => {
      if (!err) return next();
      if (err instanceof CsrfError) return next(err);
      if (err instanceof multer.MulterError && err.code === "LIMIT_FILE_SIZE") {
        // The fields before the file were read; the rest of the form is re-shown with the size message.
        res.locals.logoRefusal = LOGO_MESSAGES.size;
        return next();
      }
      if (err instanceof multer.MulterError && (err.code === "LIMIT_FILE_COUNT" || err.code === "LIMIT_UNEXPECTED_FILE")) {
        return next(new HttpError(400, LOGO_MESSAGES.single, "Bad request"));
      }
      next(new HttpError(400, UNREADABLE, "Bad request"));
    });
  };
}

type Loaded = { ok: true; event: EventDetail } | { ok: false; status: number; message: string };

/** The event a request is for: it must exist and offer coach registration. */
async function loadEvent(db: Db, rawId: unknown): Promise<Loaded> {
  const id = parseEventId(typeof rawId === "number" ? String(rawId) : rawId);
  const event = id === null ? null : await findEvent(db, id);
  if (!event) return { ok: false, status: 404, message: EVENT_NOT_FOUND };
  if (!event.coachRegistration) return { ok: false, status: 404, message: COACH_MESSAGES.notOffered };
  return { ok: true, event };
}

type Logo = { type: LogoType; content: Buffer };

/** The logo sent with the request, checked by its content: the logo, or the field error. */
function receivedLogo(req: Request, res: Response): Logo | { error: string } | undefined {
  if (res.locals.logoRefusal) return { error: res.locals.logoRefusal };
  const file = req.file;
  if (!file) return undefined;
  const checked = checkLogoContent(file.size, file.buffer.subarray(0, LOGO_SNIFF_BYTES));
  return checked.ok ? { type: checked.type, content: file.buffer } : { error: checked.message };
}

/** What a request post is about: the event (open for requests), the fields as sent (no token, no event id), the logo. */
interface Posted {
  detail: EventDetail;
  event: CoachEvent;
  values: Record<string, unknown>;
  logo: ReturnType<typeof receivedLogo>;
}

/** The fields by the shared schema and the logo by its content; every problem at once, keyed by field. */
function checkRequest(values: Record<string, unknown>, { event, logo }: Posted): Validation<{ request: CoachRequest; logo: Logo | undefined }> {
  const result = validate(coachRequestSchema(event.days.map((d) => d.date)), values);
  const logoError = logo && "error" in logo ? logo.error : undefined;
  if (result.ok && !logoError) return { ok: true, data: { request: result.data, logo: logo && !("error" in logo) ? logo : undefined } };
  const errors: FieldErrors = { ...(result.ok ? {} : result.errors), ...(logoError ? { [LOGO_FIELD]: logoError } : {}) };
  return { ok: false, errors, message: Object.values(errors)[0] ?? UNREADABLE };
}

/** The request, its logo, days and e-mails in one transaction; the outbox is woken once it has committed. */
async function save(deps: CoachRequestDeps, event: CoachEvent, checked: { request: CoachRequest; logo: Logo | undefined }): Promise<number> {
  const id = await saveCoachRequest(deps.db, { event, request: checked.request, logo: checked.logo, brand: deps.site.displayName, brandInbox: deps.brandInbox });
  deps.outbox.wake();
  return id;
}

/**
 * College coach requests: `beforeCsrf` parses the multipart posts (mounted ahead of the CSRF check), `routes`
 * rate-limits them and serves the page, its form post and POST /api/clinician-request.
 */
export function coachRequestRoutes(deps: CoachRequestDeps): { beforeCsrf: Router; routes: Router } {
  const { db, now = () => new Date() } = deps;
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
  const notFound = (req: Request, res: Response, status: number, message: string) =>
    renderPage(req, res, <EventNotFoundPage message={message === EVENT_NOT_FOUND ? EVENT_NOT_FOUND_TEXT : message} />, {
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
    if (!loaded.ok) return notFound(req, res, loaded.status, loaded.message);
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
      else notFound(req, res, loaded.status, loaded.message);
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
