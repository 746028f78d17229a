import type { Request, Response } from "express";
import { renderPage } from "../../../http/render.tsx";
import { CancelPage, type CancelView } from "../../../../views/pages/registration/ManagePage.tsx";
import type { RegistrationDeps } from "../../core/deps.ts";
import type { Opened } from "../links.ts";
import { manageView } from "./manageView.ts";
import { activeAthletes, cancellationQuote } from "../cancel.ts";
import { TEAM_MINIMUM } from "../../../shared/registrations/teamRules.ts";
import { allowed } from "./manageLink.tsx";
import { showManage } from "./managePage.tsx";
import { isFamily } from "../../core/family.ts";
import { formatPrice } from "../../../shared/money.ts";

const CANCEL_CLOSED = "This registration can no longer be canceled.";

/** The cancel page of the registrant's or coach's link: what canceling now gives back, the whole or one athlete. */
export async function showCancel(deps: RegistrationDeps, req: Request, res: Response, o: Opened, extra: { message?: string; status?: number } = {}) {
  const p = await allowed(deps, o);
  if (!p.canCancel) return showManage(deps, req, res, o, { status: extra.status ?? 409, message: extra.message ?? (p.reason || CANCEL_CLOSED) });
  const now = deps.clock();
  const whole = cancellationQuote(o.r, { whole: true }, p.startsAt, now);
  const active = activeAthletes(o.r);
  const one = cancellationQuote(o.r, { whole: false, athletePosition: 0 }, p.startsAt, now);
  // Siblings: each athlete's refund is its own share (cancel.ts), named beside it; the last one goes with the whole.
  const family = isFamily(o.r);
  const familyAthletes = active.length > 1 ? active.map((a) => ({ position: a.position, name: `${a.firstName} ${a.lastName}: ${formatPrice(cancellationQuote(o.r, { whole: false, athletePosition: a.position }, p.startsAt, now).cents)} back` })) : [];
  const view: CancelView = {
    base: o.base,
    title: manageView(deps, o, p).title,
    eventTitle: o.event.title,
    kind: o.r.kind,
    version: o.r.version,
    whole: { refundCents: whole.cents, percent: whole.percent, partCents: whole.partCents },
    athletes: family ? familyAthletes : active.length > TEAM_MINIMUM ? active.map((a) => ({ position: a.position, name: `${a.firstName} ${a.lastName}` })) : [],
    family,
    athlete: { refundCents: one.cents, partCents: one.partCents },
    teamMinimum: TEAM_MINIMUM,
  };
  renderPage(req, res, <CancelPage view={view} message={extra.message} />, { title: "Cancel Registration", description: "Cancel your camp registration.", status: extra.status, noindex: true });
}
