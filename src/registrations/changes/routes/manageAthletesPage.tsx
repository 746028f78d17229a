import type { Request, Response } from "express";
import { renderPage } from "../../../http/render.tsx";
import type { FormState } from "../../../shared/forms.ts";
import { deadlineText } from "../../../shared/texts.ts";
import { AddAthletesPage, type AddAthletesView } from "../../../../views/pages/registration/ChangePages.tsx";
import { dueDayText } from "../../../shared/registrations/deposits.ts";
import { teamPriceCents } from "../../core/tables/eventTerms.ts";
import { CHANGE_TEXT } from "../../../shared/registrations/changeTexts.ts";
import { addedAthletesSplit } from "../addedAthletesSplit.ts";
import { placesOpen } from "../../waitlist/forSale.ts";
import type { RegistrationRouteDeps } from "../../core/routeKit.tsx";
import { allowed, pendingChangeOf } from "./manageLink.tsx";
import type { Opened } from "../links.ts";

/** New athletes one form takes at once (a larger group: post the form again after paying). */
export const MAX_NEW_ROWS = 10;

/** The page that adds athletes to a paid team (manageAthletes.routes.tsx): the form, the price and the places left. */
export function addAthletesPage(deps: RegistrationRouteDeps) {
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

  return showAthletes;
}
