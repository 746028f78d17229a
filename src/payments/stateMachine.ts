import type { IntentSnapshot } from "./gateway.ts";

/**
 * A payment row's life: pending -> paid (once, terminal), pending <-> failed (a declined card can be
 * retried on the same PaymentIntent), pending/failed -> canceled. Money that Stripe really took wins
 * over a cancellation, so a succeeded PaymentIntent moves even a canceled row to paid.
 */
export type PaymentStatus = "pending" | "paid" | "failed" | "canceled";

export interface PaymentFacts {
  kind: string;
  reference: string;
  amountCents: number;
  currency: string;
  status: PaymentStatus;
}

export type Verdict =
  | { outcome: "mark_paid" }
  | { outcome: "already_paid" }
  | { outcome: "mismatch"; reason: string }
  | { outcome: "failed"; message: string }
  | { outcome: "not_paid"; intentStatus: string };

/** What a PaymentIntent fetched from Stripe means for our payment row. Both the return path and the webhook use it. */
export function judgeIntent(payment: PaymentFacts, intent: IntentSnapshot): Verdict {
  if (payment.status === "paid") return { outcome: "already_paid" };
  if (intent.metadata.kind !== payment.kind || intent.metadata.reference !== payment.reference) {
    return { outcome: "mismatch", reason: `metadata ${intent.metadata.kind}/${intent.metadata.reference} is not ${payment.kind}/${payment.reference}` };
  }
  if (intent.currency.toLowerCase() !== payment.currency.toLowerCase()) {
    return { outcome: "mismatch", reason: `currency ${intent.currency} is not ${payment.currency}` };
  }
  if (intent.amountCents !== payment.amountCents) {
    return { outcome: "mismatch", reason: `amount ${intent.amountCents} is not ${payment.amountCents}` };
  }
  if (intent.status === "succeeded") return { outcome: "mark_paid" };
  if (intent.status === "requires_payment_method" && intent.lastErrorMessage) {
    return { outcome: "failed", message: intent.lastErrorMessage };
  }
  return { outcome: "not_paid", intentStatus: intent.status };
}

/** The status a row moves to for a verdict, or null when it stays as it is. */
export function nextStatus(current: PaymentStatus, verdict: Verdict): PaymentStatus | null {
  if (current === "paid") return null;
  switch (verdict.outcome) {
    case "mark_paid":
      return "paid";
    case "failed":
      return current === "canceled" ? null : "failed";
    default:
      return null;
  }
}

/** Statuses from which the conditional UPDATE may mark a row paid: the guard that makes "paid" happen once. */
export const PAYABLE_STATUSES: PaymentStatus[] = ["pending", "failed", "canceled"];
