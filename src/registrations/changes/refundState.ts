import { moneyOf } from "../../payments/core.ts";
import { formatPrice } from "../../shared/money.ts";
import type { Registration } from "../core/registration.ts";
import type { RegistrationDeps } from "../core/deps.ts";

/** The status line a payer reads with a refund still under way at Stripe (asked for, or pending like card 7726). */
export async function withRefundState(deps: RegistrationDeps, r: Registration, label: string): Promise<string> {
  const money = await moneyOf(deps.db, r.reference);
  const pending = money.payments.flatMap((p) => p.refunds).filter((f) => f.status === "requested" || f.status === "pending").reduce((sum, f) => sum + f.amountCents, 0);
  return pending > 0 ? `${label}: a refund of ${formatPrice(pending)} is pending with the card company` : label;
}
