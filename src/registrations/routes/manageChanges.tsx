import { Router, type Request, type Response } from "express";
import { renderPage } from "../../http/render.tsx";
import { flashToast } from "../../http/pageContext.ts";
import { validate, type FormState } from "../../shared/forms.ts";
import { visitorKeys } from "../../http/visitor.ts";
import { DomainError } from "../../errors.ts";
import { domainErrorStatus } from "../../http/errors.ts";
import { findEvent } from "../../events/repository.ts";
import { formatEventDateTime } from "../../shared/events/rules.ts";
import type { EventDetail } from "../../shared/events/types.ts";
import { formatPrice } from "../../shared/money.ts";
import { PaymentNotOpenError } from "../../payments/core.ts";
import { stripeScripts } from "../../payments/setup.ts";
import { ManageLinkNotFound } from "../../../views/pages/registration/ManagePage.tsx";
import { AddAthletesPage, ChangePayPage, ChangeRefusedPage, UpgradePage, type ChangePayView, type PendingChange } from "../../../views/pages/registration/ChangePages.tsx";
import { coversEveryDay, findPackage, formValuesOf, registrationSchema } from "../../shared/registrations/rules.ts";
import * as repo from "../repository.ts";
import type { Registration, RegistrationChange } from "../repository.ts";
import { PAYMENT_SETUP_ERROR } from "../payment.ts";
import { MANAGE_PATH, registrationByToken } from "../manage/links.ts";
import { individualOf } from "../manage/change.ts";
import { permissions, type Permissions } from "../manage/rules.ts";
import { CHANGE_TEXT } from "../../shared/registrations/changeTexts.ts";
import { upgradeOptions, startUpgrade } from "../manage/upgrade.ts";
import { postedRows, startAddAthletes, validateNewAthletes } from "../manage/addAthletes.ts";
import { cancelChange, CHANGE_KIND, prepareChangePayment } from "../manage/paidChanges.ts";
import { placesOpen } from "../waitlist/offers.ts";
import type { RegistrationRouteDeps } from "./shared.tsx";

/** New athletes one form takes at once (a larger group: post the form again after paying). */
const MAX_NEW_ROWS = 10;

const versionOf = (body: Record<string, unknown>) => (typeof body.version === "string" && /^\d{1,9}$/.test(body.version) ? Number(body.version) : -1);

/**
 * A paid registration's changes that cost money, under its manage link (README: Managing a registration after
 * payment): an individual's move to a dearer package (`.../upgrade`), a coach's new athletes (`.../athletes`), and
 * the change's own page (`.../changes/{id}`) with its card payment, its return call and its cancellation. Forms that
 * post and answer 303 (no JavaScript needed to make the change; the card needs it, as on /stripe-checkout).
 */
export function manageChangeRoutes(deps: RegistrationRouteDeps): Router {
  const router = Router();
  const limit = deps.manageLimit;

  type Opened = { r: Registration; event: EventDetail; base: string };
  /** The registrant's or coach's own link; the one 404 page for any other token; a family's link is told why not. */
  async function open(req: Request, res: Response): Promise<Opened | undefined> {
    res.set({ "cache-control": "private, no-store", "referrer-policy": "same-origin" });
    const token = String(req.params.token ?? "");
    const found = await registrationByToken(deps.db, token);
    const event = found ? await findEvent(deps.db, found.registration.eventId) : undefined;
    const base = `${MANAGE_PATH}/${token}`;
    if (!found || !event) {
      renderPage(req, res, <ManageLinkNotFound />, { title: "Link Not Found", description: "This registration link does not work.", status: 404, noindex: true });
      return undefined;
    }
    if (found.athletePosition !== null) {
      renderPage(req, res, <ChangeRefusedPage base={base} message="This link is for one athlete; only the coach's link can do that." />, { title: "Not Available", description: "Not available with this link.", status: 403, noindex: true });
      return undefined;
    }
    return { r: found.registration, event, base };
  }

  async function allowed(o: Opened): Promise<Permissions> {
    return permissions(o.r.status, o.event, await repo.eventChangesFreezeAt(deps.db, o.event.id), deps.clock());
  }

  /** The change waiting for its payment, if any: the pages that would start another one link to it. */
  async function pendingOf(o: Opened): Promise<PendingChange | null> {
    const c = (await repo.changesOf(deps.db, o.r.id, ["pending", "needs_review"]))[0];
    if (!c) return null;
    return { href: `${o.base}/changes/${c.id}`, text: `A change (${formatPrice(c.amountCents)}) is waiting for its payment.` };
  }

  // ---- a dearer package ----

  async function showUpgrade(req: Request, res: Response, o: Opened, extra: { form?: FormState; message?: string; status?: number } = {}) {
    const p = await allowed(o);
    const withCode = !!(await repo.redemptionOf(deps.db, o.r.id));
    const open = o.r.kind === "individual" && p.phase === "open" && !withCode;
    const options = open
      ? upgradeOptions(o.event, o.r).map((u) => {
          const pkg = findPackage(o.event, u.code)!;
          return { ...u, dayCount: pkg.dayCount, everyDay: coversEveryDay(pkg, o.event) };
        })
      : [];
    const reason =
      o.r.kind !== "individual" ? "A team's package does not change: add athletes to it instead." : p.phase !== "open" ? p.reason || "This registration can no longer change." : withCode ? CHANGE_TEXT.withCode : options.length === 0 ? "You already have the biggest package." : "";
    const current = Object.fromEntries(o.event.days.map((d, i) => [`day${i + 1}`, o.r.dayIds.includes(d.id) ? "on" : ""]));
    const a = o.r.athletes[0]!;
    const view = {
      base: o.base,
      title: `${a.firstName} ${a.lastName}`,
      eventTitle: o.event.title,
      packageLabel: o.r.packageLabel,
      paidListCents: o.r.listPriceCents,
      changesUntil: formatEventDateTime(p.freezeAt, o.event.timeZone),
      version: o.r.version,
      days: o.event.days.map((d) => ({ id: d.id, label: d.label })),
      options,
      reason,
      pending: await pendingOf(o),
    };
    renderPage(req, res, <UpgradePage view={view} form={extra.form ?? { values: current, errors: {} }} message={extra.message} />, {
      title: "Change Package",
      description: "Move your camp registration to a bigger package.",
      status: extra.status,
      noindex: true,
    });
  }

  router.get(`${MANAGE_PATH}/:token/upgrade`, limit, async (req, res) => {
    const o = await open(req, res);
    if (o) await showUpgrade(req, res, o);
  });

  router.post(`${MANAGE_PATH}/:token/upgrade`, limit, deps.paymentLimit, async (req, res) => {
    const o = await open(req, res);
    if (!o) return;
    const body = (req.body ?? {}) as Record<string, unknown>;
    const p = await allowed(o);
    if (p.phase !== "open" || o.r.kind !== "individual") return showUpgrade(req, res, o, { status: 409, message: p.reason || "A team's package does not change." });
    // The new package and its days, checked by registration's own schema against the stored details.
    const current = formValuesOf(individualOf(o.r), o.event);
    const days = Object.fromEntries(o.event.days.map((_, i) => [`day${i + 1}`, body[`day${i + 1}`]]));
    const posted = { ...current, ...days, registrationType: typeof body.registrationType === "string" ? body.registrationType : "", agrees: "on" };
    const offered = upgradeOptions(o.event, o.r).some((u) => u.code === posted.registrationType);
    const result = validate(registrationSchema(o.event), posted);
    if (!offered || !result.ok) {
      const errors = { ...(result.ok ? {} : result.errors), ...(offered ? {} : { registrationType: CHANGE_TEXT.notDearer }) };
      return showUpgrade(req, res, o, { status: 400, form: { values: { ...days, registrationType: posted.registrationType }, errors } });
    }
    try {
      const id = await startUpgrade(deps, o.event, { reference: o.r.reference, shownVersion: versionOf(body), data: result.data, holder: visitorKeys(req, res) });
      res.redirect(303, `${o.base}/changes/${id}`);
    } catch (err) {
      if (!(err instanceof DomainError) || err.kind === "unavailable") throw err;
      const fresh = (await open(req, res))!;
      await showUpgrade(req, res, fresh, { status: domainErrorStatus(err), message: err.message });
    }
  });

  // ---- athletes added to a paid team ----

  async function showAthletes(req: Request, res: Response, o: Opened, extra: { form?: FormState; rows?: number; message?: string; status?: number } = {}) {
    const p = await allowed(o);
    const active = o.r.athletes.filter((a) => a.withdrawnAt === null).length;
    const room = Math.max(0, deps.limits.maxTeamAthletes - active);
    const reason = o.r.kind !== "team" ? "Only a team's coach adds athletes." : p.phase !== "open" ? p.reason || "This registration can no longer change." : room === 0 ? CHANGE_TEXT.teamFull(deps.limits.maxTeamAthletes) : "";
    const maxRows = Math.min(MAX_NEW_ROWS, room);
    const asked = extra.rows ?? Number(typeof req.query.rows === "string" && /^\d{1,2}$/.test(req.query.rows) ? req.query.rows : 1);
    const view = {
      base: o.base,
      title: o.r.teamName ?? `${o.r.contact.firstName} ${o.r.contact.lastName}'s team`,
      eventTitle: o.event.title,
      pricePerAthleteCents: await repo.teamPriceCents(deps.db, o.event.id),
      placesLeft: await placesOpen(deps.db, o.event.id, deps.clock()),
      changesUntil: formatEventDateTime(p.freezeAt, o.event.timeZone),
      rows: Math.max(1, Math.min(maxRows, asked)),
      maxRows,
      reason,
      pending: await pendingOf(o),
    };
    renderPage(req, res, <AddAthletesPage view={view} form={extra.form ?? { values: {}, errors: {} }} message={extra.message} />, {
      title: "Add Athletes",
      description: "Add athletes to your team's camp registration.",
      status: extra.status,
      noindex: true,
    });
  }

  router.get(`${MANAGE_PATH}/:token/athletes`, limit, async (req, res) => {
    const o = await open(req, res);
    if (o) await showAthletes(req, res, o);
  });

  router.post(`${MANAGE_PATH}/:token/athletes`, limit, deps.paymentLimit, async (req, res) => {
    const o = await open(req, res);
    if (!o) return;
    const body = (req.body ?? {}) as Record<string, unknown>;
    const rows = postedRows(body, MAX_NEW_ROWS);
    const values = { athletes: rows };
    // Without JavaScript, 'Add another athlete' posts the form: the same rows come back with one more.
    if (body.addRow !== undefined) return showAthletes(req, res, o, { form: { values, errors: {} }, rows: rows.length + 1 });
    const p = await allowed(o);
    if (p.phase !== "open" || o.r.kind !== "team") return showAthletes(req, res, o, { status: 409, rows: rows.length, form: { values, errors: {} }, message: p.reason || "Only a team's coach adds athletes." });
    const checked = validateNewAthletes(o.event, o.r, rows);
    if (!checked.ok) return showAthletes(req, res, o, { status: 400, rows: rows.length, form: { values, errors: checked.errors } });
    try {
      const id = await startAddAthletes(deps, o.event, { reference: o.r.reference, athletes: checked.athletes, holder: visitorKeys(req, res) });
      res.redirect(303, `${o.base}/changes/${id}`);
    } catch (err) {
      if (!(err instanceof DomainError) || err.kind === "unavailable") throw err;
      const fresh = (await open(req, res))!;
      await showAthletes(req, res, fresh, { status: domainErrorStatus(err), rows: rows.length, form: { values, errors: {} }, message: err.message });
    }
  });

  // ---- the change's own page: its card payment, the return call, its cancellation ----

  /** The change a URL names, only under its own registration's link. */
  async function changeOf(req: Request, o: Opened): Promise<RegistrationChange | undefined> {
    const raw = String(req.params.id ?? "");
    const c = /^\d{1,12}$/.test(raw) ? await repo.findChange(deps.db, Number(raw)) : undefined;
    return c && c.registrationId === o.r.id ? c : undefined;
  }

  function notFound(req: Request, res: Response) {
    renderPage(req, res, <ManageLinkNotFound />, { title: "Link Not Found", description: "This registration link does not work.", status: 404, noindex: true });
  }

  function linesOf(o: Opened, c: RegistrationChange): string[] {
    if (c.data.kind === "upgrade") {
      const days = o.event.days.filter((d) => c.data.kind === "upgrade" && c.data.dayIds.includes(d.id)).map((d) => d.label);
      return [
        `Package: ${findPackage(o.event, c.data.fromPackageCode)?.label ?? c.data.fromPackageCode} to ${c.data.packageLabel}`,
        `Days: ${days.join("; ")}`,
        `${c.data.packageLabel} is ${formatPrice(c.data.priceCents)}; you paid ${formatPrice(c.data.fromListPriceCents)} for the package you had.`,
      ];
    }
    return [
      ...c.data.athletes.map((a) => `${a.firstName} ${a.lastName} (age ${a.age}, shirt ${a.shirtSize})`),
      `${c.places} × ${formatPrice(c.data.pricePerAthleteCents)} (the team price)`,
    ];
  }

  async function showChange(req: Request, res: Response, o: Opened, c: RegistrationChange, extra: { message?: string; status?: number } = {}) {
    const now = deps.clock();
    let status: ChangePayView["status"] = c.status === "pending" && c.reservedUntil.getTime() <= now.getTime() ? "expired" : c.status;
    let card: ChangePayView["card"] = null;
    let setupError: string | null = null;
    if (status === "pending") {
      try {
        const clientSecret = await prepareChangePayment(deps, o.event, o.r, c);
        if (clientSecret) {
          card = {
            publishableKey: deps.paymentCore.gateway.publishableKey,
            clientSecret,
            amountCents: c.amountCents,
            reference: o.r.reference,
            returnUrl: `${o.base}/changes/${c.id}/paid`,
            doneUrl: `${o.base}/changes/${c.id}`,
            billing: { name: `${o.r.contact.firstName} ${o.r.contact.lastName}`, email: o.r.contact.email, phone: o.r.contact.phone },
          };
        }
      } catch (err) {
        if (err instanceof PaymentNotOpenError) {
          // Paid meanwhile (another tab) or being settled: the change as it now stands.
          const now2 = (await repo.findChange(deps.db, c.id))!;
          status = now2.status === "pending" ? "processing" : now2.status;
        } else {
          req.log.error({ err: (err as Error).message, reference: o.r.reference, changeId: c.id }, "could not set up a registration change's PaymentIntent");
          setupError = PAYMENT_SETUP_ERROR.message;
        }
      }
    }
    const a = o.r.athletes[0]!;
    const view: ChangePayView = {
      base: o.base,
      changeHref: `${o.base}/changes/${c.id}`,
      kind: c.kind,
      title: o.r.kind === "team" ? (o.r.teamName ?? `${o.r.contact.firstName} ${o.r.contact.lastName}'s team`) : `${a.firstName} ${a.lastName}`,
      eventTitle: o.event.title,
      reference: o.r.reference,
      lines: linesOf(o, c),
      amountCents: c.amountCents,
      status,
      until: formatEventDateTime(c.reservedUntil, o.event.timeZone),
      card,
      setupError,
    };
    renderPage(req, res, <ChangePayPage view={view} message={extra.message} />, {
      title: CHANGE_TEXT.payTitle(c.kind),
      description: "Pay for the change to your camp registration.",
      status: extra.status ?? (setupError ? 502 : undefined),
      noindex: true,
      scripts: card ? stripeScripts(deps.paymentCore.gateway) : undefined,
    });
  }

  router.get(`${MANAGE_PATH}/:token/changes/:id`, limit, async (req, res) => {
    const o = await open(req, res);
    if (!o) return;
    const c = await changeOf(req, o);
    if (!c) return notFound(req, res);
    await showChange(req, res, o, c);
  });

  // The card widget's return: settled through the payment core, for this change's own PaymentIntent only.
  router.post(`${MANAGE_PATH}/:token/changes/:id/paid`, limit, async (req, res) => {
    res.set({ "cache-control": "private, no-store" });
    const found = await registrationByToken(deps.db, String(req.params.token ?? ""));
    const raw = String(req.params.id ?? "");
    const c = found && found.athletePosition === null && /^\d{1,12}$/.test(raw) ? await repo.findChange(deps.db, Number(raw)) : undefined;
    if (!found || !c || c.registrationId !== found.registration.id) return void res.status(404).json({ success: false, error: "Not found" });
    const body = (req.body ?? {}) as Record<string, unknown>;
    const intentId = typeof body.paymentIntentId === "string" ? body.paymentIntentId.slice(0, 200) : "";
    const payment = await deps.paymentCore.latestFor(CHANGE_KIND, String(c.id));
    if (!payment || !intentId || payment.providerPaymentId !== intentId) return void res.status(403).json({ success: false, error: CHANGE_TEXT.notYours });
    try {
      const result = await deps.paymentCore.settle(intentId, "return");
      const answer: Record<typeof result.status, [number, string]> = { paid: [200, "paid"], refunded: [409, "refunded"], failed: [402, "failed"], mismatch: [409, "needs_review"], pending: [202, "pending"] };
      const [code, status] = answer[result.status];
      res.status(code).json({ success: status === "paid", status });
    } catch (err) {
      req.log.error({ err: (err as Error).message, changeId: c.id }, "could not confirm a registration change's payment");
      res.status(502).json({ success: false, error: PAYMENT_SETUP_ERROR.message });
    }
  });

  router.post(`${MANAGE_PATH}/:token/changes/:id/cancel`, limit, async (req, res) => {
    const o = await open(req, res);
    if (!o) return;
    const c = await changeOf(req, o);
    if (!c) return notFound(req, res);
    try {
      const outcome = await cancelChange(deps, o.r.id, c.id);
      flashToast(req, { title: outcome === "paid" ? CHANGE_TEXT.cancelTooLate : CHANGE_TEXT.cancelDone });
      req.log.info({ reference: o.r.reference, changeId: c.id, outcome }, "registration change cancelled by its registrant");
      res.redirect(303, outcome === "paid" ? `${o.base}/changes/${c.id}` : o.base);
    } catch (err) {
      if (!(err instanceof DomainError) || err.kind === "unavailable") throw err;
      await showChange(req, res, o, (await repo.findChange(deps.db, c.id))!, { status: domainErrorStatus(err), message: err.message });
    }
  });

  return router;
}
