/**
 * A use case refused a request for a reason the visitor can act on; the message is safe to show. Use cases
 * (repositories, rules, checkout, cart) throw these and never an HttpError: the one error handler
 * (src/http/errors.ts) maps each kind to an HTTP status, and a route catches one only to answer differently.
 */
export type DomainErrorKind =
  | "invalid" // the input breaks a rule: 400
  | "not_found" // what it names does not exist (any more): 404
  | "forbidden" // it belongs to someone else: 403
  | "conflict" // the state changed under the visitor (stock, price, cart): 409
  | "unavailable" // a service we depend on is down: 503
  | "upstream_failed"; // a payment or partner service answered with an error: 502

export class DomainError extends Error {
  constructor(
    readonly kind: DomainErrorKind,
    message: string,
  ) {
    super(message);
    this.name = "DomainError";
  }
}
