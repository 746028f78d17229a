/**
 * The one place that says how a registration's status may change (like src/payments/transitions.ts for payments).
 * The registrations table's `transition` (core/tables/registrations.ts) takes its `WHERE status IN (...)` from this table, inside a transaction that holds
 * the registration's locks (src/registrations/core/locks.ts), so a second caller of the same step changes nothing.
 *
 *   pending_payment -> paid (its payment settled, or free), expired (the hold lapsed), canceled (the payment could
 *                      not be set up), needs_review (money arrived that does not match what it registers)
 *   expired, canceled -> paid (a late payment found a place free), refunded (it found none: refunded),
 *                      needs_review; a pending one whose hold lapsed before the sweep came is refunded the same way
 *   paid            -> refunded (refunded in full, through the site or Stripe's dashboard)
 *   needs_review    -> paid (an operator accepted its payment: `npm run payments -- review accept`), refunded (refunded
 *                      in full by an operator)
 *   paid            -> withdrawn (canceled by its registrant through the manage link: its places are free at once and
 *                      the cancellation policy's refund is requested in the same transaction)
 *   withdrawn       -> refunded (that refund was the whole amount paid, and Stripe says it succeeded)
 *   refunded, withdrawn -> refund_failed (its refund failed, even after Stripe said it succeeded: the money is still
 *                      with the shop; the payer is told, the operator retries it with `npm run refund`)
 *   refund_failed   -> refunded (that retry went through)
 *   pending_payment, expired, canceled -> deposit_paid (plan deposit: its deposit settled, the card saved for the balance)
 *   deposit_paid, balance_overdue -> paid (the balance settled: charged on its date, or paid on the manage page)
 *   deposit_paid    -> balance_overdue (the balance could not be charged: places kept until the policy's grace date)
 *   balance_overdue -> withdrawn (the grace date passed unpaid: places released); deposit_paid -> withdrawn (canceled)
 *
 * Places: `paid`, `deposit_paid`, `balance_overdue` and `needs_review` registrations keep theirs (money was taken: the place stays until an operator
 * decides); a `pending_payment` one keeps them while its hold lasts; the others hold none.
 */
export const REGISTRATION_STATUSES = ["pending_payment", "paid", "needs_review", "expired", "canceled", "refunded", "withdrawn", "refund_failed", "deposit_paid", "balance_overdue"] as const;
export type RegistrationStatus = (typeof REGISTRATION_STATUSES)[number];

export const REGISTRATION_TRANSITIONS = {
  hold: { from: ["pending_payment", "expired", "canceled"], to: "pending_payment" },
  pay: { from: ["pending_payment", "expired", "canceled"], to: "paid" },
  expire: { from: ["pending_payment"], to: "expired" },
  cancelHold: { from: ["pending_payment"], to: "canceled" },
  flagForReview: { from: ["pending_payment", "expired", "canceled"], to: "needs_review" },
  acceptReview: { from: ["needs_review"], to: "paid" },
  refund: { from: ["pending_payment", "paid", "needs_review", "expired", "canceled", "withdrawn", "refund_failed", "deposit_paid", "balance_overdue"], to: "refunded" },
  withdraw: { from: ["paid", "deposit_paid"], to: "withdrawn" },
  refundFailed: { from: ["refunded", "withdrawn"], to: "refund_failed" },
  payDeposit: { from: ["pending_payment", "expired", "canceled"], to: "deposit_paid" },
  payBalance: { from: ["deposit_paid", "balance_overdue"], to: "paid" },
  balanceOverdue: { from: ["deposit_paid"], to: "balance_overdue" },
  releaseOverdue: { from: ["balance_overdue"], to: "withdrawn" },
} as const satisfies Record<string, { from: readonly RegistrationStatus[]; to: RegistrationStatus }>;

export type RegistrationTransition = keyof typeof REGISTRATION_TRANSITIONS;

/**
 * Money was taken or is being settled: package, days, athletes, places and code no longer change. A pending
 * registration whose payment is being confirmed is frozen too; that is the payment's state, not the row's
 * (see `isFrozenPayment`).
 */
export function isSettled(status: RegistrationStatus): boolean {
  return status === "paid" || status === "needs_review" || status === "refunded" || status === "withdrawn" || status === "refund_failed" || status === "deposit_paid" || status === "balance_overdue";
}

/** Stripe statuses of a PaymentIntent whose confirmation has begun: the registration it pays for is frozen. */
export function isFrozenPayment(intentStatus: string): boolean {
  return intentStatus === "processing" || intentStatus === "requires_capture" || intentStatus === "succeeded";
}

export function canTransition(from: RegistrationStatus, step: RegistrationTransition): boolean {
  return (REGISTRATION_TRANSITIONS[step].from as readonly RegistrationStatus[]).includes(from);
}

/** Registered: paid in full, or its deposit paid (the balance charged later, or overdue within its grace days). */
export function isRegistered(status: string): boolean {
  return status === "paid" || status === "deposit_paid" || status === "balance_overdue";
}

/**
 * How a paid registration's change (`registration_changes`: an upgrade, athletes added to a team) may move; the
 * repository's `moveChange` takes its `WHERE status IN (...)` from this table.
 *
 *   pending      -> paid (its payment settled and it applied), expired (not paid in time: the sweep), cancelled (its
 *                   registrant let it go), needs_review (money arrived that does not match it), rejected (paid, but it
 *                   could no longer apply: its payment is refunded)
 *   expired, cancelled -> paid, needs_review, rejected (a payment that arrived late is applied when it still can be)
 *   needs_review -> paid (an operator accepted its payment), rejected
 *
 * Places: a pending change that adds athletes holds them until its `reserved_until`; a paid one's are the team's.
 */
export const CHANGE_STATUSES = ["pending", "paid", "expired", "cancelled", "needs_review", "rejected"] as const;
export type ChangeStatus = (typeof CHANGE_STATUSES)[number];

export const CHANGE_TRANSITIONS = {
  pay: { from: ["pending", "expired", "cancelled", "needs_review"], to: "paid" },
  reject: { from: ["pending", "expired", "cancelled", "needs_review"], to: "rejected" },
  flagForReview: { from: ["pending", "expired", "cancelled"], to: "needs_review" },
  cancel: { from: ["pending"], to: "cancelled" },
  expire: { from: ["pending"], to: "expired" },
} as const satisfies Record<string, { from: readonly ChangeStatus[]; to: ChangeStatus }>;

export type ChangeTransition = keyof typeof CHANGE_TRANSITIONS;
