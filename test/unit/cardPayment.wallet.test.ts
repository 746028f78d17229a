import { describe, expect, it, vi } from "vitest";
import type { Stripe, StripeElements } from "@stripe/stripe-js";
import { CARD_STATE_TEXT, confirmWallet } from "../../widgets/cardPayment.tsx";

const elements = {} as StripeElements;

/** A Stripe.js whose PaymentIntent asks for `amount` and whose confirmPayment answers `answer`. */
function stripeWith(amount: number, answer: unknown) {
  const confirmPayment = vi.fn(() => Promise.resolve(answer));
  const stripe = { retrievePaymentIntent: () => Promise.resolve({ paymentIntent: { id: "pi_1", amount } }), confirmPayment } as unknown as Stripe;
  return { stripe, confirmPayment };
}

describe("a wallet's payment on the server's PaymentIntent", () => {
  it("confirms with the wallet's Elements and the server's client secret, without leaving the page", async () => {
    const { stripe, confirmPayment } = stripeWith(9900, { paymentIntent: { id: "pi_1", status: "succeeded" } });
    await expect(confirmWallet(stripe, elements, "pi_1_secret_x", "https://site.example/register/4", "fallback", 9900)).resolves.toEqual({ kind: "charged", intentId: "pi_1", processing: false });
    expect(confirmPayment).toHaveBeenCalledWith({ elements, clientSecret: "pi_1_secret_x", confirmParams: { return_url: "https://site.example/register/4" }, redirect: "if_required" });
  });

  it("charges nothing when the PaymentIntent asks for another amount than the page shows", async () => {
    const { stripe, confirmPayment } = stripeWith(8900, { paymentIntent: { id: "pi_1", status: "succeeded" } });
    await expect(confirmWallet(stripe, elements, "pi_1_secret_x", "/r", "fallback", 9900)).resolves.toEqual({ kind: "amountChanged", amountCents: 8900 });
    expect(confirmPayment).not.toHaveBeenCalled();
  });

  it("answers a decline, a failed 3-D Secure and a processing payment as the card does", async () => {
    const declined = stripeWith(9900, { error: { type: "card_error", code: "card_declined", message: "Your card was declined." } });
    await expect(confirmWallet(declined.stripe, elements, "s", "/r", "fallback", 9900)).resolves.toEqual({ kind: "declined", message: "Your card was declined." });
    const failed3ds = stripeWith(9900, { error: { type: "card_error", code: "payment_intent_authentication_failure", message: "x" } });
    await expect(confirmWallet(failed3ds.stripe, elements, "s", "/r", "fallback", 9900)).resolves.toEqual({ kind: "declined", message: CARD_STATE_TEXT.authenticationFailed });
    const processing = stripeWith(9900, { paymentIntent: { id: "pi_1", status: "processing" } });
    await expect(confirmWallet(processing.stripe, elements, "s", "/r", "fallback", 9900)).resolves.toEqual({ kind: "charged", intentId: "pi_1", processing: true });
    // An error that still carries a PaymentIntent that went through (a second click): trust the intent.
    const through = stripeWith(9900, { error: { type: "invalid_request_error", message: "already", payment_intent: { id: "pi_1", status: "succeeded" } } });
    await expect(confirmWallet(through.stripe, elements, "s", "/r", "fallback", 9900)).resolves.toEqual({ kind: "charged", intentId: "pi_1", processing: false });
  });
});
