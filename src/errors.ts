/**
 * A use case refused a request for a reason the visitor can act on; the message is safe to show. Use cases
 * (repositories, rules, checkout, cart) throw these and never an HttpError: the one error handler
 * (src/http/errors.ts) maps each kind to an HTTP status, and a route catches one only to answer differently.
 * A route that answers one refusal differently decides by its `reason`, never by the message's words.
 */
export type DomainErrorKind =
  | "invalid" // the input breaks a rule: 400
  | "unprocessable" // the input is well formed but names something that cannot be used (a discount code): 422
  | "not_found" // what it names does not exist (any more): 404
  | "forbidden" // it belongs to someone else: 403
  | "conflict" // the state changed under the visitor (stock, price, cart): 409
  | "unavailable" // a service we depend on is down: 503
  | "upstream_failed"; // a payment or partner service answered with an error: 502

/** Why a discount code was refused (core/money/codes.ts's DiscountRefused). */
export type DiscountRefusalReason =
  | "discount_missing" // no code typed
  | "discount_too_long"
  | "discount_unknown" // no such code
  | "discount_not_usable" // inactive, expired, not yet valid, used up, for another event or kind
  | "discount_not_free" // the free completion with a code that does not make the registration free
  | "discount_no_registration" // no registration waiting for payment
  | "discount_payment_under_way" // a card payment of the registration is being confirmed
  | "discount_free_failed"; // the free completion lost a race with a card payment

/** The refusals a route answers in its own way: a closed list, so each decision names one. */
export type RefusalReason =
  | "registration_closed" // the event's registration has closed (or the event is gone)
  | "sold_out" // fewer places left than asked for
  | DiscountRefusalReason;

export class DomainError extends Error {
  constructor(
    readonly kind: DomainErrorKind,
    message: string,
    readonly reason?: RefusalReason,
  ) {
    super(message);
    this.name = "DomainError";
  }
}
