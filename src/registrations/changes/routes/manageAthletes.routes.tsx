import { Router } from "express";
import type { Validation } from "../../../shared/forms.ts";
import { formBody, formPost } from "../../../http/forms.ts";
import { domainErrorStatus } from "../../../http/errors.ts";
import { limitsInOneTrip } from "../../../http/rateLimit.ts";
import { visitorKeys } from "../../../http/visitor.ts";
import type { AthleteRow, TeamAthlete } from "../../../shared/registrations/teamRules.ts";
import { MANAGE_PATH } from "../links.ts";
import { CHANGE_TEXT } from "../../../shared/registrations/changeTexts.ts";
import { startAddAthletes } from "../addAthletes.ts";
import { postedRows, validateNewAthletes } from "../addAthletesForm.ts";
import type { RegistrationRouteDeps } from "../../core/routeKit.tsx";
import { allowed } from "./manageLink.tsx";
import { openWhole } from "./managePage.tsx";
import { addAthletesPage, MAX_NEW_ROWS } from "./manageAthletesPage.tsx";
import type { Opened } from "../links.ts";

/** The opened coach's link and the rows the form posted. */
type Adding = { o: Opened; rows: AthleteRow[] };

/**
 * A coach's new athletes on a paid team (`/my-registration/{token}/athletes`, README: Managing a registration after
 * payment): the form posts and answers 303 to the change's own page (routes/changePayment.tsx), where it is paid.
 */
export function manageAthleteRoutes(deps: RegistrationRouteDeps): Router {
  const router = Router();
  const limit = deps.manageLimit;

  const showAthletes = addAthletesPage(deps);

  router.get(`${MANAGE_PATH}/:token/athletes`, limit, async (req, res) => {
    const o = await openWhole(deps, req, res);
    if (o) await showAthletes(req, res, o);
  });

  const athletesForm = formPost({
    input: (_req, { rows }: Adding) => ({ athletes: rows }),
    check: (_values, { o, rows }): Validation<TeamAthlete[]> => {
      const checked = validateNewAthletes(o.event, o.r, rows);
      return checked.ok ? { ok: true, data: checked.athletes } : { ok: false, errors: checked.errors, message: Object.values(checked.errors)[0] ?? CHANGE_TEXT.noAthletes };
    },
    page: (req, res, { o, rows }, form, status) => showAthletes(req, res, o, { status, rows: rows.length, form }),
    run: async (req, res, athletes, { o }) => {
      const id = await startAddAthletes(deps, o.event, { reference: o.r.reference, athletes, holder: visitorKeys(req, res) });
      return { redirect: `${o.base}/changes/${id}` };
    },
    // Refused (no places left, a change already waiting): the page again as the registration now stands, the rows kept.
    refused: async (req, res, err, { rows }) => {
      const fresh = (await openWhole(deps, req, res))!;
      await showAthletes(req, res, fresh, { status: domainErrorStatus(err), rows: rows.length, form: { values: { athletes: rows }, errors: {} }, message: err.message });
    },
  });
  router.post(`${MANAGE_PATH}/:token/athletes`, limitsInOneTrip(limit, deps.paymentLimit), async (req, res) => {
    const o = await openWhole(deps, req, res);
    if (!o) return;
    const body = formBody(req);
    const rows = postedRows(body, MAX_NEW_ROWS);
    const form = { values: { athletes: rows }, errors: {} };
    // Without JavaScript, 'Add another athlete' posts the form: the same rows come back with one more.
    if (body.addRow !== undefined) return showAthletes(req, res, o, { form, rows: rows.length + 1 });
    const p = await allowed(deps, o);
    if (p.phase !== "open" || o.r.kind !== "team") return showAthletes(req, res, o, { status: 409, rows: rows.length, form, message: p.reason || "Only a team's coach adds athletes." });
    await athletesForm(req, res, { o, rows });
  });

  return router;
}
