import type { EnsureIntentInput, PaymentCore } from "../../payments/core.ts";

/**
 * TEMPORARY (deleted once the payment core's saved cards are on main): the saved-card functions as the contract
 * between the helpers names them (src/payments/savedCards.ts, re-exported by the core). Until then the core has
 * none of them and a deposit's card is not saved (the balance is paid on the manage page).
 */
export interface SavedCard {
  brand: string;
  last4: string;
  expMonth: number;
  expYear: number;
}

interface SavedCardsApi {
  ensureCustomer(input: { reference: string; email: string; name: string }): Promise<{ customerId: string }>;
  savedCard(paymentMethodId: string): Promise<SavedCard>;
  startCardUpdate(input: { customerId: string }): Promise<{ setupIntentId: string; clientSecret: string }>;
  finishCardUpdate(setupIntentId: string): Promise<{ paymentMethodId: string; customerId: string | null; card: SavedCard }>;
}

export type IntentInput = EnsureIntentInput & { saveCard?: { customerId: string } };

export function savedCardsOf(core: PaymentCore): SavedCardsApi | null {
  const api = core as unknown as Partial<SavedCardsApi>;
  return typeof api.ensureCustomer === "function" && typeof api.savedCard === "function" ? (api as SavedCardsApi) : null;
}

/** The payment method a settled PaymentIntent was paid with (the core's IntentSnapshot carries it once saved cards land). */
export function paymentMethodOf(intent: object): string | null {
  const pm = (intent as { paymentMethodId?: unknown }).paymentMethodId;
  return typeof pm === "string" && pm ? pm : null;
}
