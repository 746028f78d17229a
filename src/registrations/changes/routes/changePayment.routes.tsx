import { Router, type Request, type Response } from "express";
import { renderPage } from "../../../http/render.tsx";
import { formPost, jsonPost, type JsonAnswer } from "../../../http/forms.ts";
import { domainErrorStatus } from "../../../http/errors.ts";
import type { PaymentRow } from "../../../payments/repository.ts";
import { ManageLinkNotFound } from "../../../../views/pages/registration/ManagePage.tsx";
import { findChange, type RegistrationChange } from "../../core/tables/changes.ts";
import { PAYMENT_SETUP_ERROR } from "../../core/money/payment.ts";
import { MANAGE_PATH, registrationByToken } from "../links.ts";
import { CHANGE_TEXT } from "../../../shared/registrations/changeTexts.ts";
import { cancelChange } from "../pendingChanges.ts";
import type { RegistrationRouteDeps } from "../../core/routeKit.tsx";
import { CHANGE_KIND } from "../../core/deps.ts";
import { openWhole } from "./managePage.tsx";
import { changePayPage, type OnChange } from "./changePayPage.tsx";

const PAID_ANSWER: Record<"paid" | "refunded" | "failed" | "mismatch" | "pending", [number, string]> = { paid: [200, "paid"], refunded: [409, "refunded"], failed: [402, "failed"], mismatch: [409, "needs_review"], pending: [202, "pending"] };

/** The change a URL names by its id, or undefined. */
const changeById = (deps: RegistrationRouteDeps, raw: unknown) => (typeof raw === "string" && /^\d{1,12}$/.test(raw) ? findChange(deps.db, Number(raw)) : Promise.resolve(undefined));

/**
 * A paid change's own page (`/my-registration/{token}/changes/{id}`, README: Managing a registration after payment):
 * what it changes and costs, its card payment (JavaScript, as on /stripe-checkout), the card widget's return call and
 * its cancellation, only under its own registration's coach's or registrant's link.
 */
export function changePaymentRoutes(deps: RegistrationRouteDeps): Router {
  const router = Router();
  const limit = deps.manageLimit;

  /** The link and the change it names (the one 404 page when the change is not this registration's). */
  async function openChange(req: Request, res: Response): Promise<OnChange | undefined> {
    const o = await openWhole(deps, req, res);
    if (!o) return undefined;
    const c = await changeById(deps, req.params.id);
    if (c && c.registrationId === o.r.id) return { o, c };
    renderPage(req, res, <ManageLinkNotFound />, { title: "Link Not Found", description: "This registration link does not work.", status: 404, noindex: true });
    return undefined;
  }

  const showChange = changePayPage(deps);

  router.get(`${MANAGE_PATH}/:token/changes/:id`, limit, async (req, res) => {
    const on = await openChange(req, res);
    if (on) await showChange(req, res, on);
  });

  // The card widget's return: settled through the payment core, for this change's own PaymentIntent only.
  const paidJson = jsonPost({
    check: (body, { payment }: { c: RegistrationChange; payment: PaymentRow | undefined }) => {
      const intentId = typeof body.paymentIntentId === "string" ? body.paymentIntentId.slice(0, 200) : "";
      return payment && intentId && payment.providerPaymentId === intentId ? { ok: true, data: intentId } : { ok: false, errors: {}, message: CHANGE_TEXT.notYours };
    },
    invalid: (result) => ({ status: 403, json: { success: false, error: result.message } }),
    run: async (_req, _res, intentId): Promise<JsonAnswer> => {
      const [code, status] = PAID_ANSWER[(await deps.paymentCore.settle(intentId, "return")).status];
      return { status: code, json: { success: status === "paid", status } };
    },
    failed: (req, _res, err, { c }) => {
      req.log.error({ err: (err as Error).message, changeId: c.id }, "could not confirm a registration change's payment");
      return { status: 502, json: { success: false, error: PAYMENT_SETUP_ERROR.message } };
    },
  });
  router.post(`${MANAGE_PATH}/:token/changes/:id/paid`, limit, async (req, res) => {
    res.set({ "cache-control": "private, no-store" });
    const found = await registrationByToken(deps, String(req.params.token ?? ""));
    const c = found && found.athletePosition === null ? await changeById(deps, req.params.id) : undefined;
    if (!found || !c || c.registrationId !== found.registration.id) return void res.status(404).json({ success: false, error: "Not found" });
    await paidJson(req, res, { c, payment: await deps.paymentCore.latestFor(CHANGE_KIND, String(c.id)) });
  });

  const cancelForm = formPost({
    run: async (req, _res, _none, { o, c }: OnChange) => {
      const outcome = await cancelChange(deps, o.r.id, c.id);
      req.log.info({ reference: o.r.reference, changeId: c.id, outcome }, "registration change cancelled by its registrant");
      return { redirect: outcome === "paid" ? `${o.base}/changes/${c.id}` : o.base, toast: { title: outcome === "paid" ? CHANGE_TEXT.cancelTooLate : CHANGE_TEXT.cancelDone } };
    },
    // Refused: the change's page as it now stands, with the reason.
    refused: async (req, res, err, { o, c }) => showChange(req, res, { o, c: (await findChange(deps.db, c.id))! }, { status: domainErrorStatus(err), message: err.message }),
  });
  router.post(`${MANAGE_PATH}/:token/changes/:id/cancel`, limit, async (req, res) => {
    const on = await openChange(req, res);
    if (on) await cancelForm(req, res, on);
  });

  return router;
}
