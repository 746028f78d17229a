import { Router, type Request, type Response } from "express";
import { validate } from "../../../shared/forms.ts";
import { formBody, formPost } from "../../../http/forms.ts";
import { domainErrorStatus } from "../../../http/errors.ts";
import { MANAGE_PATH } from "../links.ts";
import { MANAGE_TEXT } from "../../../shared/registrations/changeTexts.ts";
import { CANCEL_TEXT } from "../cancel.ts";
import { athleteRowOf, FAMILY_TEXT, validateFamilyForm, waiverSchema } from "../familyRules.ts";
import { changeTeamAthlete, signFamilyWaiver } from "../family.ts";
import { sendFamilyLink } from "../familyLinks.ts";
import type { RegistrationDeps } from "../../core/deps.ts";
import type { RegistrationRouteDeps } from "../../core/routeKit.tsx";
import { allowed, openLink, versionOf, type Changing } from "./manageLink.tsx";
import { openWhole, showManage, showRefused } from "./managePage.tsx";
import { showFamily } from "./familyPage.tsx";
import type { Opened } from "../links.ts";

/**
 * A family's details post (`POST /my-registration/{token}/details` through a family's link): the team form's schema
 * for the row, the medical notes, in the aggregate's transaction. After the freeze date only the medical notes are read.
 */
export function familyDetailsPost(deps: RegistrationDeps): (req: Request, res: Response, o: Opened) => Promise<void> {
  const detailsForm = formPost({
    input: (req, { o, p }: Changing) => {
      const body = formBody(req);
      // After the freeze date the row is the stored one, whatever was posted.
      return p.phase === "open" ? body : { ...body, athlete: athleteRowOf(o.r.athletes.find((a) => a.position === o.athletePosition)!) };
    },
    check: (posted, { o }) => validateFamilyForm(o.event, o.r, o.athletePosition!, posted),
    page: (req, res, { o }, details, status) => showFamily(deps, req, res, o, { status, details }),
    run: async (req, _res, { athlete, specialRequirements }, { o, p }) => {
      const outcome = await changeTeamAthlete(deps, o.event, { reference: o.r.reference, position: o.athletePosition!, shownVersion: versionOf(formBody(req)), phase: p.phase, athlete, specialRequirements });
      if (outcome === "waiverVoided") return { redirect: o.base, toast: { title: MANAGE_TEXT.changed, description: FAMILY_TEXT.ownSignatureVoided(athlete.firstName) } };
      return { redirect: o.base, toast: { title: outcome === "changed" ? MANAGE_TEXT.changed : MANAGE_TEXT.nothingChanged } };
    },
    refused: (req, res, err) => showRefused(deps, req, res, err),
  });
  return async (req, res, o) => {
    const p = await allowed(deps, o);
    if (p.phase === "closed") return showFamily(deps, req, res, o, { status: 409, message: p.reason });
    await detailsForm(req, res, { o, p });
  };
}

/** A team's family links: the coach sends one (from the manage page), a family signs the waiver through theirs. */
export function familyRoutes(deps: RegistrationRouteDeps): Router {
  const router = Router();
  const limit = deps.manageLimit;

  const waiverForm = formPost({
    check: (sent, _o: Opened) => validate(waiverSchema, sent),
    page: (req, res, o, waiver, status) => showFamily(deps, req, res, o, { status, waiver }),
    run: async (req, _res, { signedName, relationship }, o) => {
      await signFamilyWaiver(deps, o.event, { reference: o.r.reference, position: o.athletePosition!, signedName: signedName.trim(), relationship });
      req.log.info({ reference: o.r.reference, position: o.athletePosition }, "waiver signed through a family link");
      return { redirect: o.base, toast: { title: FAMILY_TEXT.signed } };
    },
    refused: (_req, _res, err) => ({ errors: { relationship: err.message } }),
  });
  router.post(`${MANAGE_PATH}/:token/waiver`, limit, async (req, res) => {
    const o = await openLink(deps, req, res);
    if (!o) return;
    if (o.athletePosition === null) return showManage(deps, req, res, o, { status: 403, message: "The waiver is signed through each family's own link." });
    await waiverForm(req, res, o);
  });

  const linkForm = formPost({
    run: async (req, _res, sent, o: Opened) => {
      const position = typeof sent.athlete === "string" && /^\d{1,3}$/.test(sent.athlete) ? Number(sent.athlete) : -1;
      const athlete = await sendFamilyLink(deps, o.event, o.r.reference, position);
      req.log.info({ reference: o.r.reference, position }, "family link sent");
      return { redirect: o.base, toast: { title: FAMILY_TEXT.linkSent(`${athlete.firstName} ${athlete.lastName}`) } };
    },
    refused: (req, res, err, o) => showManage(deps, req, res, o, { status: domainErrorStatus(err), message: err.kind === "not_found" ? CANCEL_TEXT.athleteGone : err.message }),
  });
  router.post(`${MANAGE_PATH}/:token/family`, limit, async (req, res) => {
    const o = await openWhole(deps, req, res);
    if (o) await linkForm(req, res, o);
  });

  return router;
}
