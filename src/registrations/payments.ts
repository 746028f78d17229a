import type { RegistrationDeps } from "./core/deps.ts";
import { registerRegistrationPayments } from "./booking/paymentHandler.ts";
import { registerChangePayments } from "./changes/paidChanges.ts";
import { registerBalancePayments } from "./balances/paymentHandler.ts";

/**
 * The wing's payment kinds, each handled by the part that owns it, registered with the payment core (the one
 * dispatcher, src/payments/core.ts): a registration's own payment (booking), a paid change's (changes), a deposit's
 * balance (balances). No part's handler registers or imports another's.
 */
export function registerRegistrationWingPayments(deps: RegistrationDeps): void {
  registerRegistrationPayments(deps);
  registerChangePayments(deps);
  registerBalancePayments(deps);
}
