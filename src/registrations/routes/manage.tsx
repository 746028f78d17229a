import { Router, type Request, type Response } from "express";
import * as z from "zod/mini";
import { renderPage } from "../../http/render.tsx";
import { flashToast } from "../../http/pageContext.ts";
import { validate, type FormState } from "../../shared/forms.ts";
import { DomainError } from "../../errors.ts";
import { domainErrorStatus } from "../../http/errors.ts";
import { findEvent } from "../../events/repository.ts";
import { eventHoursText, formatEventDateTime } from "../../shared/events/rules.ts";
import type { EventDetail } from "../../shared/events/types.ts";
import { CancelPage, ManageLinkNotFound, ManagePage, type CancelView, type ManageView } from "../../../views/pages/registration/ManagePage.tsx";
import { coversEveryDay, findPackage, formValuesOf, registrationSchema, REGISTRATION_MESSAGES } from "../../shared/registrations/rules.ts";
import * as repo from "../repository.ts";
import type { Registration } from "../repository.ts";
import { registrationCalendar } from "../email.ts";
import { issueManageLink, MANAGE_PATH, registrationByToken, resendManageLinks } from "../manage/links.ts";
import type { RegistrationDeps } from "../deps.ts";
import { changeIndividual, individualOf } from "../manage/change.ts";
import { MANAGE_TEXT } from "../../shared/registrations/changeTexts.ts";
import { permissions, type Permissions } from "../manage/rules.ts";
import { tierDeadlines } from "../../shared/registrations/changePolicy.ts";
import { activeAthletes, CANCEL_TEXT, cancellationQuote, cancelRegistration, type CancelScope } from "../manage/cancel.ts";
import { ADULT_AGE, athleteRowOf, changeTeamAthlete, FAMILY_TEXT, missingFor, sendFamilyLink, signFamilyWaiver, SIGNER_RELATIONSHIPS, validateFamilyForm, waiverSchema } from "../manage/family.ts";
import { AGREEMENTS_VERSION } from "../../shared/registrations/agreements.ts";
import { DOWNGRADE_TEXT, downgradeIndividual, downgradeOptions } from "../manage/downgrade.ts";
import { FamilyPage, type FamilyView } from "../../../views/pages/registration/FamilyPage.tsx";
import { TEAM_MINIMUM } from "../../shared/registrations/teamRules.ts";
import { formatPrice } from "../../shared/money.ts";
import { loadEvent, type RegistrationRouteDeps } from "./shared.tsx";

/**
 * The manage link a confirmation page shows to the visitor who paid: issued once per session and registration, so a
 * reload shows the same link instead of adding one.
 */
export async function confirmationPageManageHref(req: Request, deps: RegistrationDeps, r: Registration): Promise<string> {
  let token = req.session.manageLinks?.[r.reference];
  if (!token) {
    token = await issueManageLink(deps.db, r.id, "page", deps.clock());
    const kept = Object.entries(req.session.manageLinks ?? {}).slice(-9);
    req.session.manageLinks = { ...Object.fromEntries(kept), [r.reference]: token };
  }
  return `${MANAGE_PATH}/${token}`;
}

/** Manage actions and link look-ups per address per minute; "Lost your confirmation?" per address per hour. */
export const MANAGE_RATE_LIMIT = { windowMs: 60_000, limit: 60 } as const;
export const RESEND_RATE_LIMIT = { windowMs: 60 * 60_000, limit: 5 } as const;

export const RESEND_TEXT = {
  title: "Check your inbox",
  sent: "If that address registered for this event, we've e-mailed it a new link to the registration. It can take a few minutes to arrive.",
  rateLimited: "Too many requests for a registration link from your connection. Please wait an hour and try again, or contact us.",
} as const;

const CANCEL_CLOSED = "This registration can no longer be canceled.";
const CANCELED_TEXT = (refundCents: number) =>
  refundCents > 0 ? `A refund of ${formatPrice(refundCents)} is on its way to your card; we've e-mailed you a receipt.` : "We've e-mailed you a receipt.";

const STATUS_LABEL: Record<string, string> = {
  paid: "Paid",
  needs_review: "Payment being reviewed",
  withdrawn: "Canceled",
  refunded: "Refunded",
};

const resendSchema = z.object({ email: z.pipe(z.string(REGISTRATION_MESSAGES.email).check(z.trim(), z.maxLength(254)), z.email(REGISTRATION_MESSAGES.email)) });
const versionOf = (body: Record<string, unknown>) => (typeof body.version === "string" && /^\d{1,9}$/.test(body.version) ? Number(body.version) : -1);

/**
 * The private manage link (`/my-registration/{token}`): the registration as it stands, the registrant's changes
 * until the freeze date, and "Lost your confirmation?" (`POST /events/{id}/lost-confirmation`). Every page answers
 * `no-store` and sends its address (the token) as referrer only to this site, so the token stays out of caches and other sites' logs.
 */
export function manageRoutes(deps: RegistrationRouteDeps): Router {
  const router = Router();
  const limit = deps.rateLimiter({ name: "registration-manage", ...MANAGE_RATE_LIMIT });
  const resendLimit = deps.rateLimiter({ name: "registration-link-resend", ...RESEND_RATE_LIMIT, message: RESEND_TEXT.rateLimited });

  /** What a link opens: the registration, its event, the page's address and, for a family's link, the one athlete. */
  type Opened = { r: Registration; event: EventDetail; base: string; athletePosition: number | null };
  /** The registration the link opens, or the one 404 page. */
  async function open(req: Request, res: Response): Promise<Opened | undefined> {
    res.set({ "cache-control": "private, no-store", "referrer-policy": "same-origin" });
    const token = String(req.params.token ?? "");
    const found = await registrationByToken(deps.db, token);
    const event = found ? await findEvent(deps.db, found.registration.eventId) : undefined;
    if (!found || !event) {
      renderPage(req, res, <ManageLinkNotFound />, { title: "Link Not Found", description: "This registration link does not work.", status: 404, noindex: true });
      return undefined;
    }
    return { r: found.registration, event, base: `${MANAGE_PATH}/${token}`, athletePosition: found.athletePosition };
  }

  /** The registrant's or coach's own link (not a family's); a family's link gets its page with the reason. */
  async function openWhole(req: Request, res: Response): Promise<Opened | undefined> {
    const o = await open(req, res);
    if (o && o.athletePosition !== null) {
      await showFamily(req, res, o, { status: 403, message: "This link is for one athlete; only the coach's link can do that." });
      return undefined;
    }
    return o;
  }

  async function allowed(o: Opened): Promise<Permissions> {
    return permissions(o.r.status, o.event, await repo.eventChangesFreezeAt(deps.db, o.event.id), deps.clock());
  }

  async function show(req: Request, res: Response, o: Opened, extra: { form?: FormState; packageForm?: FormState; message?: string; status?: number } = {}) {
    const p = await allowed(o);
    const form = extra.form ?? (o.r.kind === "individual" ? { values: formValuesOf(individualOf(o.r), o.event), errors: {} } : undefined);
    const view = viewOf(o, p);
    // A registration paid with a code is not offered the change (an operator decides its share of the code).
    if (await repo.redemptionOf(deps.db, o.r.id)) view.downgrades = [];
    renderPage(req, res, <ManagePage view={view} form={form} packageForm={extra.packageForm} message={extra.message} />, {
      title: `Registration ${o.r.reference}`,
      description: "Your camp registration: see it, change it or cancel it.",
      status: extra.status,
      noindex: true,
    });
  }

  router.get(`${MANAGE_PATH}/:token`, limit, async (req, res) => {
    const o = await open(req, res);
    if (o && o.athletePosition !== null) return showFamily(req, res, o);
    if (o) await show(req, res, o);
  });

  async function showFamily(req: Request, res: Response, o: Opened, extra: { details?: FormState; waiver?: FormState; message?: string; status?: number } = {}) {
    const p = await allowed(o);
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
      changesUntil: formatEventDateTime(p.freezeAt, zone),
      reason: p.reason,
      waiver: a.waiver && { ...a.waiver, signedAt: formatEventDateTime(a.waiver.signedAt, zone) },
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

  /** A family's details post: the team form's schema for the row, the medical notes, in the aggregate's transaction. */
  async function familyDetails(req: Request, res: Response, o: Opened) {
    const body = (req.body ?? {}) as Record<string, unknown>;
    const p = await allowed(o);
    if (p.phase === "closed") return showFamily(req, res, o, { status: 409, message: p.reason });
    const current = athleteRowOf(o.r.athletes.find((a) => a.position === o.athletePosition)!);
    // After the freeze date the row is the stored one, whatever was posted: only the medical notes are read.
    const posted = p.phase === "open" ? body : { ...body, athlete: current };
    const result = validateFamilyForm(o.event, o.r, o.athletePosition!, posted);
    if (!result.ok) return showFamily(req, res, o, { status: 400, details: { values: posted, errors: result.errors } });
    try {
      const outcome = await changeTeamAthlete(deps, o.event, { reference: o.r.reference, position: o.athletePosition!, shownVersion: versionOf(body), phase: p.phase, athlete: result.athlete, specialRequirements: result.specialRequirements });
      flashToast(req, { title: outcome === "changed" ? MANAGE_TEXT.changed : MANAGE_TEXT.nothingChanged });
      res.redirect(303, o.base);
    } catch (err) {
      if (!(err instanceof DomainError) || err.kind === "unavailable") throw err;
      const fresh = (await open(req, res))!;
      await showFamily(req, res, fresh, { status: domainErrorStatus(err), message: err.message });
    }
  }

  router.post(`${MANAGE_PATH}/:token/waiver`, limit, async (req, res) => {
    const o = await open(req, res);
    if (!o) return;
    if (o.athletePosition === null) return show(req, res, o, { status: 403, message: "The waiver is signed through each family's own link." });
    const body = (req.body ?? {}) as Record<string, unknown>;
    const result = validate(waiverSchema, body);
    if (!result.ok) return showFamily(req, res, o, { status: 400, waiver: { values: body, errors: result.errors } });
    try {
      await signFamilyWaiver(deps, o.event, { reference: o.r.reference, position: o.athletePosition, signedName: result.data.signedName.trim(), relationship: result.data.relationship });
      req.log.info({ reference: o.r.reference, position: o.athletePosition }, "waiver signed through a family link");
      flashToast(req, { title: FAMILY_TEXT.signed });
      res.redirect(303, o.base);
    } catch (err) {
      if (!(err instanceof DomainError) || err.kind === "unavailable") throw err;
      await showFamily(req, res, o, { status: domainErrorStatus(err), waiver: { values: body, errors: { relationship: err.message } } });
    }
  });

  router.post(`${MANAGE_PATH}/:token/family`, limit, async (req, res) => {
    const o = await openWhole(req, res);
    if (!o) return;
    const body = (req.body ?? {}) as Record<string, unknown>;
    const position = typeof body.athlete === "string" && /^\d{1,3}$/.test(body.athlete) ? Number(body.athlete) : -1;
    try {
      const athlete = await sendFamilyLink(deps, o.event, o.r.reference, position);
      req.log.info({ reference: o.r.reference, position }, "family link sent");
      flashToast(req, { title: FAMILY_TEXT.linkSent(`${athlete.firstName} ${athlete.lastName}`) });
      res.redirect(303, o.base);
    } catch (err) {
      if (!(err instanceof DomainError) || err.kind === "unavailable") throw err;
      await show(req, res, o, { status: domainErrorStatus(err), message: err.kind === "not_found" ? CANCEL_TEXT.athleteGone : err.message });
    }
  });

  router.get(`${MANAGE_PATH}/:token/calendar.ics`, limit, async (req, res) => {
    const o = await open(req, res);
    if (!o) return;
    res.type("text/calendar; charset=utf-8").attachment(`${o.r.reference}.ics`).send(registrationCalendar(deps.site, o.event, o.r));
  });

  router.post(`${MANAGE_PATH}/:token/details`, limit, async (req, res) => {
    const o = await open(req, res);
    if (!o) return;
    if (o.athletePosition !== null) return familyDetails(req, res, o);
    if (o.r.kind !== "individual") return show(req, res, o, { status: 409, message: "Each athlete's details change through the link their family gets." });
    const body = (req.body ?? {}) as Record<string, unknown>;
    const p = await allowed(o);
    if (p.phase === "closed") return show(req, res, o, { status: 409, message: p.reason });
    // The same schema and messages as registration: the stored registration, with what this phase lets change taken from the form.
    const current = formValuesOf(individualOf(o.r), o.event);
    const posted: Record<string, unknown> =
      p.phase === "open" ? { ...body, formSessionId: current.formSessionId, registrationType: current.registrationType, agrees: "on" } : { ...current, specialRequirements: body.specialRequirements };
    const result = validate(registrationSchema(o.event), posted);
    if (!result.ok) return show(req, res, o, { status: 400, form: { values: posted, errors: result.errors } });
    try {
      const outcome = await changeIndividual(deps, o.event, { reference: o.r.reference, shownVersion: versionOf(body), phase: p.phase, data: result.data });
      flashToast(req, { title: outcome.status === "changed" ? MANAGE_TEXT.changed : MANAGE_TEXT.nothingChanged });
      res.redirect(303, o.base);
    } catch (err) {
      if (!(err instanceof DomainError) || err.kind === "unavailable") throw err;
      const fresh = (await open(req, res))!;
      await show(req, res, fresh, { status: domainErrorStatus(err), message: err.message });
    }
  });

  async function showCancel(req: Request, res: Response, o: Opened, extra: { message?: string; status?: number } = {}) {
    const p = await allowed(o);
    if (!p.canCancel) return show(req, res, o, { status: extra.status ?? 409, message: extra.message ?? (p.reason || CANCEL_CLOSED) });
    const now = deps.clock();
    const whole = cancellationQuote(o.r, { whole: true }, p.startsAt, now);
    const active = activeAthletes(o.r);
    const one = cancellationQuote(o.r, { whole: false, athletePosition: 0 }, p.startsAt, now);
    const view: CancelView = {
      base: o.base,
      title: viewOf(o, p).title,
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

  router.get(`${MANAGE_PATH}/:token/cancel`, limit, async (req, res) => {
    const o = await openWhole(req, res);
    if (o) await showCancel(req, res, o);
  });

  router.post(`${MANAGE_PATH}/:token/cancel`, limit, async (req, res) => {
    const o = await openWhole(req, res);
    if (!o) return;
    const body = (req.body ?? {}) as Record<string, unknown>;
    const position = typeof body.athlete === "string" && /^\d{1,3}$/.test(body.athlete) ? Number(body.athlete) : -1;
    if (body.scope === "athlete" && position < 1) return showCancel(req, res, o, { status: 400, message: "Please choose the athlete to cancel." });
    const scope: CancelScope = body.scope === "athlete" ? { whole: false, athletePosition: position } : { whole: true };
    try {
      const done = await cancelRegistration(deps, o.event, { reference: o.r.reference, shownVersion: versionOf(body), scope });
      flashToast(req, { title: scope.whole ? "Registration canceled" : "Athlete canceled", description: CANCELED_TEXT(done.refundCents) });
      res.redirect(303, o.base);
    } catch (err) {
      if (!(err instanceof DomainError) || err.kind === "unavailable") throw err;
      const fresh = (await open(req, res))!;
      await show(req, res, fresh, { status: domainErrorStatus(err), message: err.message });
    }
  });

  router.post(`${MANAGE_PATH}/:token/package`, limit, async (req, res) => {
    const o = await openWhole(req, res);
    if (!o) return;
    const body = (req.body ?? {}) as Record<string, unknown>;
    const p = await allowed(o);
    if (p.phase !== "open" || o.r.kind !== "individual") return show(req, res, o, { status: 409, message: p.reason || DOWNGRADE_TEXT.notCheaper });
    // The new package and its days, checked by registration's own schema against the stored details.
    const current = formValuesOf(individualOf(o.r), o.event);
    const days = Object.fromEntries(o.event.days.map((_, i) => [`day${i + 1}`, body[`day${i + 1}`]]));
    const posted = { ...current, ...days, registrationType: typeof body.registrationType === "string" ? body.registrationType : "", agrees: "on" };
    const offered = downgradeOptions(o.event, o.r).some((d) => d.code === posted.registrationType);
    const result = validate(registrationSchema(o.event), posted);
    if (!offered || !result.ok) {
      const errors = { ...(result.ok ? {} : result.errors), ...(offered ? {} : { registrationType: DOWNGRADE_TEXT.notCheaper }) };
      return show(req, res, o, { status: 400, packageForm: { values: { ...days, registrationType: posted.registrationType }, errors } });
    }
    try {
      const done = await downgradeIndividual(deps, o.event, { reference: o.r.reference, shownVersion: versionOf(body), data: result.data });
      flashToast(req, { title: DOWNGRADE_TEXT.done(done.refundCents) });
      res.redirect(303, o.base);
    } catch (err) {
      if (!(err instanceof DomainError) || err.kind === "unavailable") throw err;
      const fresh = (await open(req, res))!;
      await show(req, res, fresh, { status: domainErrorStatus(err), message: err.message });
    }
  });

  router.post("/events/:id/lost-confirmation", resendLimit, async (req, res) => {
    const event = await loadEvent(deps, req.params.id);
    if (!event) return void res.status(404).send();
    const result = validate(resendSchema, req.body ?? {});
    if (!result.ok) {
      flashToast(req, { title: REGISTRATION_MESSAGES.email, variant: "destructive" });
      return res.redirect(303, `/events/${event.id}#lost-confirmation`);
    }
    flashToast(req, { title: RESEND_TEXT.title, description: RESEND_TEXT.sent });
    res.redirect(303, `/events/${event.id}#lost-confirmation`);
    // After the answer, so that neither its words nor its time say whether the address registered. The log line
    // says how many links went out, never the address.
    const log = req.log;
    resendManageLinks(deps, event.id, result.data.email).then(
      (sent) => log.info({ eventId: event.id, sent }, "manage links re-sent"),
      (err: Error) => log.error({ err: err.message, eventId: event.id }, "could not re-send manage links"),
    );
  });

  function viewOf(o: Opened, p: Permissions): ManageView {
    const { r, event } = o;
    const pkg = findPackage(event, r.packageCode);
    const zone = event.timeZone;
    const paid = r.amountPaidCents ?? 0;
    return {
      base: o.base,
      reference: r.reference,
      kind: r.kind,
      title: r.kind === "team" ? (r.teamName ?? `${r.contact.firstName} ${r.contact.lastName}'s team`) : `${r.athletes[0]!.firstName} ${r.athletes[0]!.lastName}`,
      statusLabel: STATUS_LABEL[r.status] ?? r.status,
      eventTitle: event.title,
      eventId: event.id,
      dateText: event.dateText,
      hours: eventHoursText(event),
      location: event.location,
      packageLabel: r.kind === "team" ? `${r.packageLabel} (${r.places} athletes)` : r.packageLabel,
      days: event.days.map((d) => ({ id: d.id, label: d.label, attended: r.dayIds.includes(d.id) })),
      everyDay: r.kind === "team" || !pkg || coversEveryDay(pkg, event),
      dayCount: pkg?.dayCount ?? event.days.length,
      familyLinks: r.kind === "team" && r.status === "paid" && p.phase !== "closed",
      athletes: r.athletes.map((a) => ({
        position: a.position,
        active: a.withdrawnAt === null,
        waiverText: a.waiver ? `Waiver signed (version ${a.waiver.version}) by ${a.waiver.signedName}, ${a.waiver.relationship}` : "Waiver not signed yet",
        missing: missingFor(a),
        name: `${a.firstName} ${a.lastName}${a.withdrawnAt ? " (canceled)" : ""}`,
        detail: [a.grade ? `Grade ${a.grade}` : a.age !== null ? `Age ${a.age}` : "", a.schoolName ?? ""].filter(Boolean).join(", "),
        shirtSize: a.shirtSize ?? "",
        emergency: `${a.emergencyContactName}, ${a.emergencyContactPhone}`,
        medical: a.specialRequirements ?? "",
      })),
      amountPaidCents: paid,
      amountRefundedCents: r.amountRefundedCents,
      canceledText: r.withdrawnAt
        ? `Canceled on ${formatEventDateTime(r.withdrawnAt, zone)}. ${r.withdrawalRefundCents ? `The policy gave back ${formatPrice(r.withdrawalRefundCents)}; it shows under Refunded once Stripe confirms it.` : "The policy gave no refund."}`
        : null,
      phase: p.phase,
      changesUntil: formatEventDateTime(p.freezeAt, zone),
      reason: p.reason,
      canCancel: p.canCancel,
      refundNowCents: cancellationQuote(r, { whole: true }, p.startsAt, deps.clock()).cents,
      refundNowPercent: p.refundPercent,
      tierDeadlines: tierDeadlines(p.startsAt).map((t) => ({ percent: t.percent, until: formatEventDateTime(t.until, zone) })),
      version: r.version,
      downgrades: p.phase === "open"
        ? downgradeOptions(event, r).map((d) => {
            const option = findPackage(event, d.code)!;
            return { ...d, dayCount: option.dayCount, everyDay: coversEveryDay(option, event) };
          })
        : [],
    };
  }

  return router;
}
