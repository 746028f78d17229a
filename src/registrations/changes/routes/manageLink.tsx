import type { Request, Response } from "express";
import { renderPage } from "../../../http/render.tsx";
import type { FormState } from "../../../shared/forms.ts";
import { domainErrorStatus } from "../../../http/errors.ts";
import type { DomainError } from "../../../errors.ts";
import { findEvent } from "../../../events/repository.ts";
import { eventHoursText } from "../../../shared/events/rules.ts";
import { deadlineText, stampText } from "../../../shared/texts.ts";
import { CancelPage, ManageLinkNotFound, ManagePage, type CancelView } from "../../../../views/pages/registration/ManagePage.tsx";
import type { PendingChange } from "../../../../views/pages/registration/ChangePages.tsx";
import { CHANGE_TEXT } from "../../../shared/registrations/changeTexts.ts";
import { FamilyPage, type FamilyView } from "../../../../views/pages/registration/FamilyPage.tsx";
import { formValuesOf } from "../../../shared/registrations/rules.ts";
import { redemptionOf } from "../../core/money/redemptions.ts";
import { changesOf } from "../../core/tables/changes.ts";
import { eventChangesFreezeAt } from "../../core/tables/eventTerms.ts";
import type { RegistrationDeps } from "../../core/deps.ts";
import { MANAGE_PATH, registrationByToken, type Opened } from "../links.ts";
import { manageView } from "./manageView.ts";
import { individualOf } from "../change.ts";
import { permissions, type Permissions } from "../../core/permissions.ts";
import { activeAthletes, cancellationQuote } from "../cancel.ts";
import { TEAM_MINIMUM } from "../../../shared/registrations/teamRules.ts";
import { withRefundState } from "../refundState.ts";
import { ADULT_AGE, athleteRowOf, SIGNER_RELATIONSHIPS } from "../family.ts";
import { AGREEMENTS_VERSION } from "../../../shared/registrations/agreements.ts";

/**
 * What a private manage link (`/my-registration/{token}`) opens, and the pages it shows: the registrant's or coach's
 * manage page and its cancel page, and a family's page for one athlete of a team. Every page answers `no-store` and sends its
 * address (the token) as referrer only to this site, so the token stays out of caches and other sites' logs.
 */

const CANCEL_CLOSED = "This registration can no longer be canceled.";

/** Manage actions and link look-ups per address per minute. */
export const MANAGE_RATE_LIMIT = { windowMs: 60_000, limit: 60 } as const;

/** A change posted through a link: what it opens and what may change now. */
export interface Changing {
  o: Opened;
  p: Permissions;
}

/** The version of the registration the posted page showed (-1 when missing: the change is then refused as stale). */
export const versionOf = (body: Record<string, unknown>) => (typeof body.version === "string" && /^\d{1,9}$/.test(body.version) ? Number(body.version) : -1);

/** The registration the link opens, or the one 404 page. */
export async function openLink(deps: RegistrationDeps, req: Request, res: Response): Promise<Opened | undefined> {
  res.set({ "cache-control": "private, no-store", "referrer-policy": "same-origin" });
  const token = String(req.params.token ?? "");
  const found = await registrationByToken(deps, token);
  const event = found ? await findEvent(deps.db, found.registration.eventId) : undefined;
  if (!found || !event) {
    renderPage(req, res, <ManageLinkNotFound />, { title: "Link Not Found", description: "This registration link does not work.", status: 404, noindex: true });
    return undefined;
  }
  return { r: found.registration, event, base: `${MANAGE_PATH}/${token}`, athletePosition: found.athletePosition };
}

/** The registrant's or coach's own link (not a family's); a family's link gets its page with the reason. */
export async function openWhole(deps: RegistrationDeps, req: Request, res: Response): Promise<Opened | undefined> {
  const o = await openLink(deps, req, res);
  if (o && o.athletePosition !== null) {
    await showFamily(deps, req, res, o, { status: 403, message: "This link is for one athlete; only the coach's link can do that." });
    return undefined;
  }
  return o;
}

export async function allowed(deps: RegistrationDeps, o: Opened): Promise<Permissions> {
  return permissions(o.r.status, o.event, await eventChangesFreezeAt(deps.db, o.event.id), deps.clock());
}

/** The change waiting for its payment (or its review), if any: the manage page and the change pages link to it. */
export async function pendingChangeOf(deps: RegistrationDeps, o: Opened): Promise<PendingChange | null> {
  const c = (await changesOf(deps.db, o.r.id, ["pending", "needs_review"]))[0];
  if (!c) return null;
  const what = c.data.kind === "upgrade" ? CHANGE_TEXT.pendingUpgrade(c.data.packageLabel) : CHANGE_TEXT.pendingAthletes(c.data.athletes.map((a) => `${a.firstName} ${a.lastName}`));
  return { href: `${o.base}/changes/${c.id}`, what, amountCents: c.amountCents, review: c.status === "needs_review" };
}

/** The manage page of the registrant's or coach's link. */
export async function showManage(deps: RegistrationDeps, req: Request, res: Response, o: Opened, extra: { form?: FormState; packageForm?: FormState; message?: string; status?: number } = {}) {
  const p = await allowed(deps, o);
  const form = extra.form ?? (o.r.kind === "individual" ? { values: formValuesOf(individualOf(o.r), o.event), errors: {} } : undefined);
  const view = manageView(deps, o, p);
  view.statusLabel = await withRefundState(deps, o.r, view.statusLabel);
  // A registration paid with a code is not offered the change (an operator decides its share of the code).
  if (await redemptionOf(deps.db, o.r.id)) view.downgrades = [];
  view.pending = await pendingChangeOf(deps, o);
  renderPage(req, res, <ManagePage view={view} form={form} packageForm={extra.packageForm} message={extra.message} />, {
    title: `Registration ${o.r.reference}`,
    description: "Your camp registration: see it, change it or cancel it.",
    status: extra.status,
    noindex: true,
  });
}

/** A family's page: one athlete of a team, their details, medical notes and the waiver. */
export async function showFamily(deps: RegistrationDeps, req: Request, res: Response, o: Opened, extra: { details?: FormState; waiver?: FormState; message?: string; status?: number } = {}) {
  const p = await allowed(deps, o);
  const index = o.r.athletes.findIndex((a) => a.position === o.athletePosition);
  const a = o.r.athletes[index]!;
  const zone = o.event.timeZone;
  const view: FamilyView = {
    base: o.base,
    athleteName: `${a.firstName} ${a.lastName}`,
    teamName: o.r.teamName ?? `${o.r.contact.firstName} ${o.r.contact.lastName}'s team`,
    coachName: `${o.r.contact.firstName} ${o.r.contact.lastName}`,
    eventTitle: o.event.title,
    dateText: o.event.dateText,
    hours: eventHoursText(o.event),
    location: o.event.location,
    version: o.r.version,
    phase: p.phase,
    changesUntil: deadlineText(p.freezeAt, zone),
    reason: p.reason,
    waiver: a.waiver && { ...a.waiver, signedAt: stampText(a.waiver.signedAt, zone) },
    waiverVersion: AGREEMENTS_VERSION,
    minor: a.age === null || a.age < ADULT_AGE,
    relationships: SIGNER_RELATIONSHIPS,
  };
  const details = extra.details ?? { values: { athlete: athleteRowOf(a), specialRequirements: a.specialRequirements ?? "" }, errors: {} };
  renderPage(req, res, <FamilyPage view={view} details={details} waiver={extra.waiver ?? { values: {}, errors: {} }} message={extra.message} />, {
    title: `${view.athleteName}: ${o.event.title}`,
    description: "Your athlete's camp registration: details, medical notes and the waiver.",
    status: extra.status,
    noindex: true,
  });
}

/** The cancel page of the registrant's or coach's link: what canceling now gives back, the whole or one athlete. */
export async function showCancel(deps: RegistrationDeps, req: Request, res: Response, o: Opened, extra: { message?: string; status?: number } = {}) {
  const p = await allowed(deps, o);
  if (!p.canCancel) return showManage(deps, req, res, o, { status: extra.status ?? 409, message: extra.message ?? (p.reason || CANCEL_CLOSED) });
  const now = deps.clock();
  const whole = cancellationQuote(o.r, { whole: true }, p.startsAt, now);
  const active = activeAthletes(o.r);
  const one = cancellationQuote(o.r, { whole: false, athletePosition: 0 }, p.startsAt, now);
  const view: CancelView = {
    base: o.base,
    title: manageView(deps, o, p).title,
    eventTitle: o.event.title,
    kind: o.r.kind,
    version: o.r.version,
    whole: { refundCents: whole.cents, percent: whole.percent, partCents: whole.partCents },
    athletes: active.length > TEAM_MINIMUM ? active.map((a) => ({ position: a.position, name: `${a.firstName} ${a.lastName}` })) : [],
    athlete: { refundCents: one.cents, partCents: one.partCents },
    teamMinimum: TEAM_MINIMUM,
  };
  renderPage(req, res, <CancelPage view={view} message={extra.message} />, { title: "Cancel Registration", description: "Cancel your camp registration.", status: extra.status, noindex: true });
}

/** A change the use case refused: the link's page again, as the registration now stands, with the reason. */
export async function showRefused(deps: RegistrationDeps, req: Request, res: Response, err: DomainError): Promise<void> {
  const fresh = (await openLink(deps, req, res))!;
  const show = fresh.athletePosition === null ? showManage : showFamily;
  await show(deps, req, res, fresh, { status: domainErrorStatus(err), message: err.message });
}
