import type { Request } from "express";
import { DomainError } from "../../errors.ts";
import type { SettleResult } from "../../payments/core.ts";
import { REGISTRATION_KIND, type RegistrationDeps } from "../core/deps.ts";
import { settlementStateWithPayment } from "../core/tables/registrations.ts";
import { keepPageLink, pageLinkKept } from "../changes/links.ts";
import { settlementQueueKey } from "./paymentHandler.ts";
import { PageLinkAsk } from "./confirmPaid.ts";

/**
 * The browser's return after the card was confirmed: settled through the core, for this visitor's own registration
 * only. Its payment and the state that says which queue the settlement joins are read in one statement; when this
 * request's settlement marks it paid, the confirmation page's manage link is written with the e-mail's and kept in
 * the session, so the page the visitor lands on writes none.
 */
export async function confirmReturn(deps: RegistrationDeps, req: Request, reference: string | undefined, paymentIntentId: string): Promise<SettleResult> {
  const seen = reference ? await settlementStateWithPayment(deps.db, reference, REGISTRATION_KIND) : undefined;
  const payment = seen?.payment;
  if (!payment || payment.providerPaymentId !== paymentIntentId) throw new DomainError("forbidden", "This payment does not belong to your registration.");
  const page = pageLinkKept(req, payment.reference) ? undefined : new PageLinkAsk();
  const queueKey = await settlementQueueKey(deps, payment.reference, seen.state);
  const result = await deps.paymentCore.settle(paymentIntentId, "return", payment, { queueKey, context: page });
  // Newly paid: onPaid ran in the transaction that committed (each run tells `page` afresh).
  if (result.status === "paid" && result.newlyPaid && page?.token) keepPageLink(req, payment.reference, page.token);
  return result;
}
