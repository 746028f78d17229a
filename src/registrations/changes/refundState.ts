import { formatPrice } from "../../shared/money.ts";
import type { Registration } from "../core/repository.ts";
import type { RegistrationDeps } from "../core/deps.ts";
import { moneyPayments } from "./paidChanges.ts";

/** The status line a payer reads with a refund still under way at Stripe (asked for, or pending like card 7726). */
export async function withRefundState(deps: RegistrationDeps, r: Registration, label: string): Promise<string> {
  const money = await moneyPayments(deps, r.reference);
  let pending = 0;
  for (const p of [money.own, ...money.changes.map((c) => c.payment)]) {
    if (p) for (const f of await deps.paymentCore.refundsOf(p.id)) if (f.status === "requested" || f.status === "pending") pending += f.amountCents;
  }
  return pending > 0 ? `${label}: a refund of ${formatPrice(pending)} is pending with the card company` : label;
}
