import type { Request, Response } from "express";
import { renderPage } from "../../../http/render.tsx";
import type { FormState } from "../../../shared/forms.ts";
import { domainErrorStatus } from "../../../http/errors.ts";
import type { DomainError } from "../../../errors.ts";
import { ManagePage } from "../../../../views/pages/registration/ManagePage.tsx";
import { formValuesOf } from "../../../shared/registrations/rules.ts";
import { redemptionOf } from "../../core/money/redemptions.ts";
import type { RegistrationDeps } from "../../core/deps.ts";
import type { Opened } from "../links.ts";
import { manageView } from "./manageView.ts";
import { individualOf } from "../change.ts";
import { withRefundState } from "../refundState.ts";
import { allowed, openLink, pendingChangeOf } from "./manageLink.tsx";
import { showFamily } from "./familyPage.tsx";

/**
 * The registrant's or coach's manage page, the link of their own that opens it (openWhole), and the page a link
 * shows again after a refusal.
 */

/** The registrant's or coach's own link (not a family's); a family's link gets its page with the reason. */
export async function openWhole(deps: RegistrationDeps, req: Request, res: Response): Promise<Opened | undefined> {
  const o = await openLink(deps, req, res);
  if (o && o.athletePosition !== null) {
    await showFamily(deps, req, res, o, { status: 403, message: "This link is for one athlete; only the coach's link can do that." });
    return undefined;
  }
  return o;
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

/** The page a link opens: a family's page for one athlete's link, the manage page for the registrant's or coach's. */
export async function showLinkPage(deps: RegistrationDeps, req: Request, res: Response, o: Opened, extra: { message?: string; status?: number } = {}): Promise<void> {
  await (o.athletePosition !== null ? showFamily : showManage)(deps, req, res, o, extra);
}

/** A change the use case refused: the link's page again, as the registration now stands, with the reason. */
export async function showRefused(deps: RegistrationDeps, req: Request, res: Response, err: DomainError): Promise<void> {
  const fresh = (await openLink(deps, req, res))!;
  await showLinkPage(deps, req, res, fresh, { status: domainErrorStatus(err), message: err.message });
}
