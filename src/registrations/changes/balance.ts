import type { EventDetail } from "../../shared/events/types.ts";
import { dueDayText, type BalanceView } from "../../shared/registrations/deposits.ts";
import type { Registration } from "../core/registration.ts";
import { replaceBalanceCard } from "../core/tables/cards.ts";
import { BALANCE_KIND, type RegistrationDeps } from "../core/deps.ts";
import { balanceOwed } from "../core/money/deposit.ts";

/** The payment kind of a deposit registration's balance, with its handler (reference and group: the registration's reference). */

const savedCardText = (card: NonNullable<NonNullable<Registration["deposit"]>["card"]>) =>
  `${card.brand.charAt(0).toUpperCase()}${card.brand.slice(1)} ending ${card.last4}, expires ${String(card.expMonth).padStart(2, "0")}/${card.expYear}`;

/**
 * The card a deposit registration keeps for its balance, offered first on its payments made on session (the balance,
 * a paid change): their PaymentIntents are made on the card's Customer, so that card can pay them. Null without one.
 */
export function savedCardOf(r: Registration): { paymentMethodId: string; text: string } | null {
  const card = r.deposit?.card;
  return r.deposit?.paymentMethodId && card ? { paymentMethodId: r.deposit.paymentMethodId, text: savedCardText(card) } : null;
}

export function balanceView(event: Pick<EventDetail, "timeZone">, r: Registration, base: string, now: Date): BalanceView | null {
  const owed = balanceOwed(r);
  if (!r.deposit || owed <= 0) return null;
  const card = r.deposit.card;
  return {
    owedCents: owed,
    paidCents: r.amountPaidCents ?? 0,
    dueText: dueDayText(r.deposit.balanceDueAt, event.timeZone),
    overdue: r.status === "balance_overdue",
    pastDue: r.deposit.balanceDueAt.getTime() <= now.getTime(),
    cardText: card ? savedCardText(card) : null,
    payHref: `${base}/balance`,
    cardHref: `${base}/card`,
  };
}

/**
 * "Pay the balance now" (on session, 3-D Secure as usual): the balance's one live PaymentIntent for what is owed now,
 * shared by every tab (the core keeps one live payment per kind and reference: two tabs pay one intent, charged once).
 * Made on the Customer that holds the saved card, so that the job can still charge that card on this intent on the
 * due date when the page was left unpaid (Stripe refuses a card of another Customer). Null when nothing is owed.
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
    customerId: r.deposit?.customerId ?? undefined,
  });
  return clientSecret;
}

export const CARD_UPDATE_MESSAGES = {
  nothingOwed: "Nothing is owed on this registration: there is no card to change.",
  noCustomer: "This registration's card was not saved: pay the balance from this page instead.",
  notYours: "This card was not saved for this registration.",
  notSaved: "The new card is not saved yet. Please try again.",
} as const;

/**
 * "Use another card": a SetupIntent on the registration's Stripe Customer (a network call, outside any transaction).
 * Null with the reason when no card can be saved now.
 */
export async function startUseAnotherCard(deps: RegistrationDeps, r: Registration): Promise<{ setupIntentId: string; clientSecret: string } | { refused: string }> {
  if (balanceOwed(r) <= 0) return { refused: CARD_UPDATE_MESSAGES.nothingOwed };
  if (!r.deposit?.customerId) return { refused: CARD_UPDATE_MESSAGES.noCustomer };
  return deps.paymentCore.startCardUpdate({ customerId: r.deposit.customerId });
}

/**
 * The SetupIntent succeeded: the card it saved is kept on the registration for the next charge, if it was saved on
 * this registration's own Customer and a balance is still owed (the registration's row decides: one statement).
 */
export async function finishUseAnotherCard(deps: RegistrationDeps, r: Registration, setupIntentId: string): Promise<"saved" | { refused: string }> {
  if (!r.deposit?.customerId) return { refused: CARD_UPDATE_MESSAGES.noCustomer };
  let saved: Awaited<ReturnType<typeof deps.paymentCore.finishCardUpdate>>;
  try {
    saved = await deps.paymentCore.finishCardUpdate(setupIntentId);
  } catch (err) {
    deps.logger.warn({ err: (err as Error).message, reference: r.reference }, "a new card for a balance was not saved");
    return { refused: CARD_UPDATE_MESSAGES.notSaved };
  }
  if (saved.customerId !== r.deposit.customerId) return { refused: CARD_UPDATE_MESSAGES.notYours };
  if (!(await replaceBalanceCard(deps.db, r.id, saved, deps.clock()))) return { refused: CARD_UPDATE_MESSAGES.nothingOwed };
  deps.logger.info({ reference: r.reference }, "a registration's balance card changed");
  return "saved";
}
