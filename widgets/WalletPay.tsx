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
import type { CardResult } from "./cardPayment.tsx";

/** What the wallet's sheet gave (the shop asks it for the contact and the shipping address). */
export interface WalletSheet {
  name: string;
  email: string;
  phone: string;
  shipping: { name: string; line1: string; line2: string; city: string; state: string; zip: string; country: string } | null;
}

export interface WalletPayProps {
  /** The amount the page shows (and the server's PaymentIntent asks for). */
  amountCents: number;
  /** The PaymentIntent saves its card for later charges (a deposit plan). */
  saveForBalance?: boolean;
  /** The shop: the sheet asks for the contact and a US shipping address, and shows the shipping. */
  shop?: { subtotalCents: number; shippingCents: number; shippingLabel: string } | undefined;
  /** Where Stripe would send a wallet that leaves the page (card wallets never do). */
  returnUrl: string;
  /** The form is busy or blocked: the sheet is not opened. */
  disabled: boolean;
  /** The sheet was opened: the form goes busy. */
  onStart: () => void;
  /** The sheet was closed without paying. */
  onCancel: () => void;
  /**
   * The PaymentIntent to confirm, once the visitor approved in the sheet: the page's own, or the shop's checkout
   * call with the sheet's details. null: nothing to pay (the page said why).
   */
  prepare: (sheet: WalletSheet) => Promise<{ clientSecret: string; amountCents: number } | null>;
  /** The same outcomes as a card: the form answers them the same way. */
  onResult: (result: CardResult) => void;
}

const WalletElement = lazy(() => import("./WalletElement.tsx"));

export function WalletPay(props: WalletPayProps) {
  return (
    <Suspense fallback={null}>
      <WalletElement {...props} />
    </Suspense>
  );
}
