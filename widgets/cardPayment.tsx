/**
 * What the card widgets (the cart's CardForm, the registration's PaymentPanel, ChangePayment) and their wallet
 * buttons do with Stripe.js and the browser's return call, so a state Stripe can produce is handled the same way on both:
 * - 3-D Secure: confirmCardPayment handles `requires_action` itself (the bank's challenge in Stripe's modal, the
 *   same as `redirect: "if_required"`): it resolves once the challenge is over, with the intent or the error.
 * - `succeeded` and `processing`: the card went through (or the bank is still deciding); the widget never offers to
 *   pay again. `processing` says the confirmation comes by e-mail; the webhook decides.
 * - A return call that fails after the card went through (a network error, any 5xx, or no answer within
 *   RETURN_PATIENCE_MS): the visitor is told the payment was received and the confirmation follows by e-mail, and the
 *   call is retried in the background (the webhook records it anyway).
 */
import type { PaymentIntentResult, Stripe, StripeCardElement, StripeElements } from "@stripe/stripe-js";

export const CARD_STATE_TEXT = {
  processing: {
    title: "Payment processing",
    description: "Your bank is still confirming this payment. We'll e-mail you as soon as it is confirmed; there is nothing more to do here, and your place or order is kept meanwhile.",
  },
  received: {
    title: "Payment received: we will e-mail your confirmation",
    description: "Your card payment went through, but we could not finish here just now. Your confirmation will follow by e-mail; please do not pay again.",
  },
  authenticationFailed: "Your bank could not confirm this payment, so nothing was charged. Try again, or use another card.",
  amountChanged: (amount: string) => `The amount to pay changed to ${amount} (in another tab or window). Nothing was charged: check it and pay again.`,
} as const;

export type CardResult =
  /** Nothing was charged: the visitor may correct the card or try another. */
  | { kind: "declined"; message: string }
  /** Charged (succeeded) or being charged (processing): never pay again. */
  | { kind: "charged"; intentId: string; processing: boolean }
  /** The PaymentIntent asks for another amount than the button shows (changed elsewhere): nothing was charged. */
  | { kind: "amountChanged"; amountCents: number };

export async function confirmCard(
  stripe: Stripe,
  clientSecret: string,
  /** The card typed in the card field, or the id of a card saved on the PaymentIntent's Customer. */
  card: StripeCardElement | string,
  billing: { name?: string; email?: string; phone?: string },
  fallbackMessage: string,
  /** The amount the button shows: the card is charged only if the PaymentIntent asks for exactly that. */
  shownAmountCents: number,
): Promise<CardResult> {
  const current = await stripe.retrievePaymentIntent(clientSecret);
  if (current.paymentIntent && current.paymentIntent.amount !== shownAmountCents) return { kind: "amountChanged", amountCents: current.paymentIntent.amount };
  const result = await stripe.confirmCardPayment(clientSecret, { payment_method: typeof card === "string" ? card : { card, billing_details: billing } });
  return resultOf(result, fallbackMessage);
}

/**
 * A wallet's payment (the Express Checkout Element, widgets/WalletPay.tsx) on the PaymentIntent the server made:
 * the same amount check as a card, then Stripe.js's confirmPayment with the wallet's Elements. Wallets are cards
 * (Apple Pay, Google Pay), so `redirect: "if_required"` never leaves the page; returnUrl is only there because
 * Stripe asks for one.
 */
export async function confirmWallet(stripe: Stripe, elements: StripeElements, clientSecret: string, returnUrl: string, fallbackMessage: string, shownAmountCents: number): Promise<CardResult> {
  const current = await stripe.retrievePaymentIntent(clientSecret);
  if (current.paymentIntent && current.paymentIntent.amount !== shownAmountCents) return { kind: "amountChanged", amountCents: current.paymentIntent.amount };
  const result = await stripe.confirmPayment({ elements, clientSecret, confirmParams: { return_url: returnUrl }, redirect: "if_required" });
  return resultOf(result, fallbackMessage);
}

function resultOf(result: PaymentIntentResult, fallbackMessage: string): CardResult {
  if (result.error) {
    // An error can still carry an intent that went through (a second click, a lost answer): trust the intent.
    const intent = result.error.payment_intent;
    if (intent && (intent.status === "succeeded" || intent.status === "processing")) return { kind: "charged", intentId: intent.id, processing: intent.status === "processing" };
    const message = result.error.code === "payment_intent_authentication_failure" ? CARD_STATE_TEXT.authenticationFailed : result.error.message;
    return { kind: "declined", message: message ?? fallbackMessage };
  }
  const intent = result.paymentIntent;
  if (intent?.status === "succeeded" || intent?.status === "processing") return { kind: "charged", intentId: intent.id, processing: intent.status === "processing" };
  if (intent?.status === "requires_action") return { kind: "declined", message: CARD_STATE_TEXT.authenticationFailed };
  return { kind: "declined", message: fallbackMessage };
}

/** Pauses between the background retries of a failed return call (the first try is at once). */
export const RETURN_RETRY_MS = [2_000, 5_000, 10_000, 20_000, 40_000];
/** A return call still unanswered after this long is taken as failed for what the visitor reads (it keeps waiting). */
export const RETURN_PATIENCE_MS = 6_000;

/**
 * The browser's return call, tried at once and then again in the background until it answers. Resolves with the
 * answer, or undefined when every try failed (the webhook and the reconciliation job still record the payment).
 * `onFirstFailure` runs once, when the first try fails or is still unanswered after `patienceMs`, so the widget can
 * say the payment was received meanwhile.
 */
export async function reportReturn<T>(call: () => Promise<T>, onFirstFailure: () => void, pauses: readonly number[] = RETURN_RETRY_MS, patienceMs = RETURN_PATIENCE_MS): Promise<T | undefined> {
  let told = false;
  const tell = () => {
    if (told) return;
    told = true;
    onFirstFailure();
  };
  for (let attempt = 0; ; attempt++) {
    const slow = setTimeout(tell, patienceMs);
    try {
      return await call();
    } catch {
      tell();
      const pause = pauses[attempt];
      if (pause === undefined) return undefined;
      await new Promise((r) => setTimeout(r, pause));
    } finally {
      clearTimeout(slow);
    }
  }
}

/** The panel shown instead of the card form once the card went through (no pay button: it must not be paid twice). */
export function ChargedNotice({ state, reference }: { state: "processing" | "received"; reference?: string }) {
  const text = CARD_STATE_TEXT[state];
  return (
    <div className="card registration-section notice-charged" role="status" data-testid={`payment-${state}`}>
      <h2>{text.title}</h2>
      <p>{text.description}</p>
      {reference ? <p>Reference: <strong>{reference}</strong></p> : null}
    </div>
  );
}
