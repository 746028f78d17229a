import { Router } from "express";
import { validate } from "../../../shared/forms.ts";
import { formBody, formPost } from "../../../http/forms.ts";
import { domainErrorStatus } from "../../../http/errors.ts";
import { limitsInOneTrip } from "../../../http/rateLimit.ts";
import { visitorKeys } from "../../../http/visitor.ts";
import { formValuesOf, registrationSchema } from "../../../shared/registrations/rules.ts";
import { MANAGE_PATH } from "../links.ts";
import { individualOf } from "../change.ts";
import { CHANGE_TEXT } from "../../../shared/registrations/changeTexts.ts";
import { startUpgrade, upgradeOptions } from "../upgrade.ts";
import { BALANCE_UPGRADE_TEXT, upgradeOnBalance } from "../balanceUpgrade.ts";
import { dueDayText } from "../../../shared/registrations/deposits.ts";
import type { RegistrationRouteDeps } from "../../core/routeKit.tsx";
import { allowed, versionOf } from "./manageLink.tsx";
import { openWhole } from "./managePage.tsx";
import type { Opened } from "../links.ts";
import { upgradePage } from "./manageUpgradePage.tsx";

/**
 * An individual's move to a dearer package (`/my-registration/{token}/upgrade`, README: Managing a registration after
 * payment): the form posts and answers 303 to the change's own page (routes/changePayment.tsx), where it is paid.
 */
export function manageUpgradeRoutes(deps: RegistrationRouteDeps): Router {
  const router = Router();
  const limit = deps.manageLimit;

  const showUpgrade = upgradePage(deps);

  router.get(`${MANAGE_PATH}/:token/upgrade`, limit, async (req, res) => {
    const o = await openWhole(deps, req, res);
    if (o) await showUpgrade(req, res, o);
  });

  // The new package and its days, checked by registration's own schema against the stored details.
  const upgradeForm = formPost({
    input: (req, o: Opened) => {
      const body = formBody(req);
      const days = Object.fromEntries(o.event.days.map((_, i) => [`day${i + 1}`, body[`day${i + 1}`]]));
      return { ...days, registrationType: typeof body.registrationType === "string" ? body.registrationType : "" };
    },
    check: (sent, o) => {
      const offered = upgradeOptions(o.event, o.r).some((u) => u.code === sent.registrationType);
      const result = validate(registrationSchema(o.event), { ...formValuesOf(individualOf(o.r), o.event), ...sent, agrees: "on" });
      if (offered && result.ok) return result;
      const errors = { ...(result.ok ? {} : result.errors), ...(offered ? {} : { registrationType: CHANGE_TEXT.notDearer }) };
      return { ok: false, errors, message: Object.values(errors)[0] ?? CHANGE_TEXT.notDearer };
    },
    page: (req, res, o, form, status) => showUpgrade(req, res, o, { status, form }),
    run: async (req, res, data, o) => {
      // A deposit plan: the balance grows, nothing is charged now.
      if (o.r.status === "deposit_paid") {
        const raised = await upgradeOnBalance(deps, o.event, { reference: o.r.reference, shownVersion: versionOf(formBody(req)), data });
        return { redirect: o.base, toast: { title: "Package changed", description: BALANCE_UPGRADE_TEXT.done(raised.balanceCents, dueDayText(raised.dueAt, o.event.timeZone)), variant: "success" as const } };
      }
      const id = await startUpgrade(deps, o.event, { reference: o.r.reference, shownVersion: versionOf(formBody(req)), data, holder: visitorKeys(req, res) });
      return { redirect: `${o.base}/changes/${id}` };
    },
    // Refused (a stale page, a change already waiting): the page again as the registration now stands.
    refused: async (req, res, err) => {
      const fresh = (await openWhole(deps, req, res))!;
      await showUpgrade(req, res, fresh, { status: domainErrorStatus(err), message: err.message });
    },
  });
  router.post(`${MANAGE_PATH}/:token/upgrade`, limitsInOneTrip(limit, deps.paymentLimit), async (req, res) => {
    const o = await openWhole(deps, req, res);
    if (!o) return;
    const p = await allowed(deps, o);
    if (p.phase !== "open" || o.r.kind !== "individual") return showUpgrade(req, res, o, { status: 409, message: p.reason || "A team's package does not change." });
    await upgradeForm(req, res, o);
  });

  return router;
}
