import * as z from "zod";
import { MAX_LINE_QUANTITY } from "./rules.ts";

/** The spec's cart, payment and checkout messages, word for word (browser-safe, shared with the widgets). */
export const CART_TEXT = {
  emptyTitle: "Your cart is empty",
  emptyBody: "Add some items to get started!",
  shippingNote: "Calculated at checkout",
  updateFailed: { title: "Error", description: "Failed to update quantity" },
  removeFailed: { title: "Error", description: "Failed to remove item" },
  removed: { title: "Item Removed", description: "Item has been removed from your cart" },
  addFailed: "Failed to add item to cart",
  checkoutFailed: "Failed to create checkout",
  missingInfo: { title: "Missing Information", description: "Please fill in all required fields." },
  providerNotReady: { title: "Payment System Unavailable", description: "Payment processing is temporarily unavailable. Please try again later." },
  providerCannotLoad: { title: "Payment processing is temporarily unavailable", description: "Please try again later or contact support" },
  paymentFailedTitle: "Payment Failed",
  paymentFailedFallbacks: {
    intent: "Failed to create payment intent",
    cardElement: "Card element not found",
    payment: "Payment failed",
    unexpected: "An unexpected error occurred",
  },
  paymentSucceeded: { title: "Payment Successful!", description: "Your order has been placed successfully. You'll receive a confirmation email shortly." },
  processing: "Processing Payment...",
  needsJavaScript: "Card payment needs JavaScript. Please turn JavaScript on in your browser to pay by card; your cart is saved.",
} as const;

/** Our own messages where the spec gives none. */
export const CART_ERRORS = {
  productGone: "This product is no longer available",
  priceOnRequest: "This item is priced on request. Please contact us to order it.",
  invalidSize: "Please choose one of the listed sizes",
  itemGone: "That item is no longer in your cart",
  empty: "Your cart is empty",
  changed: "Your cart has changed. Please review your cart and try again.",
  notEnoughStock: (n: number) => (n === 1 ? "Only 1 left in stock" : `Only ${n} left in stock`),
  invalidEmail: "Please enter a valid email address",
  paymentUnavailable: "Payment system is temporarily unavailable. Please try again in a few moments.",
  notYourPayment: "This payment does not belong to your checkout.",
  catalogueDown: "Our product catalogue is temporarily unavailable. Please try again in a few minutes.",
} as const;

const id = (what: string) =>
  z.union([z.string(), z.number()], { error: `${what} is required` })
    .transform((v) => String(v).trim())
    .pipe(z.string().min(1, `${what} is required`).max(200, `${what} is too long`));

const quantity = (min: number) =>
  z.coerce
    .number({ error: "Quantity must be a number" })
    .int("Quantity must be a whole number")
    .min(min, min === 0 ? "Quantity cannot be negative" : "Quantity must be at least 1")
    .max(MAX_LINE_QUANTITY, `Quantity can be at most ${MAX_LINE_QUANTITY}`);

const optionalText = z.union([z.string(), z.null()]).optional().transform((v) => (v ? v.trim() || null : null));

/**
 * POST /api/cart/add: the spec's cart item. Only the product, variant, size and quantity are read;
 * price, titles, image and the rest come from the catalogue, so a tampered price changes nothing.
 */
export const AddItemJson = z.object({
  shopifyProductId: id("Product"),
  shopifyVariantId: id("Variant"),
  quantity: quantity(1).default(1),
  selectedSize: optionalText,
});

/** POST /cart/add (the shop's forms without JavaScript). */
export const AddItemForm = z.object({
  productId: id("Product"),
  variantId: id("Variant"),
  quantity: quantity(1).default(1),
  selectedSize: optionalText,
});

export const UpdateItemJson = z.union([
  z.object({ quantity: quantity(0) }),
  z.object({ acceptPrice: z.literal(true) }),
], { error: "Send a quantity" });

export const QuantityForm = z.object({ quantity: quantity(0) });

export const CustomerInfo = z.object({
  firstName: z.string({ error: CART_TEXT.missingInfo.description }).trim().min(1, CART_TEXT.missingInfo.description).max(100, "First name is too long"),
  lastName: z.string({ error: CART_TEXT.missingInfo.description }).trim().min(1, CART_TEXT.missingInfo.description).max(100, "Last name is too long"),
  email: z.string({ error: CART_TEXT.missingInfo.description }).trim().min(1, CART_TEXT.missingInfo.description).max(320).pipe(z.email(CART_ERRORS.invalidEmail)),
  phone: z.union([z.string(), z.null()]).optional().transform((v) => (v ? v.trim() : "")).pipe(z.string().max(40, "Phone number is too long")),
});
export type CustomerInfo = z.output<typeof CustomerInfo>;

/** POST /api/cart/checkout: the spec's payload. The items must match the session cart; their prices are ignored. */
export const CheckoutJson = z.object({
  items: z
    .array(
      z.object({
        id: z.string().optional(),
        shopifyProductId: id("Product"),
        shopifyVariantId: id("Variant"),
        quantity: quantity(1),
        selectedSize: optionalText,
      }),
      { error: "items must be a list" },
    )
    .max(100, "Too many items"),
  customerInfo: CustomerInfo,
});

export const CompleteJson = z.object({ paymentIntentId: z.string().trim().regex(/^pi_[A-Za-z0-9_]+$/, "A PaymentIntent id is required") });
