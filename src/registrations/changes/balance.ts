import type { EventDetail } from "../../shared/events/types.ts";
import { dueDayText, type BalanceView } from "../../shared/registrations/deposits.ts";
import type { Registration } from "../core/repository.ts";
import type { RegistrationDeps } from "../core/deps.ts";
import { balanceOwed } from "../booking/deposit.ts";

/**
 * The payment kind of a deposit registration's balance (its handler is the balances part's:
 * src/registrations/balances/paymentHandler.ts): reference and group are the registration's reference.
 */
export const BALANCE_KIND = "registration_balance";

export function balanceView(event: Pick<EventDetail, "timeZone">, r: Registration, base: string): BalanceView | null {
  const owed = balanceOwed(r);
  if (!r.deposit || owed <= 0) return null;
  const card = r.deposit.card;
  return {
    owedCents: owed,
    paidCents: r.amountPaidCents ?? 0,
    dueText: dueDayText(r.deposit.balanceDueAt, event.timeZone),
    overdue: r.status === "balance_overdue",
    cardText: card ? `${card.brand.charAt(0).toUpperCase()}${card.brand.slice(1)} ending ${card.last4}, expires ${String(card.expMonth).padStart(2, "0")}/${card.expYear}` : null,
    payHref: `${base}/balance`,
    cardHref: `${base}/card`,
  };
}

/**
 * "Pay the balance now" (on session, 3-D Secure as usual): the balance's one live PaymentIntent for what is owed now,
 * shared by every tab (the core keeps one live payment per kind and reference: two tabs pay one intent, charged once).
 * Null when nothing is owed.
 */
export async function prepareBalancePayment(deps: RegistrationDeps, event: Pick<EventDetail, "title">, r: Registration): Promise<string | null> {
  const owed = balanceOwed(r);
  if (owed <= 0) return null;
  const { clientSecret } = await deps.paymentCore.ensureIntent({
    kind: BALANCE_KIND,
    reference: r.reference,
    amountCents: owed,
    description: `${event.title}: balance (${r.reference})`,
    email: r.contact.email,
  });
  return clientSecret;
}
