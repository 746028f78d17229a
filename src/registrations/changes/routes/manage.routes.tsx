import { Router, type Request, type Response } from "express";
import { validate, type Validation } from "../../../shared/forms.ts";
import { formBody, formPost } from "../../../http/forms.ts";
import { formValuesOf, registrationSchema } from "../../../shared/registrations/rules.ts";
import { registrationCalendar } from "../../core/email.ts";
import { MANAGE_PATH } from "../links.ts";
import { changeIndividual, individualOf } from "../change.ts";
import { MANAGE_TEXT } from "../../../shared/registrations/changeTexts.ts";
import { cancelRegistration, type CancelScope } from "../cancel.ts";
import { DOWNGRADE_TEXT, downgradeIndividual, downgradeOptions } from "../downgrade.ts";
import { formatPrice } from "../../../shared/money.ts";
import type { RegistrationRouteDeps } from "../../core/routeKit.tsx";
import { familyDetailsPost } from "./family.routes.tsx";
import { allowed, openLink, versionOf, type Changing } from "./manageLink.tsx";
import { openWhole, showManage, showRefused, showLinkPage } from "./managePage.tsx";
import { showCancel } from "./cancelPage.tsx";
import type { Opened } from "../links.ts";
import { changeFamilyDays, FAMILY_DAYS_TEXT } from "../familyDays.ts";
import { isFamily } from "../../core/family.ts";
import { isChecked } from "../../../shared/registrations/rules.ts";

const CHOOSE_ATHLETE = "Please choose the athlete to cancel.";
const CANCELED_TEXT = (refundCents: number) =>
  refundCents > 0 ? `A refund of ${formatPrice(refundCents)} is on its way to your card; we've e-mailed you a receipt.` : "We've e-mailed you a receipt.";

/** The athlete a post names by position (1 and up), or -1. */
const athletePosition = (sent: Record<string, unknown>) => (typeof sent.athlete === "string" && /^\d{1,3}$/.test(sent.athlete) ? Number(sent.athlete) : -1);

/**
 * The registrant's or coach's manage page (`/my-registration/{token}`): the registration as it stands, and the
 * changes until the freeze date: the details, a cheaper package, canceling. A family's link posts its details here too.
 */
export function manageRoutes(deps: RegistrationRouteDeps): Router {
  const router = Router();
  const limit = deps.manageLimit;
  const refused = (req: Request, res: Response, err: Parameters<typeof showRefused>[3]) => showRefused(deps, req, res, err);

  router.get(`${MANAGE_PATH}/:token`, limit, async (req, res) => {
    const o = await openLink(deps, req, res);
    if (o) await showLinkPage(deps, req, res, o);
  });

  router.get(`${MANAGE_PATH}/:token/calendar.ics`, limit, async (req, res) => {
    const o = await openLink(deps, req, res);
    if (!o) return;
    res.type("text/calendar; charset=utf-8").attachment(`${o.r.reference}.ics`).send(registrationCalendar(deps.site, o.event, o.r));
  });

  // The same schema and messages as registration: the stored registration, with what this phase lets change taken from the form.
  const detailsForm = formPost({
    input: (req, { o, p }: Changing) => {
      const body = formBody(req);
      const current = formValuesOf(individualOf(o.r), o.event);
      // A family's days change athlete by athlete (athlete-days): its details form keeps the days as they are.
      const days = isFamily(o.r) ? Object.fromEntries(o.event.days.map((_, i) => [`day${i + 1}`, current[`day${i + 1}`] ?? ""])) : {};
      return p.phase === "open" ? { ...body, ...days, formSessionId: current.formSessionId, registrationType: current.registrationType, agrees: "on" } : { ...current, specialRequirements: body.specialRequirements };
    },
    check: (posted, { o }) => validate(registrationSchema(o.event), posted),
    page: (req, res, { o }, form, status) => showManage(deps, req, res, o, { status, form }),
    run: async (req, _res, data, { o, p }) => {
      const outcome = await changeIndividual(deps, o.event, { reference: o.r.reference, shownVersion: versionOf(formBody(req)), phase: p.phase, data });
      return { redirect: o.base, toast: { title: outcome.status === "changed" ? MANAGE_TEXT.changed : MANAGE_TEXT.nothingChanged } };
    },
    refused,
  });
  const familyDetails = familyDetailsPost(deps);
  router.post(`${MANAGE_PATH}/:token/details`, limit, async (req, res) => {
    const o = await openLink(deps, req, res);
    if (!o) return;
    if (o.athletePosition !== null) return familyDetails(req, res, o);
    if (o.r.kind !== "individual") return showManage(deps, req, res, o, { status: 409, message: "Each athlete's details change through the link their family gets." });
    const p = await allowed(deps, o);
    if (p.phase === "closed") return showManage(deps, req, res, o, { status: 409, message: p.reason });
    await detailsForm(req, res, { o, p });
  });

  router.get(`${MANAGE_PATH}/:token/cancel`, limit, async (req, res) => {
    const o = await openWhole(deps, req, res);
    if (o) await showCancel(deps, req, res, o);
  });

  const cancelForm = formPost({
    check: (sent, _o: Opened): Validation<CancelScope> => {
      const position = athletePosition(sent);
      if (sent.scope === "athlete" && position < 1) return { ok: false, errors: { _form: CHOOSE_ATHLETE }, message: CHOOSE_ATHLETE };
      return { ok: true, data: sent.scope === "athlete" ? { whole: false, athletePosition: position } : { whole: true } };
    },
    page: (req, res, o, state, status) => showCancel(deps, req, res, o, { status, message: state.errors._form }),
    run: async (req, _res, scope, o) => {
      const done = await cancelRegistration(deps, o.event, { reference: o.r.reference, shownVersion: versionOf(formBody(req)), scope });
      return { redirect: o.base, toast: { title: scope.whole ? "Registration canceled" : "Athlete canceled", description: CANCELED_TEXT(done.refundCents) } };
    },
    refused,
  });
  router.post(`${MANAGE_PATH}/:token/cancel`, limit, async (req, res) => {
    const o = await openWhole(deps, req, res);
    if (o) await cancelForm(req, res, o);
  });

  // The new package and its days, checked by registration's own schema against the stored details.
  const packageForm = formPost({
    input: (req, { o }: Changing) => {
      const body = formBody(req);
      const days = Object.fromEntries(o.event.days.map((_, i) => [`day${i + 1}`, body[`day${i + 1}`]]));
      return { ...days, registrationType: typeof body.registrationType === "string" ? body.registrationType : "" };
    },
    check: (sent, { o }) => {
      const offered = downgradeOptions(o.event, o.r).some((d) => d.code === sent.registrationType);
      const result = validate(registrationSchema(o.event), { ...formValuesOf(individualOf(o.r), o.event), ...sent, agrees: "on" });
      if (offered && result.ok) return result;
      const errors = { ...(result.ok ? {} : result.errors), ...(offered ? {} : { registrationType: DOWNGRADE_TEXT.notCheaper }) };
      return { ok: false, errors, message: Object.values(errors)[0] ?? DOWNGRADE_TEXT.notCheaper };
    },
    page: (req, res, { o }, state, status) => showManage(deps, req, res, o, { status, packageForm: state }),
    run: async (req, _res, data, { o }) => {
      const done = await downgradeIndividual(deps, o.event, { reference: o.r.reference, shownVersion: versionOf(formBody(req)), data });
      return { redirect: o.base, toast: { title: DOWNGRADE_TEXT.done(done.refundCents) } };
    },
    refused,
  });
  router.post(`${MANAGE_PATH}/:token/package`, limit, async (req, res) => {
    const o = await openWhole(deps, req, res);
    if (!o) return;
    const p = await allowed(deps, o);
    if (p.phase !== "open" || o.r.kind !== "individual") return showManage(deps, req, res, o, { status: 409, message: p.reason || DOWNGRADE_TEXT.notCheaper });
    await packageForm(req, res, { o, p });
  });

  // One athlete of a family attends other days of its own package; the use case checks the count against that package.
  const familyDaysForm = formPost({
    check: (sent, o: Opened): Validation<{ athletePosition: number; chosenDayIds: number[] }> => {
      const position = athletePosition(sent);
      if (position < 1) return { ok: false, errors: { _form: FAMILY_DAYS_TEXT.chooseAthlete }, message: FAMILY_DAYS_TEXT.chooseAthlete };
      return { ok: true, data: { athletePosition: position, chosenDayIds: o.event.days.filter((_, i) => isChecked(sent[`day${i + 1}`])).map((d) => d.id) } };
    },
    page: (req, res, o, state, status) => showManage(deps, req, res, o, { status, message: state.errors._form }),
    run: async (req, _res, data, o) => {
      const outcome = await changeFamilyDays(deps, o.event, { reference: o.r.reference, shownVersion: versionOf(formBody(req)), ...data });
      return { redirect: o.base, toast: { title: outcome.status === "changed" ? MANAGE_TEXT.changed : MANAGE_TEXT.nothingChanged } };
    },
    refused,
  });
  router.post(`${MANAGE_PATH}/:token/athlete-days`, limit, async (req, res) => {
    const o = await openWhole(deps, req, res);
    if (o) await familyDaysForm(req, res, o);
  });

  return router;
}
