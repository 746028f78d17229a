import { DomainError } from "../errors.ts";
import type { PaymentRow } from "../payments/repository.ts";
import { REGISTRATION_KIND, type RegistrationDeps } from "./deps.ts";

/**
 * An operator refunds a registration's payment in full through Stripe. The registration follows through the payment
 * core (its handler's onRefunded: refunded, places and code use released, the payer e-mailed), exactly as for a
 * refund made in Stripe's dashboard (charge.refunded).
 */
export async function refundRegistration(deps: RegistrationDeps, reference: string, reason: string): Promise<PaymentRow> {
  const payment = await deps.paymentCore.liveFor(REGISTRATION_KIND, reference);
  if (!payment || (payment.status !== "paid" && payment.status !== "needs_review")) {
    throw new DomainError("conflict", `Registration ${reference} has no paid payment to refund.`);
  }
  if (payment.provider === "none") throw new DomainError("conflict", `Registration ${reference} was free: there is nothing to refund.`);
  return deps.paymentCore.refund(payment, reason);
}
