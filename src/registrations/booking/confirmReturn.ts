import { DomainError } from "../../errors.ts";
import type { SettleResult } from "../../payments/core.ts";
import { REGISTRATION_KIND, type RegistrationDeps } from "../core/deps.ts";

/** The browser's return after the card was confirmed: settled through the core, for this visitor's own registration only. */
export async function confirmReturn(deps: RegistrationDeps, reference: string | undefined, paymentIntentId: string): Promise<SettleResult> {
  const payment = reference ? await deps.paymentCore.latestFor(REGISTRATION_KIND, reference) : undefined;
  if (!payment || payment.providerPaymentId !== paymentIntentId) throw new DomainError("forbidden", "This payment does not belong to your registration.");
  return deps.paymentCore.settle(paymentIntentId, "return", payment);
}
