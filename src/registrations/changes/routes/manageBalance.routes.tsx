import { Router, type Request, type Response } from "express";
import { renderPage } from "../../../http/render.tsx";
import { flashToast } from "../../../http/pageContext.ts";
import { formBody, jsonPost, type JsonAnswer } from "../../../http/forms.ts";
import { PaymentNotOpenError } from "../../../payments/core.ts";
import type { PaymentRow } from "../../../payments/repository.ts";
import { stripeScripts } from "../../../payments/setup.ts";
import { BalancePayPage, BALANCE_TEXT, CardUpdatePage, type BalancePayView, type CardUpdateView } from "../../../../views/pages/registration/BalancePage.tsx";
import { PAYMENT_SETUP_ERROR } from "../../core/money/payment.ts";
import { MANAGE_PATH, registrationByToken } from "../links.ts";
import { BALANCE_KIND } from "../../core/deps.ts";
import { balanceView, CARD_UPDATE_MESSAGES, finishUseAnotherCard, prepareBalancePayment, startUseAnotherCard, savedCardOf } from "../balance.ts";
import { CHANGE_TEXT } from "../../../shared/registrations/changeTexts.ts";
import type { RegistrationRouteDeps } from "../../core/routeKit.tsx";
import { openWhole } from "./managePage.tsx";
import type { Opened } from "../links.ts";

const ANSWER: Record<"paid" | "refunded" | "failed" | "mismatch" | "pending", [number, string]> = { paid: [200, "paid"], refunded: [409, "refunded"], failed: [402, "failed"], mismatch: [409, "needs_review"], pending: [202, "pending"] };

/**
 * A deposit plan's "Pay the balance now" (`/my-registration/{token}/balance`): what is owed and the card form, on
 * session (3-D Secure as usual), then the card widget's return call settled through the payment core; and "Use
 * another card" (`.../card`): a SetupIntent whose card the next charge uses. Only the registrant's or coach's link
 * opens them.
 */
export function manageBalanceRoutes(deps: RegistrationRouteDeps): Router {
  const router = Router();
  const limit = deps.manageLimit;

  async function showBalance(req: Request, res: Response, o: Opened) {
    const balance = balanceView(o.event, o.r, o.base, deps.clock());
    let card: BalancePayView["card"] = null;
    let setupError: string | null = null;
    if (balance) {
      try {
        const clientSecret = await prepareBalancePayment(deps, o.event, o.r);
        if (clientSecret) {
          card = {
            publishableKey: deps.paymentCore.gateway.publishableKey,
            clientSecret,
            amountCents: balance.owedCents,
            reference: o.r.reference,
            returnUrl: `${o.base}/balance/paid`,
            doneUrl: o.base,
            billing: { name: `${o.r.contact.firstName} ${o.r.contact.lastName}`, email: o.r.contact.email, phone: o.r.contact.phone },
            // The intent is on the saved card's Customer (prepareBalancePayment): that card can pay it on session.
            savedCard: savedCardOf(o.r),
          };
        }
      } catch (err) {
        // Paid meanwhile (another tab, the job): the registration's page says how it now stands.
        if (err instanceof PaymentNotOpenError) return res.redirect(303, o.base);
        req.log.error({ err: (err as Error).message, reference: o.r.reference }, "could not set up a balance's PaymentIntent");
        setupError = PAYMENT_SETUP_ERROR.message;
      }
    }
    const a = o.r.athletes[0]!;
    const view: BalancePayView = {
      base: o.base,
      title: o.r.kind === "team" ? (o.r.teamName ?? `${o.r.contact.firstName} ${o.r.contact.lastName}'s team`) : `${a.firstName} ${a.lastName}`,
      eventTitle: o.event.title,
      reference: o.r.reference,
      balance,
      card,
      setupError,
    };
    renderPage(req, res, <BalancePayPage view={view} />, {
      title: BALANCE_TEXT.payTitle,
      description: "Pay the balance of your camp registration.",
      status: setupError ? 502 : undefined,
      noindex: true,
      scripts: card ? stripeScripts(deps.paymentCore.gateway) : undefined,
    });
  }

  router.get(`${MANAGE_PATH}/:token/balance`, limit, async (req, res) => {
    const o = await openWhole(deps, req, res);
    if (o) await showBalance(req, res, o);
  });

  // The card widget's return: settled through the payment core, for this registration's balance PaymentIntent only.
  const paidJson = jsonPost({
    check: (body, payment: PaymentRow | undefined) => {
      const intentId = typeof body.paymentIntentId === "string" ? body.paymentIntentId.slice(0, 200) : "";
      return payment && intentId && payment.providerPaymentId === intentId ? { ok: true, data: intentId } : { ok: false, errors: {}, message: CHANGE_TEXT.notYours };
    },
    invalid: (result) => ({ status: 403, json: { success: false, error: result.message } }),
    run: async (req, _res, intentId): Promise<JsonAnswer> => {
      const settled = await deps.paymentCore.settle(intentId, "return");
      const [code, status] = ANSWER[settled.status];
      // The widget goes back to the registration's page: it says the balance was paid.
      if (status === "paid") flashToast(req, { title: BALANCE_TEXT.paidToast(settled.payment.reference) });
      return { status: code, json: { success: status === "paid", status } };
    },
    failed: (req, _res, err) => {
      req.log.error({ err: (err as Error).message }, "could not confirm a balance payment");
      return { status: 502, json: { success: false, error: PAYMENT_SETUP_ERROR.message } };
    },
  });
  router.post(`${MANAGE_PATH}/:token/balance/paid`, limit, async (req, res) => {
    res.set({ "cache-control": "private, no-store" });
    const found = await registrationByToken(deps, String(req.params.token ?? ""));
    if (!found || found.athletePosition !== null) return void res.status(404).json({ success: false, error: "Not found" });
    await paidJson(req, res, await deps.paymentCore.latestFor(BALANCE_KIND, found.registration.reference));
  });

  async function showCardUpdate(req: Request, res: Response, o: Opened, message: string | null = null) {
    const started = await startUseAnotherCard(deps, o.r).catch((err: Error) => {
      req.log.error({ err: err.message, reference: o.r.reference }, "could not start a card update");
      return { refused: PAYMENT_SETUP_ERROR.message };
    });
    const a = o.r.athletes[0]!;
    const view: CardUpdateView = {
      base: o.base,
      title: o.r.kind === "team" ? (o.r.teamName ?? `${o.r.contact.firstName} ${o.r.contact.lastName}'s team`) : `${a.firstName} ${a.lastName}`,
      eventTitle: o.event.title,
      reference: o.r.reference,
      cardText: balanceView(o.event, o.r, o.base, deps.clock())?.cardText ?? null,
      form:
        "refused" in started
          ? null
          : {
              publishableKey: deps.paymentCore.gateway.publishableKey,
              clientSecret: started.clientSecret,
              setupIntentId: started.setupIntentId,
              doneUrl: `${o.base}/card/done`,
              backUrl: o.base,
              billing: { name: `${o.r.contact.firstName} ${o.r.contact.lastName}`, email: o.r.contact.email, phone: o.r.contact.phone },
            },
      message: message ?? ("refused" in started ? started.refused : null),
    };
    renderPage(req, res, <CardUpdatePage view={view} />, {
      title: "Use Another Card",
      description: "Change the card your camp balance is charged to.",
      noindex: true,
      scripts: view.form ? stripeScripts(deps.paymentCore.gateway) : undefined,
    });
  }

  router.get(`${MANAGE_PATH}/:token/card`, limit, async (req, res) => {
    const o = await openWhole(deps, req, res);
    if (o) await showCardUpdate(req, res, o);
  });

  // The card widget's return after Stripe saved the card: kept for the next charge when it is this registration's.
  router.post(`${MANAGE_PATH}/:token/card/done`, limit, async (req, res) => {
    res.set({ "cache-control": "private, no-store" });
    const found = await registrationByToken(deps, String(req.params.token ?? ""));
    if (!found || found.athletePosition !== null) return void res.status(404).json({ success: false, error: "Not found" });
    const raw = formBody(req).setupIntentId;
    const setupIntentId = typeof raw === "string" ? raw.slice(0, 200) : "";
    if (!setupIntentId) return void res.status(400).json({ success: false, error: CARD_UPDATE_MESSAGES.notSaved });
    const done = await finishUseAnotherCard(deps, found.registration, setupIntentId);
    if (done === "saved") {
      flashToast(req, { title: BALANCE_TEXT.cardSavedToast });
      return void res.json({ success: true });
    }
    res.status(409).json({ success: false, error: done.refused });
  });

  return router;
}
