/**
 * Wallet buttons (Apple Pay, Google Pay; the offline fake's "Test wallet") above a card form, through Stripe's
 * Express Checkout Element. One component for every payment form of the site.
 *
 * The amount is never the browser's: the element shows the amount the page already shows (`mode: "payment"`,
 * Stripe's deferred intent), and the payment is confirmed on the PaymentIntent the server made (its client secret),
 * after the same amount check as a card (widgets/cardPayment.tsx). A deposit's PaymentIntent saves its card for the
 * balance (setup_future_usage), so the element is told too: only wallets that can be saved are offered.
 * The server's PaymentIntents allow cards only, so Link, PayPal, Klarna and Amazon Pay are never offered.
 *
 * The element's code (WalletElement.tsx) is a chunk of its own, loaded when a payment form first shows it (the
 * registration form carries the payment panel from its first step).
 */
import { lazy, Suspense } from "react";
import type { WalletPayProps } from "./walletProps.ts";

const WalletElement = lazy(() => import("./WalletElement.tsx"));

export function WalletPay(props: WalletPayProps) {
  return (
    <Suspense fallback={null}>
      <WalletElement {...props} />
    </Suspense>
  );
}
