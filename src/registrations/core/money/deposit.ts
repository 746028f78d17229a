import type { Knex } from "knex";
import { DomainError } from "../../../errors.ts";
import { DEFAULT_TIME_ZONE } from "../../../shared/timeZones.ts";
import { CARD_CONSENT_VERSION, cardConsentText, DEPOSIT_TEXT, depositCents, depositCoversPrice, depositPlan, dueDayText, parsePaymentPlan, type PaymentPlan } from "../../../shared/registrations/deposits.ts";
import type { EventDetail } from "../../../shared/events/types.ts";
import type { DepositStep } from "../../../../widgets/islands/PaymentPanel.tsx";
import type { Registration } from "../registration.ts";
import { rememberFirstCard, setPaymentPlan, setStripeCustomer } from "../tables/cards.ts";
import { findByReference } from "../tables/registrations.ts";
import type { RegistrationDeps } from "../deps.ts";
import type { PaymentRow } from "../../../payments/repository.ts";

/**
 * A registration's payment plan, decided with its hold on the event's policy as the hold read it before its
 * transaction (an operator's change of the policy empties every instance's event cache: src/events/version.ts), on
 * the amount just written. Plan deposit stores the deposit, the due date and the consent sentence shown next to the
 * Pay button; plan full clears them. A deposit asked for when the event offers none now is refused (nothing is held).
 * Returns what the plan makes the registration's payment, for the hold's version check.
 */
export async function writePaymentPlan(
  trx: Knex.Transaction,
  registrationId: number,
  event: Pick<EventDetail, "depositPolicy" | "startDate" | "timeZone">,
  chosen: PaymentPlan,
  amountCents: number,
  places: number,
  now: Date,
  brandName: string,
  opts: { newRow?: boolean } = {},
): Promise<string> {
  const timeZone = event.timeZone || DEFAULT_TIME_ZONE;
  const firstDay = { date: event.startDate.toISOString().slice(0, 10), timeZone };
  const plan = chosen === "deposit" && amountCents > 0 ? depositPlan(event.depositPolicy, amountCents, places, firstDay, now) : null;
  // A code that brings the price to the deposit or below: paid in full (depositCoveredNotice says so), not refused.
  if (chosen === "deposit" && amountCents > 0 && !plan && !depositCoversPrice(event.depositPolicy, amountCents, places, firstDay, now)) throw new DomainError("conflict", DEPOSIT_TEXT.notOffered);
  // A row just inserted has no plan columns yet: plan full has nothing to clear.
  if (plan || !opts.newRow) await setPaymentPlan(
    trx,
    registrationId,
    plan ? { depositCents: plan.todayCents, balanceDueAt: plan.dueAt, consent: { version: CARD_CONSENT_VERSION, text: cardConsentText(brandName, plan, timeZone) } } : null,
  );
  return plan ? `deposit:${plan.todayCents}:${plan.dueAt.getTime()}` : "full";
}

/**
 * Whether the registration's own payment is a deposit: plan deposit, and the deposit less than the amount (a code
 * applied on the payment step can bring the amount down to the deposit or below: then it is paid in full).
 */
export function paysDeposit(r: Pick<Registration, "amountCents" | "deposit">): boolean {
  return !!r.deposit && r.deposit.depositCents < r.amountCents;
}

/** What the registration's own payment (kind `registration`) charges: the deposit on plan deposit, else the amount. */
export function amountDueNow(r: Pick<Registration, "amountCents" | "deposit">): number {
  return paysDeposit(r) ? r.deposit!.depositCents : r.amountCents;
}

/** What is still owed once the registration's own payment is paid (0 on plan full). */
export function balanceOwed(r: Pick<Registration, "amountCents" | "amountPaidCents" | "status">): number {
  if (r.status !== "deposit_paid" && r.status !== "balance_overdue") return 0;
  return Math.max(0, r.amountCents - (r.amountPaidCents ?? 0));
}

/** What the plan makes a registration pay, as writePaymentPlan returns it: a change is a new version. */
export function planKeyOf(r: Pick<Registration, "deposit">): string {
  return r.deposit ? `deposit:${r.deposit.depositCents}:${r.deposit.balanceDueAt.getTime()}` : "full";
}

/**
 * The Stripe Customer a deposit's card is saved on (one per reference, made once and kept on the registration). A
 * network call: never inside a transaction.
 */
export async function depositCustomer(deps: RegistrationDeps, r: Registration): Promise<string> {
  if (r.deposit?.customerId) return r.deposit.customerId;
  const { customerId } = await deps.paymentCore.ensureCustomer({ reference: r.reference, email: r.contact.email, name: `${r.contact.firstName} ${r.contact.lastName}` });
  await setStripeCustomer(deps.db, r.id, customerId);
  return customerId;
}

/**
 * After a deposit settled (outside its transaction): the card it was paid with, as the balance will be charged to
 * it, with the brand, last 4 digits and expiry the manage page and the reminders show. Kept only on a registration
 * that has no card yet (a card chosen later with "Use another card" is not overwritten).
 */
export async function rememberDepositCard(deps: RegistrationDeps, payment: PaymentRow): Promise<void> {
  const r = await findByReference(deps.db, payment.reference);
  if (!r?.deposit || r.deposit.paymentMethodId) return;
  const saved = await deps.paymentCore.cardSavedBy(payment);
  if (!saved) return;
  await rememberFirstCard(deps.db, r.id, saved.customerId, saved);
}

/** The payment step's plan-deposit lines: the total, the balance and its date, the consent kept with the registration. */
export function depositStep(event: Pick<EventDetail, "timeZone">, r: Registration): DepositStep | null {
  if (!r.deposit || !paysDeposit(r)) return null;
  return {
    totalCents: r.amountCents,
    balanceCents: r.amountCents - r.deposit.depositCents,
    dueText: dueDayText(r.deposit.balanceDueAt, event.timeZone),
    consentText: r.deposit.consent?.text ?? "",
  };
}

/**
 * Why a registration whose code brought its price to the event's deposit or below pays in full today (the plan chosen
 * was a deposit, or a deposit was offered at the list price); null otherwise.
 */
export function depositCoveredNotice(event: Pick<EventDetail, "depositPolicy">, r: Pick<Registration, "amountCents" | "listPriceCents" | "places" | "deposit">): string | null {
  if (r.amountCents <= 0 || r.amountCents >= r.listPriceCents || paysDeposit(r) || event.depositPolicy.kind === "none") return null;
  const deposit = depositCents(event.depositPolicy, r.amountCents, r.places);
  return deposit >= r.amountCents ? DEPOSIT_TEXT.coveredByCode(r.amountCents, deposit) : null;
}

/** The plan a form or JSON call chose (absent: pay in full); anything else is refused before anything is held. */
export function chosenPlan(raw: unknown): PaymentPlan {
  const plan = parsePaymentPlan(raw);
  if (!plan) throw new DomainError("invalid", DEPOSIT_TEXT.planUnknown);
  return plan;
}
