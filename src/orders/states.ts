import type { OrderStatus } from "../shared/orders/types.ts";

/**
 * The one place that says how an order's status may change (like src/payments/transitions.ts for payments and
 * src/registrations/core/states.ts for registrations). The repository's updates take their `WHERE status IN (...)`
 * from this table, so of two callers of the same step one changes the row.
 *
 *   pending_payment -> paid (its payment settled), canceled (a new checkout of the cart replaced it, or its
 *                      PaymentIntent could not be made)
 *   canceled        -> paid (a payment for it arrived after all: the money is never dropped)
 */
export const ORDER_TRANSITIONS = {
  pay: { from: ["pending_payment", "canceled"], to: "paid" },
  cancel: { from: ["pending_payment"], to: "canceled" },
} as const satisfies Record<string, { from: readonly OrderStatus[]; to: OrderStatus }>;

export type OrderTransition = keyof typeof ORDER_TRANSITIONS;
