import { randomBytes } from "node:crypto";
import type { Request, Response } from "express";
import { limitsInOneTrip, type RateLimiter, type RateLimiterFactory } from "../../http/rateLimit.ts";
import { renderPage } from "../../http/render.tsx";
import { visitorKeys } from "../../http/visitor.ts";
import { stripeScripts } from "../../payments/setup.ts";
import type { PaymentGateway } from "../../payments/gateway.ts";
import { findEvent } from "../../events/repository.ts";
import { parseEventId } from "../../shared/events/rules.ts";
import { timeText } from "../../shared/texts.ts";
import type { EventDetail } from "../../shared/events/types.ts";
import { DISCOUNT_REASONS } from "../../shared/discounts/rules.ts";
import { RegistrationNotFoundPage } from "../../../views/pages/registration/RegisterPage.tsx";
import { REGISTRATION_MESSAGES } from "../../shared/registrations/rules.ts";
import type { Visitor } from "./holding.ts";
import type { RegistrationDeps } from "./deps.ts";

/** What the registration routes are given: the use cases' deps, the rate limiter factory and the shared payment-creation limit. */
export interface RegistrationRouteDeps extends RegistrationDeps {
  rateLimiter: RateLimiterFactory;
  /** One per-session counter shared by every route that creates an order, a registration or a PaymentIntent. */
  paymentLimit: RateLimiter;
  /** The one budget of code guesses (codeGuessBudget), made once so that every path counts against the same counters. */
  codeGuesses: RateLimiter;
  /** Private links' look-ups and actions (MANAGE_RATE_LIMIT), one counter per address over every manage link route and the waiting list's confirmation, offer and leave links. */
  manageLimit: RateLimiter;
}

/** Create-payment-intent calls (form posts included) per address per minute. */
export const REGISTRATION_RATE_LIMIT = { windowMs: 60_000, limit: 30 } as const;
export const RATE_LIMITED = "Too many registration attempts from your connection. Please wait a minute and try again.";

/** Code guesses, over every path that checks a code: per visitor (session) and per address, per window. */
export const CODE_GUESS_LIMITS = {
  visitor: { windowMs: 15 * 60_000, limit: 20 },
  address: { windowMs: 15 * 60_000, limit: 60 },
} as const;

const MAX_REFS = 20;

export const newFormSessionId = () => randomBytes(16).toString("base64url");

/** The event a registration route names: listed events only; null when there is none. */
export async function loadEvent(deps: Pick<RegistrationDeps, "db">, raw: unknown): Promise<EventDetail | null> {
  const id = parseEventId(typeof raw === "number" ? String(raw) : raw);
  if (id === null) return null;
  const event = await findEvent(deps.db, id);
  return event && event.listed ? event : null;
}

export function notFound(req: Request, res: Response): void {
  renderPage(req, res, <RegistrationNotFoundPage />, { title: REGISTRATION_MESSAGES.notFoundTitle, description: REGISTRATION_MESSAGES.notFound, status: 404, noindex: true });
}

/** The visitor's latest registration for the event: their individual one, or with option 'team' their team's. */
export const ownReference = (req: Request, eventId: number, option?: unknown): string | undefined =>
  (option === "team" ? req.session?.teamRegistrations : req.session?.registrations)?.[String(eventId)];

/** Keeps a held registration in the visitor's session: the latest per event and kind, and every reference they made. */
export function remember(req: Request, kind: "individual" | "team", eventId: number, reference: string): void {
  if (kind === "team") req.session.teamRegistrations = { ...(req.session.teamRegistrations ?? {}), [String(eventId)]: reference };
  else req.session.registrations = { ...(req.session.registrations ?? {}), [String(eventId)]: reference };
  const refs = (req.session.registrationRefs ?? []).filter((r) => r !== reference);
  req.session.registrationRefs = [...refs, reference].slice(-MAX_REFS);
}

/** Who is registering: the hashes the visitor cap and form ownership use, and the references their session made. */
export function visitorOf(req: Request, res: Response): Visitor {
  return { holder: visitorKeys(req, res), owned: req.session?.registrationRefs ?? [] };
}

/** When a hold ends, as the checkout page prints it: in the event's own time zone, named. */
export const holdEndsText = (until: Date, event: Pick<EventDetail, "timeZone">) => timeText(until, event.timeZone);

/** /stripe-checkout's shell: the payment page without the site's header and footer. */
export function checkoutPage(req: Request, res: Response, gateway: PaymentGateway, content: React.ReactElement, opts: { status?: number; card?: boolean; description?: string } = {}): void {
  res.set("cache-control", "no-store");
  renderPage(req, res, content, {
    title: "Checkout",
    description: opts.description ?? "Complete your camp registration.",
    status: opts.status,
    bare: true,
    noindex: true,
    scripts: opts.card ? stripeScripts(gateway) : undefined,
  });
}

/**
 * One budget for code guesses across every path that checks a code (/api/validate-discount, step 1, the team form,
 * the free completion): the same two counters, per visitor and per address. A request that names no code is not a guess.
 */
export function codeGuessBudget(rateLimiter: RateLimiterFactory): RateLimiter {
  const message = DISCOUNT_REASONS.rateLimited;
  const perAddress = rateLimiter({ name: "code-guess-address", ...CODE_GUESS_LIMITS.address, message, applies: namesCode });
  const perVisitor = rateLimiter({ name: "code-guess-visitor", ...CODE_GUESS_LIMITS.visitor, message, per: "session", applies: namesCode });
  return limitsInOneTrip(perAddress, perVisitor);
}

function namesCode(req: Request): boolean {
  const body = (req.body ?? {}) as Record<string, unknown>;
  if (body.remove !== undefined && body.remove !== false && body.remove !== "false") return false;
  // Checking a code, or completing with the code already applied: a guess either way.
  if (req.path === "/api/validate-discount" || req.path.endsWith("/free") || body.freeRegistration === true || body.freeRegistration === "true") return true;
  const data = body.registrationData as Record<string, unknown> | undefined;
  const code = body.discountCode ?? data?.discountCode;
  return typeof code === "string" && code.trim() !== "";
}
