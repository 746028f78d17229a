import type { IntentSnapshot } from "./gateway.ts";

/**
 * The one place that says how a payment row may change. The repository's conditional UPDATEs take
 * their `WHERE status IN (...)` from TRANSITIONS, so a second caller of the same step changes nothing.
 *
 *   pending  -> failed (declined card; the same PaymentIntent can be retried), paid, canceled,
 *               needs_review (succeeded but does not match)
 *   failed   -> the same as pending
 *   paid     -> refund_pending (the kind rejected it, or a refund was asked), refunded (refunded in Stripe's dashboard)
 *   needs_review -> refund_pending, refunded, paid (an operator's decision: refund it, or accept it as it is)
 *   refund_pending -> refunded (Stripe's refund went through), needs_review (the refund failed: the money is still
 *               here and an operator decides)
 *   canceled -> needs_review (money arrived on a PaymentIntent we had canceled: never dropped)
 *   refunded -> paid (a refund Stripe accepted, then failed: card 4000 0000 0000 5126; the money is back with the
 *               merchant and may be refunded again; the row keeps no live_key, its reference never takes a new one)
 */
export const PAYMENT_STATUSES = ["pending", "failed", "paid", "needs_review", "refund_pending", "refunded", "canceled"] as const;
export type PaymentStatus = (typeof PAYMENT_STATUSES)[number];

export const TRANSITIONS = {
  decline: { from: ["pending", "failed"], to: "failed" },
  pay: { from: ["pending", "failed"], to: "paid" },
  cancel: { from: ["pending", "failed"], to: "canceled" },
  flagForReview: { from: ["pending", "failed", "canceled"], to: "needs_review" },
  requestRefund: { from: ["paid", "needs_review"], to: "refund_pending" },
  acceptReview: { from: ["needs_review"], to: "paid" },
  refunded: { from: ["paid", "needs_review", "refund_pending"], to: "refunded" },
  refundFailed: { from: ["refund_pending"], to: "needs_review" },
  refundReversed: { from: ["refunded"], to: "paid" },
} as const satisfies Record<string, { from: readonly PaymentStatus[]; to: PaymentStatus }>;

export type Transition = keyof typeof TRANSITIONS;

/** A live payment holds its (kind, reference)'s `live_key`: no second PaymentIntent can start beside it. */
export function isLive(status: PaymentStatus): boolean {
  return status !== "canceled" && status !== "refunded";
}

/** Statuses in which the PaymentIntent can still be paid by the customer (its client secret is useful). */
export const OPEN_STATUSES: readonly PaymentStatus[] = ["pending", "failed"];

export interface PaymentFacts {
  kind: string;
  reference: string;
  amountCents: number;
  currency: string;
  status: PaymentStatus;
  /** The version of the paid-for row the intent's amount was set for (null: not tracked). */
  coversVersion?: number | null;
}

/** What the paid-for row says now (src/payments/core.ts: PaymentKindHandler.expected). */
export interface Expectation {
  amountCents: number;
  version?: number;
}

export type Verdict =
  | { outcome: "pay" }
  | { outcome: "settled" }
  | { outcome: "review"; reason: string }
  | { outcome: "mismatch"; reason: string }
  | { outcome: "decline"; message: string }
  | { outcome: "cancel" }
  | { outcome: "open"; intentStatus: string };

/**
 * What a PaymentIntent fetched from Stripe means for its payment row; both the browser's return and the
 * webhook use it. `expected` is what the paid-for row itself says is due (null: the kind has no opinion): its amount,
 * and the version of what it registers, which must be the version the intent's amount was set for.
 */
export function judgeIntent(payment: PaymentFacts, intent: IntentSnapshot, expected: Expectation | null = null): Verdict {
  if (!OPEN_STATUSES.includes(payment.status) && payment.status !== "canceled") return { outcome: "settled" };
  const reason = mismatch(payment, intent, expected);
  if (intent.status === "succeeded") return reason ? { outcome: "review", reason } : payment.status === "canceled" ? { outcome: "review", reason: "succeeded after it was canceled" } : { outcome: "pay" };
  if (payment.status === "canceled") return { outcome: "settled" };
  if (reason) return { outcome: "mismatch", reason };
  if (intent.status === "canceled") return { outcome: "cancel" };
  if (intent.status === "requires_payment_method" && intent.lastErrorMessage) return { outcome: "decline", message: intent.lastErrorMessage };
  return { outcome: "open", intentStatus: intent.status };
}

function mismatch(payment: PaymentFacts, intent: IntentSnapshot, expected: Expectation | null): string | null {
  if (intent.metadata.kind !== payment.kind || intent.metadata.reference !== payment.reference) {
    return `metadata ${intent.metadata.kind}/${intent.metadata.reference} is not ${payment.kind}/${payment.reference}`;
  }
  if (intent.currency.toLowerCase() !== payment.currency.toLowerCase()) return `currency ${intent.currency} is not ${payment.currency}`;
  if (intent.amountCents !== payment.amountCents) return `amount ${intent.amountCents} is not the payment's ${payment.amountCents}`;
  if (expected && intent.amountCents !== expected.amountCents) return `amount ${intent.amountCents} is not the ${payment.kind}'s ${expected.amountCents}`;
  if (expected?.version !== undefined && payment.coversVersion != null && payment.coversVersion !== expected.version) {
    return `made for version ${payment.coversVersion} of the ${payment.kind}, which is now version ${expected.version}`;
  }
  return null;
}
