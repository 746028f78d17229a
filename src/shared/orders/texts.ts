/** Our own checkout messages where the spec gives none (server-side; the spec's payment toasts are in cart/texts.ts beside this folder). */
export const CHECKOUT_ERRORS = {
  empty: "Your cart is empty",
  changed: "Your cart has changed. Please review your cart and try again.",
  paymentUnavailable: "Payment system is temporarily unavailable. Please try again in a few moments.",
  notYourPayment: "This payment does not belong to your checkout.",
  earlierPaymentWent: "Your earlier payment went through, so the items it paid for have left your cart. Please review your cart.",
} as const;
