import * as z from "zod/mini";
import { MAX_LINE_QUANTITY } from "./rules.ts";
import { CART_ERRORS, CART_TEXT } from "./texts.ts";
import { singleLine, wholeNumber } from "../text.ts";
import { validate, type Validation } from "../forms.ts";
import { ShippingAddress, SHIPPING_TEXT } from "../orders/rules.ts";

const id = (what: string) =>
  z.pipe(
    z.pipe(z.union([z.string(), z.number()], { error: `${what} is required` }), z.transform((v) => String(v))),
    singleLine().check(z.minLength(1, `${what} is required`), z.maxLength(200, `${what} is too long`)),
  );

/** Integers or digit strings only: an empty quantity is refused (it never removes a line). */
const quantity = (min: number) =>
  z.pipe(
    wholeNumber({ type: "Quantity must be a number", whole: "Quantity must be a whole number" }),
    z.number().check(
      z.gte(min, min === 0 ? "Quantity cannot be negative" : "Quantity must be at least 1"),
      z.lte(MAX_LINE_QUANTITY, `Quantity can be at most ${MAX_LINE_QUANTITY}`),
    ),
  );

const optionalText = z.pipe(z.optional(z.union([singleLine().check(z.maxLength(100, "Size is too long")), z.null()])), z.transform((v) => v || null));

/**
 * POST /api/cart/add: the spec's cart item. Only the product, variant, size and quantity are read;
 * price, titles, image and the rest come from the catalogue, so a tampered price changes nothing.
 */
export const AddItemJson = z.object({
  shopifyProductId: id("Product"),
  shopifyVariantId: id("Variant"),
  quantity: z._default(quantity(1), 1),
  selectedSize: optionalText,
});

/** POST /cart/add (the shop's forms without JavaScript). */
export const AddItemForm = z.object({
  productId: id("Product"),
  variantId: id("Variant"),
  quantity: z._default(quantity(1), 1),
  selectedSize: optionalText,
});

export const UpdateItemJson = z.union([
  z.object({ quantity: quantity(0) }),
  z.object({ acceptPrice: z.literal(true) }),
], { error: "Send a quantity" });

export const QuantityForm = z.object({ quantity: quantity(0) });

/** Each required field says what it needs; the form says 'Please fill in all required fields.' once (validateCheckout). */
export const CHECKOUT_REQUIRED = {
  firstName: "Enter your first name",
  lastName: "Enter your last name",
  email: "Enter your email address",
} as const;

const requiredText = (message: string, max: number, tooLong: string) =>
  z.pipe(
    z.pipe(z.optional(z.union([z.string(), z.null()], { error: message })), z.transform((v) => (v ?? "").trim())),
    singleLine(message).check(z.minLength(1, message), z.maxLength(max, tooLong)),
  );

export const CustomerInfo = z.object({
  firstName: requiredText(CHECKOUT_REQUIRED.firstName, 100, "First name is too long"),
  lastName: requiredText(CHECKOUT_REQUIRED.lastName, 100, "Last name is too long"),
  email: z.pipe(requiredText(CHECKOUT_REQUIRED.email, 320, CART_ERRORS.invalidEmail), z.email(CART_ERRORS.invalidEmail)),
  phone: z.pipe(
    z.pipe(z.optional(z.union([z.string(), z.null()])), z.transform((v) => v ?? "")),
    singleLine().check(z.maxLength(40, "Phone number is too long")),
  ),
});
export type CustomerInfo = z.output<typeof CustomerInfo>;

/** POST /api/cart/checkout: the spec's payload. The items must match the session cart; their prices are ignored. */
export const CheckoutJson = z.object({
  items: z
    .array(
      z.object({
        id: z.optional(singleLine().check(z.maxLength(200))),
        shopifyProductId: id("Product"),
        shopifyVariantId: id("Variant"),
        quantity: quantity(1),
        selectedSize: optionalText,
      }),
      { error: "items must be a list" },
    )
    .check(z.maxLength(100, "Too many items")),
  customerInfo: CustomerInfo,
  /**
   * Where to send it; the shipping cost follows from the cart on the server (a sent amount is ignored). The spec's
   * payload has none: absent, it is checked as a blank address (each field's message), never zod's own words.
   */
  shippingAddress: z.pipe(z.transform((v: unknown) => v ?? {}), ShippingAddress),
});

/** The checkout form (the card form's fields; posted as-is without JavaScript): customer and `shipping[...]`. */
export const CheckoutForm = z.extend(CustomerInfo, { shipping: ShippingAddress });

const MISSING = new Set<string>([
  ...Object.values(CHECKOUT_REQUIRED),
  SHIPPING_TEXT.nameRequired, SHIPPING_TEXT.line1Required, SHIPPING_TEXT.cityRequired, SHIPPING_TEXT.stateRequired,
]);

/**
 * Checks a checkout: each field keeps its own message, and when any required field is empty the form (and the
 * JSON `error`) says the spec's 'Please fill in all required fields.' once.
 */
export function validateCheckout<S extends z.core.$ZodType>(schema: S, input: unknown): Validation<z.output<S>> {
  const result = validate(schema, input);
  if (result.ok || !Object.values(result.errors).some((m) => MISSING.has(m))) return result;
  return { ...result, message: CART_TEXT.missingInfo.description, errors: { ...result.errors, _form: CART_TEXT.missingInfo.description } };
}

export const CompleteJson = z.object({ paymentIntentId: z.string().check(z.trim(), z.regex(/^pi_[A-Za-z0-9_]+$/, "A PaymentIntent id is required")) });
