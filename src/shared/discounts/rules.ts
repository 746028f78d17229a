/**
 * Discount code rules: the amount taken off in cents, Stripe's minimum charge, the validity window, the
 * limit, the event and the kind of registration; and the spec's messages, word for word.
 * Browser-safe: plain data only.
 */
import { formatPrice } from "../money.ts";

export type DiscountType = "percent" | "fixed";
export type DiscountKind = "individual" | "team" | "both";
export const DISCOUNT_KINDS: readonly DiscountKind[] = ["individual", "team", "both"];

export interface DiscountCode {
  id: number;
  code: string;
  type: DiscountType;
  /** percent: 1 to 100; fixed: cents off. */
  value: number;
  eventId: number | null;
  kind: DiscountKind;
  maxRedemptions: number | null;
  startsAt: Date | null;
  expiresAt: Date | null;
  active: boolean;
}

/** Stripe cannot charge less than $0.50: a discounted amount below it is free (the payer's benefit). */
export const STRIPE_MINIMUM_CENTS = 50;
export const MAX_CODE_LENGTH = 40;

/** The spec's titles and messages (section 5 and the error catalogue). */
export const DISCOUNT_TEXT = {
  missingTitle: "Missing Discount Code",
  missing: "Please enter a discount code",
  invalidTitle: "Invalid Discount",
  invalidDefault: "This discount code is not valid",
  appliedTitle: "Discount Applied",
  applied: (finalCents: number, offCents: number) => `New total: ${formatPrice(finalCents)} (saved ${formatPrice(offCents)})`,
  freeTitle: "100% Discount Applied",
  free: "Your registration is free! Complete your registration below.",
  errorTitle: "Discount Error",
  error: "Failed to apply discount code",
  refresh: "Discount applied successfully. Please refresh the page to continue.",
  freeFailedTitle: "Registration Failed",
  freeFailed: "Failed to process free registration",
  freeFailedUnexpected: "There was an error processing your free registration.",
  freeDoneTitle: "Registration Complete!",
  freeButton: "Complete FREE Registration",
  boxTitle: "Have a discount code?",
} as const;

/** Our own reasons (the spec leaves them to the server). */
export const DISCOUNT_REASONS = {
  /** A code posted (from another tab) while the registration's card payment is being confirmed: 409, nothing changes. */
  paymentUnderWay: "Your card payment for this registration is being confirmed, so a discount code can no longer change it. If the payment fails, you can try the code again.",
  unknown: "This discount code does not exist. Please check it and try again.",
  inactive: "This discount code is no longer available.",
  expired: "This discount code has expired.",
  notYetValid: (startsAt: Date) => `This discount code is not valid yet. It can be used from ${startsAt.toISOString().slice(0, 10)}.`,
  usedUp: "This discount code has been used up.",
  wrongEvent: "This discount code is not valid for this event.",
  wrongKind: (kind: DiscountKind) => `This discount code is for ${kind} registrations only.`,
  tooLong: `A discount code has at most ${MAX_CODE_LENGTH} characters.`,
  noRegistration: "There is no registration waiting for payment. Please fill in the registration form again.",
  notFree: "This discount code does not make your registration free.",
  rateLimited: "Too many discount code attempts. Please wait 15 minutes and try again.",
} as const;

/** Codes are compared without regard to case or surrounding spaces. */
export function normalizeCode(raw: string): string {
  return raw.trim().toUpperCase();
}

export interface DiscountAmount {
  offCents: number;
  finalCents: number;
  free: boolean;
}

/**
 * What a code takes off a price, in cents. Percentages round to the nearest cent (half a cent goes to the
 * payer); a fixed amount never takes off more than the price; what is left below Stripe's minimum is free.
 */
export function discountAmount(listCents: number, code: Pick<DiscountCode, "type" | "value">): DiscountAmount {
  if (!Number.isInteger(listCents) || listCents < 0) throw new Error(`invalid price ${listCents}`);
  let off = code.type === "percent" ? Math.floor((listCents * code.value + 50) / 100) : code.value;
  off = Math.min(Math.max(off, 0), listCents);
  let final = listCents - off;
  if (final > 0 && final < STRIPE_MINIMUM_CENTS) {
    off = listCents;
    final = 0;
  }
  return { offCents: off, finalCents: final, free: final === 0 };
}

export interface UseContext {
  eventId: number;
  kind: "individual" | "team";
  now: Date;
  /** Uses held (by unexpired holds) or redeemed, not counting the registration asking. */
  usesTaken: number;
}

/** Why a code cannot be used by this registration now, or null when it can. */
export function refusal(code: DiscountCode, ctx: UseContext): string | null {
  if (!code.active) return DISCOUNT_REASONS.inactive;
  if (code.expiresAt && ctx.now.getTime() >= code.expiresAt.getTime()) return DISCOUNT_REASONS.expired;
  if (code.startsAt && ctx.now.getTime() < code.startsAt.getTime()) return DISCOUNT_REASONS.notYetValid(code.startsAt);
  if (code.eventId !== null && code.eventId !== ctx.eventId) return DISCOUNT_REASONS.wrongEvent;
  if (code.kind !== "both" && code.kind !== ctx.kind) return DISCOUNT_REASONS.wrongKind(code.kind);
  if (code.maxRedemptions !== null && ctx.usesTaken >= code.maxRedemptions) return DISCOUNT_REASONS.usedUp;
  return null;
}

/** The toast title and message for an applied discount. */
export function appliedMessage(amount: DiscountAmount): { title: string; message: string } {
  return amount.free
    ? { title: DISCOUNT_TEXT.freeTitle, message: DISCOUNT_TEXT.free }
    : { title: DISCOUNT_TEXT.appliedTitle, message: DISCOUNT_TEXT.applied(amount.finalCents, amount.offCents) };
}

/** '10% off' or '$25.00 off', for lists and e-mails. */
export function describeValue(code: Pick<DiscountCode, "type" | "value">): string {
  return code.type === "percent" ? `${code.value}% off` : `${formatPrice(code.value)} off`;
}
