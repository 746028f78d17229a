import { Router, type Request, type Response } from "express";
import { renderPage } from "../../../http/render.tsx";
import { formPost, jsonPost, type JsonAnswer } from "../../../http/forms.ts";
import { domainErrorStatus } from "../../../http/errors.ts";
import { momentText } from "../../../shared/texts.ts";
import { formatPrice } from "../../../shared/money.ts";
import { PaymentNotOpenError } from "../../../payments/core.ts";
import type { PaymentRow } from "../../../payments/repository.ts";
import { stripeScripts } from "../../../payments/setup.ts";
import { ManageLinkNotFound } from "../../../../views/pages/registration/ManagePage.tsx";
import { ChangePayPage, type ChangePayView } from "../../../../views/pages/registration/ChangePages.tsx";
import { findPackage } from "../../../shared/registrations/rules.ts";
import { findChange, type RegistrationChange } from "../../core/tables/changes.ts";
import { PAYMENT_SETUP_ERROR } from "../../core/money/payment.ts";
import { MANAGE_PATH, registrationByToken } from "../links.ts";
import { CHANGE_TEXT } from "../../../shared/registrations/changeTexts.ts";
import { cancelChange, prepareChangePayment } from "../pendingChanges.ts";
import type { RegistrationRouteDeps } from "../../core/routeKit.tsx";
import { CHANGE_KIND } from "../../core/deps.ts";
import { openWhole } from "./managePage.tsx";
import type { Opened } from "../links.ts";

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
  type OnChange = { o: Opened; c: RegistrationChange };

  /** The link and the change it names (the one 404 page when the change is not this registration's). */
  async function openChange(req: Request, res: Response): Promise<OnChange | undefined> {
    const o = await openWhole(deps, req, res);
    if (!o) return undefined;
    const c = await changeById(deps, req.params.id);
    if (c && c.registrationId === o.r.id) return { o, c };
    renderPage(req, res, <ManageLinkNotFound />, { title: "Link Not Found", description: "This registration link does not work.", status: 404, noindex: true });
    return undefined;
  }

  function linesOf(o: Opened, c: RegistrationChange): string[] {
    if (c.data.kind === "upgrade") {
      const { dayIds } = c.data;
      const days = o.event.days.filter((d) => dayIds.includes(d.id)).map((d) => d.label);
      return [
        `Package: ${findPackage(o.event, c.data.fromPackageCode)?.label ?? c.data.fromPackageCode} to ${c.data.packageLabel}`,
        `Days: ${days.join("; ")}`,
        `${c.data.packageLabel} is ${formatPrice(c.data.priceCents)}; you paid ${formatPrice(c.data.fromListPriceCents)} for the package you had.`,
      ];
    }
    return [
      ...c.data.athletes.map((a) => `${a.firstName} ${a.lastName} (age ${a.age}, shirt ${a.shirtSize})`),
      `${c.places} × ${formatPrice(c.data.pricePerAthleteCents)} (the team price)`,
      ...(c.data.balanceCents ? [`Today ${formatPrice(c.amountCents)} (the deposit); ${formatPrice(c.data.balanceCents)} is added to the balance, charged with it on its due date`] : []),
    ];
  }

  async function showChange(req: Request, res: Response, { o, c }: OnChange, extra: { message?: string; status?: number } = {}) {
    let status: ChangePayView["status"] = c.status === "pending" && c.reservedUntil.getTime() <= deps.clock().getTime() ? "expired" : c.status;
    let card: ChangePayView["card"] = null;
    let setupError: string | null = null;
    if (status === "pending") {
      try {
        const clientSecret = await prepareChangePayment(deps, o.event, o.r, c);
        if (clientSecret) {
          card = {
            publishableKey: deps.paymentCore.gateway.publishableKey,
            clientSecret,
            amountCents: c.amountCents,
            reference: o.r.reference,
            returnUrl: `${o.base}/changes/${c.id}/paid`,
            doneUrl: `${o.base}/changes/${c.id}`,
            billing: { name: `${o.r.contact.firstName} ${o.r.contact.lastName}`, email: o.r.contact.email, phone: o.r.contact.phone },
          };
        }
      } catch (err) {
        if (err instanceof PaymentNotOpenError) {
          // Paid meanwhile (another tab) or being settled: the change as it now stands.
          const now = (await findChange(deps.db, c.id))!;
          status = now.status === "pending" ? "processing" : now.status;
        } else {
          req.log.error({ err: (err as Error).message, reference: o.r.reference, changeId: c.id }, "could not set up a registration change's PaymentIntent");
          setupError = PAYMENT_SETUP_ERROR.message;
        }
      }
    }
    const a = o.r.athletes[0]!;
    const view: ChangePayView = {
      base: o.base,
      changeHref: `${o.base}/changes/${c.id}`,
      kind: c.kind,
      title: o.r.kind === "team" ? (o.r.teamName ?? `${o.r.contact.firstName} ${o.r.contact.lastName}'s team`) : `${a.firstName} ${a.lastName}`,
      eventTitle: o.event.title,
      reference: o.r.reference,
      lines: linesOf(o, c),
      amountCents: c.amountCents,
      status,
      until: momentText(c.reservedUntil, o.event.timeZone),
      card,
      setupError,
    };
    renderPage(req, res, <ChangePayPage view={view} message={extra.message} />, {
      title: CHANGE_TEXT.payTitle(c.kind),
      description: "Pay for the change to your camp registration.",
      status: extra.status ?? (setupError ? 502 : undefined),
      noindex: true,
      scripts: card ? stripeScripts(deps.paymentCore.gateway) : undefined,
    });
  }

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
