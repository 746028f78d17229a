import { Router, type Request, type Response } from "express";
import { renderPage } from "../../../http/render.tsx";
import type { FormState, Validation } from "../../../shared/forms.ts";
import { formBody, formPost } from "../../../http/forms.ts";
import { domainErrorStatus } from "../../../http/errors.ts";
import { visitorKeys } from "../../../http/visitor.ts";
import { deadlineText } from "../../../shared/texts.ts";
import { AddAthletesPage, type AddAthletesView } from "../../../../views/pages/registration/ChangePages.tsx";
import { dueDayText } from "../../../shared/registrations/deposits.ts";
import type { AthleteRow, TeamAthlete } from "../../../shared/registrations/teamRules.ts";
import { teamPriceCents } from "../../core/tables/eventTerms.ts";
import { MANAGE_PATH } from "../links.ts";
import { CHANGE_TEXT } from "../../../shared/registrations/changeTexts.ts";
import { addedAthletesSplit, postedRows, startAddAthletes, validateNewAthletes } from "../addAthletes.ts";
import { placesOpen } from "../../waitlist/offers.ts";
import type { RegistrationRouteDeps } from "../../core/routeKit.tsx";
import { allowed, openWhole, pendingChangeOf } from "./manageLink.tsx";
import type { Opened } from "../links.ts";

/** New athletes one form takes at once (a larger group: post the form again after paying). */
const MAX_NEW_ROWS = 10;

/** The opened coach's link and the rows the form posted. */
type Adding = { o: Opened; rows: AthleteRow[] };

/**
 * A coach's new athletes on a paid team (`/my-registration/{token}/athletes`, README: Managing a registration after
 * payment): the form posts and answers 303 to the change's own page (routes/changePayment.tsx), where it is paid.
 */
export function manageAthleteRoutes(deps: RegistrationRouteDeps): Router {
  const router = Router();
  const limit = deps.manageLimit;

  async function showAthletes(req: Request, res: Response, o: Opened, extra: { form?: FormState; rows?: number; message?: string; status?: number } = {}) {
    const p = await allowed(deps, o);
    const active = o.r.athletes.filter((a) => a.withdrawnAt === null).length;
    const room = Math.max(0, deps.limits.maxTeamAthletes - active);
    const reason = o.r.kind !== "team" ? "Only a team's coach adds athletes." : p.phase !== "open" ? p.reason || "This registration can no longer change." : room === 0 ? CHANGE_TEXT.teamFull(deps.limits.maxTeamAthletes) : "";
    const maxRows = Math.min(MAX_NEW_ROWS, room);
    const price = await teamPriceCents(deps.db, o.event.id);
    const asked = extra.rows ?? Number(typeof req.query.rows === "string" && /^\d{1,2}$/.test(req.query.rows) ? req.query.rows : 1);
    const view = {
      base: o.base,
      title: o.r.teamName ?? `${o.r.contact.firstName} ${o.r.contact.lastName}'s team`,
      eventTitle: o.event.title,
      pricePerAthleteCents: price,
      depositSplit: await depositSplitOf(o, price),
      placesLeft: await placesOpen(deps.db, o.event.id, deps.clock()),
      changesUntil: deadlineText(p.freezeAt, o.event.timeZone),
      rows: Math.max(1, Math.min(maxRows, asked)),
      maxRows,
      reason,
      pending: await pendingChangeOf(deps, o),
    };
    renderPage(req, res, <AddAthletesPage view={view} form={extra.form ?? { values: {}, errors: {} }} message={extra.message} />, {
      title: "Add Athletes",
      description: "Add athletes to your team's camp registration.",
      status: extra.status,
      noindex: true,
    });
  }

  /** What one added athlete costs today and later on the team's deposit plan (addedAthletesSplit), null when paid in full. */
  async function depositSplitOf(o: Opened, priceCents: number): Promise<AddAthletesView["depositSplit"]> {
    if (!o.r.deposit || o.r.status !== "deposit_paid" || priceCents <= 0) return null;
    const eventRow = (await deps.db("events").where({ id: o.event.id }).first()) as Record<string, unknown> | undefined;
    if (!eventRow) return null;
    const split = addedAthletesSplit(o.r, eventRow, priceCents, 1, deps.clock());
    return split.balanceCents > 0 ? { todayCents: split.amountCents, balanceCents: split.balanceCents, dueText: dueDayText(o.r.deposit.balanceDueAt, o.event.timeZone) } : null;
  }

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
  router.post(`${MANAGE_PATH}/:token/athletes`, limit, deps.paymentLimit, async (req, res) => {
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
