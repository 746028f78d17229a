import type { Knex } from "knex";
import type { Conn } from "./rows.ts";

/** The deposit plan and the card its balance is charged to (the registration's plan, card and Stripe Customer columns). */

/** Plan deposit's terms as a hold writes them: the deposit, the due date and the consent shown next to the Pay button. */
export interface PlanTerms {
  depositCents: number;
  balanceDueAt: Date;
  consent: { version: string; text: string };
}

/** The plan chosen with a hold: its terms, or null for plan full (which clears them). */
export async function setPaymentPlan(trx: Knex.Transaction, id: number, plan: PlanTerms | null): Promise<void> {
  await trx("registrations")
    .where({ id })
    .update(
      plan
        ? { payment_plan: "deposit", deposit_cents: plan.depositCents, balance_due_at: plan.balanceDueAt, card_consent_version: plan.consent.version, card_consent_text: plan.consent.text }
        : { payment_plan: "full", deposit_cents: null, balance_due_at: null, card_consent_version: null, card_consent_text: null },
    );
}

/** A card saved for the balance, as the gateway describes it. */
export interface SavedCardColumns {
  paymentMethodId: string;
  card: { brand: string; last4: string; expMonth: number; expYear: number };
}

const cardColumns = (c: SavedCardColumns) => ({ payment_method_id: c.paymentMethodId, card_brand: c.card.brand, card_last4: c.card.last4, card_exp_month: c.card.expMonth, card_exp_year: c.card.expYear });

/** The Stripe Customer the registration's cards are saved on (one per reference). */
export async function setStripeCustomer(conn: Conn, id: number, customerId: string): Promise<void> {
  await conn("registrations").where({ id }).update({ stripe_customer_id: customerId });
}

/** The deposit's card, kept only when the registration has none yet (a card chosen later is not overwritten). */
export async function rememberFirstCard(conn: Conn, id: number, customerId: string, saved: SavedCardColumns): Promise<void> {
  await conn("registrations").where({ id }).whereNull("payment_method_id").update({ stripe_customer_id: customerId, ...cardColumns(saved) });
}

/** "Use another card": the new card for the next balance charge, only while a balance is owed (one statement decides). */
export async function replaceBalanceCard(conn: Conn, id: number, saved: SavedCardColumns, now: Date): Promise<boolean> {
  const changed = await conn("registrations").where({ id }).whereIn("status", ["deposit_paid", "balance_overdue"]).update({ ...cardColumns(saved), updated_at: now });
  return changed === 1;
}
