import { DomainError } from "../../../errors.ts";
import type { EnsureIntentInput } from "../../../payments/core.ts";
import { OPEN_STATUSES } from "../../../payments/transitions.ts";
import { findEvent } from "../../../events/repository.ts";
import type { Registration } from "../registration.ts";
import type { PaymentRow } from "../../../payments/repository.ts";
import { isFrozenPayment } from "../states.ts";
import { REGISTRATION_KIND, type RegistrationDeps } from "../deps.ts";
import { amountDueNow, depositCustomer, paysDeposit } from "./deposit.ts";

/** The spec's answer when the payment cannot be set up (Stripe refused or did not answer). */
export const PAYMENT_SETUP_ERROR = {
  title: "Payment Setup Error",
  message: "Payment system is temporarily unavailable. Please try again in a few moments.",
} as const;

/** The same form again while Stripe still runs its first request (hung or slow): the hold stays, the visitor waits. */
export const PAYMENT_STILL_CONFIRMING = "We are still confirming with the card company, try again in a minute.";

/** What Stripe's dashboard and the card statement's receipt say about a registration's payment. */
export function intentDescription(event: { title: string }, r: Registration): string {
  return r.kind === "team"
    ? `${event.title}: team of ${r.places}${r.teamName ? ` (${r.teamName})` : ""} (${r.reference})`
    : `${event.title}: ${r.packageLabel} (${r.reference})`;
}

/**
 * The one place that asks the payment core for a registration's PaymentIntent: created, reused, or given the
 * registration's present amount (its deposit on plan deposit, the card then saved on a Stripe Customer for the balance),
 * and tied to its present version. Null when the registration is free (no Stripe call). `claimed`: its payment,
 * claimed in the transaction that wrote the registration (the hold of a new one).
 */
export async function preparePayment(deps: RegistrationDeps, r: Registration, claimed?: PaymentRow): Promise<string | null> {
  if (r.amountCents === 0) return null;
  const event = await findEvent(deps.db, r.eventId);
  const input: EnsureIntentInput = {
    kind: REGISTRATION_KIND,
    reference: r.reference,
    amountCents: amountDueNow(r),
    version: r.version,
    description: intentDescription(event ?? { title: "Event" }, r),
    email: r.contact.email,
    claimed,
  };
  const customerId = paysDeposit(r) ? await depositCustomer(deps, r) : null;
  if (customerId) input.saveCard = { customerId };
  const { clientSecret } = await deps.paymentCore.ensureIntent(input);
  return clientSecret;
}

/**
 * Whether the registration's payment is confirmed or being confirmed (Stripe says processing or succeeded, or the
 * payment is already settled): then the registration is frozen. A confirmed payment is settled here at once, so the
 * answer the visitor gets says what happened to it.
 */
export async function paymentUnderWay(deps: RegistrationDeps, reference: string): Promise<boolean> {
  const live = await deps.paymentCore.liveFor(REGISTRATION_KIND, reference);
  if (!live) return false;
  if (!OPEN_STATUSES.includes(live.status)) return true;
  if (!live.providerPaymentId) return false;
  let status: string;
  try {
    status = (await deps.paymentCore.gateway.retrieveIntent(live.providerPaymentId)).status;
  } catch (err) {
    // Without Stripe's word the registration cannot be known to be unpaid: nothing changes.
    deps.logger.warn({ err: (err as Error).message, reference }, "could not ask Stripe whether a registration's payment is under way");
    throw new DomainError("upstream_failed", PAYMENT_SETUP_ERROR.message);
  }
  if (!isFrozenPayment(status)) return false;
  // Settled now when it can be; if not, the return or the webhook settles it, and the registration stays as it is.
  await deps.paymentCore.settle(live.providerPaymentId, "return").catch((err: Error) => deps.logger.warn({ err: err.message, reference }, "payment under way not settled yet"));
  return true;
}

