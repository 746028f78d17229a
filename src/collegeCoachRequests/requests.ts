import type { Db } from "../db/knex.ts";
import type { Site } from "../shared/site.ts";
import type { Outbox } from "../email/outbox.ts";
import type { RateLimiterFactory } from "../http/rateLimit.ts";
import { validate, type FieldErrors, type Validation } from "../shared/forms.ts";
import type { Csrf } from "../http/csrf.ts";
import { findEvent } from "../events/repository.ts";
import { EVENT_NOT_FOUND, EVENT_NOT_FOUND_TEXT, parseEventId } from "../shared/events/rules.ts";
import type { EventDetail } from "../shared/events/types.ts";
import { LOGO_FIELD, type CoachEvent } from "../shared/collegeCoachRequests/rules.ts";
import { COACH_MESSAGES, coachRequestSchema, type CoachRequest } from "../shared/collegeCoachRequests/schemas.ts";
import { saveCoachRequest } from "./repository.ts";
import { receivedLogo, UNREADABLE, type Logo } from "./routes/logoUpload.ts";

/** A coach's request to attend (routes.tsx answers it): the event it is for, its fields and logo checked, and saving it. */

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
  /** The business time (src/clock.ts): whether the camp still takes requests. */
  now: () => Date;
}

/** A refusal carries its JSON message and the page's own text for it. */
export type Loaded = { ok: true; event: EventDetail } | { ok: false; status: number; message: string; pageText: string };

/** The event a request is for: it must exist and offer coach registration. */
export async function loadEvent(db: Db, rawId: unknown): Promise<Loaded> {
  const id = parseEventId(typeof rawId === "number" ? String(rawId) : rawId);
  const event = id === null ? null : await findEvent(db, id);
  if (!event) return { ok: false, status: 404, message: EVENT_NOT_FOUND, pageText: EVENT_NOT_FOUND_TEXT };
  if (!event.coachRegistration) return { ok: false, status: 404, message: COACH_MESSAGES.notOffered, pageText: COACH_MESSAGES.notOffered };
  return { ok: true, event };
}

/** What a request post is about: the event (open for requests), the fields as sent (no token, no event id), the logo. */
export interface Posted {
  detail: EventDetail;
  event: CoachEvent;
  values: Record<string, unknown>;
  logo: ReturnType<typeof receivedLogo>;
}

/** The fields by the shared schema and the logo by its content; every problem at once, keyed by field. */
export function checkRequest(values: Record<string, unknown>, { event, logo }: Posted): Validation<{ request: CoachRequest; logo: Logo | undefined }> {
  const result = validate(coachRequestSchema(event.days.map((d) => d.date)), values);
  const logoError = logo && "error" in logo ? logo.error : undefined;
  if (result.ok && !logoError) return { ok: true, data: { request: result.data, logo: logo && !("error" in logo) ? logo : undefined } };
  const errors: FieldErrors = { ...(result.ok ? {} : result.errors), ...(logoError ? { [LOGO_FIELD]: logoError } : {}) };
  return { ok: false, errors, message: Object.values(errors)[0] ?? UNREADABLE };
}

/** The request, its logo, days and e-mails in one transaction; the outbox is woken once it has committed. */
export async function save(deps: CoachRequestDeps, event: CoachEvent, checked: { request: CoachRequest; logo: Logo | undefined }): Promise<number> {
  const id = await saveCoachRequest(deps.db, { event, request: checked.request, logo: checked.logo, brand: deps.site.displayName, brandInbox: deps.brandInbox });
  deps.outbox.wake();
  return id;
}
