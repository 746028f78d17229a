/**
 * Shipping for shop orders (the README: Shipping, the order confirmation and the order-status link): a US address, free on orders over $75,
 * otherwise the configured flat rate. Browser-safe: the card form shows the same figures the server charges.
 */
import * as z from "zod/mini";
import { formatPrice } from "../money.ts";
import { singleLine } from "../text.ts";

export const FREE_SHIPPING_THRESHOLD_CENTS = 7_500;

/** Free strictly over the threshold: $75.01 ships free, $75.00 pays the flat rate. */
export function shippingCents(subtotalCents: number, flatRateCents: number): number {
  return subtotalCents > FREE_SHIPPING_THRESHOLD_CENTS ? 0 : flatRateCents;
}

/** Shipping as the summary, the e-mail and the order pages say it: 'Free' or the amount. */
export const shippingLabel = (cents: number) => (cents === 0 ? "Free" : formatPrice(cents));

/** The 50 states, Washington, D.C., and the military (APO/FPO) codes, as a postal service would take them. */
export const US_STATES: readonly { code: string; name: string }[] = [
  ["AL", "Alabama"], ["AK", "Alaska"], ["AZ", "Arizona"], ["AR", "Arkansas"], ["CA", "California"], ["CO", "Colorado"],
  ["CT", "Connecticut"], ["DE", "Delaware"], ["DC", "District of Columbia"], ["FL", "Florida"], ["GA", "Georgia"],
  ["HI", "Hawaii"], ["ID", "Idaho"], ["IL", "Illinois"], ["IN", "Indiana"], ["IA", "Iowa"], ["KS", "Kansas"],
  ["KY", "Kentucky"], ["LA", "Louisiana"], ["ME", "Maine"], ["MD", "Maryland"], ["MA", "Massachusetts"], ["MI", "Michigan"],
  ["MN", "Minnesota"], ["MS", "Mississippi"], ["MO", "Missouri"], ["MT", "Montana"], ["NE", "Nebraska"], ["NV", "Nevada"],
  ["NH", "New Hampshire"], ["NJ", "New Jersey"], ["NM", "New Mexico"], ["NY", "New York"], ["NC", "North Carolina"],
  ["ND", "North Dakota"], ["OH", "Ohio"], ["OK", "Oklahoma"], ["OR", "Oregon"], ["PA", "Pennsylvania"], ["RI", "Rhode Island"],
  ["SC", "South Carolina"], ["SD", "South Dakota"], ["TN", "Tennessee"], ["TX", "Texas"], ["UT", "Utah"], ["VT", "Vermont"],
  ["VA", "Virginia"], ["WA", "Washington"], ["WV", "West Virginia"], ["WI", "Wisconsin"], ["WY", "Wyoming"],
  ["AA", "Armed Forces Americas (AA)"], ["AE", "Armed Forces Europe (AE)"], ["AP", "Armed Forces Pacific (AP)"],
].map(([code, name]) => ({ code: code!, name: name! }));

const STATE_CODES = new Set(US_STATES.map((s) => s.code));

export const SHIPPING_TEXT = {
  legend: "Shipping Address",
  nameRequired: "Enter the name of the person receiving the order",
  line1Required: "Enter the street address",
  cityRequired: "Enter the city",
  stateRequired: "Choose a state",
  zipInvalid: "Enter a 5-digit ZIP code (or ZIP+4)",
  tooLong: (what: string, max: number) => `${what} can be at most ${max} characters`,
  /** Said next to the summary while the address is not complete yet. */
  pending: "Calculated at checkout",
  free: "Free",
} as const;

/** Single-line text: inner whitespace (tabs, line breaks) folded to one space, then the site's single-line rule. */
const line = (required: string | null, what: string, max: number) => {
  const base = z.pipe(
    z.optional(z.union([z.string(), z.null()], { error: required ?? `${what} must be text` })),
    z.transform((v) => (v ?? "").replace(/\s+/g, " ").trim()),
  );
  return required
    ? z.pipe(base, singleLine(required).check(z.minLength(1, required), z.maxLength(max, SHIPPING_TEXT.tooLong(what, max))))
    : z.pipe(base, singleLine().check(z.maxLength(max, SHIPPING_TEXT.tooLong(what, max))));
};

/** The US shipping address the checkout asks for: checked the same way in the card form and on the server. */
export const ShippingAddress = z.object({
  name: line(SHIPPING_TEXT.nameRequired, "Name", 100),
  line1: line(SHIPPING_TEXT.line1Required, "Address line 1", 100),
  line2: line(null, "Address line 2", 100),
  city: line(SHIPPING_TEXT.cityRequired, "City", 60),
  state: z.pipe(line(SHIPPING_TEXT.stateRequired, "State", 2), z.transform((v) => v.toUpperCase())).check(
    z.refine((v) => STATE_CODES.has(v), SHIPPING_TEXT.stateRequired),
  ),
  zip: line(SHIPPING_TEXT.zipInvalid, "ZIP code", 10).check(z.refine((v) => /^\d{5}(-\d{4})?$/.test(v), SHIPPING_TEXT.zipInvalid)),
});
export type ShippingAddress = z.output<typeof ShippingAddress>;

/** The address as an envelope shows it, one line per entry. */
export function addressLines(a: ShippingAddress): string[] {
  return [a.name, a.line1, ...(a.line2 ? [a.line2] : []), `${a.city}, ${a.state} ${a.zip}`];
}
