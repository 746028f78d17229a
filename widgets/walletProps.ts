import type { CardResult } from "./cardPayment.tsx";

/** The wallet buttons' props (WalletPay.tsx) and what their sheet gave: apart, so the lazily loaded element imports them without a circle. */

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
