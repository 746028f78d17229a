import type { Request, Response } from "express";
import { renderPage } from "../../../http/render.tsx";
import type { FormState } from "../../../shared/forms.ts";
import { deadlineText } from "../../../shared/texts.ts";
import { UpgradePage } from "../../../../views/pages/registration/ChangePages.tsx";
import { coversEveryDay, findPackage } from "../../../shared/registrations/rules.ts";
import { redemptionOf } from "../../core/money/redemptions.ts";
import { CHANGE_TEXT } from "../../../shared/registrations/changeTexts.ts";
import { upgradeOptions } from "../upgrade.ts";
import { dueDayText } from "../../../shared/registrations/deposits.ts";
import { allowed, pendingChangeOf } from "./manageLink.tsx";
import type { Opened } from "../links.ts";
import type { RegistrationRouteDeps } from "../../core/routeKit.tsx";

/** The page that moves an individual to a dearer package (manageUpgrade.routes.tsx): the packages offered, the days, the reason when none. */
export function upgradePage(deps: RegistrationRouteDeps) {
  async function showUpgrade(req: Request, res: Response, o: Opened, extra: { form?: FormState; message?: string; status?: number } = {}) {
    const p = await allowed(deps, o);
    const withCode = !!(await redemptionOf(deps.db, o.r.id));
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
      changesUntil: deadlineText(p.freezeAt, o.event.timeZone),
      version: o.r.version,
      days: o.event.days.map((d) => ({ id: d.id, label: d.label })),
      options,
      reason,
      pending: await pendingChangeOf(deps, o),
      balanceDue: o.r.status === "deposit_paid" && o.r.deposit ? dueDayText(o.r.deposit.balanceDueAt, o.event.timeZone) : null,
    };
    renderPage(req, res, <UpgradePage view={view} form={extra.form ?? { values: current, errors: {} }} message={extra.message} />, {
      title: "Change Package",
      description: "Move your camp registration to a bigger package.",
      status: extra.status,
      noindex: true,
    });
  }

  return showUpgrade;
}
