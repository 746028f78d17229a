import type { Request } from "express";
import type { EventDetail } from "../../../shared/events/types.ts";
import { PaymentReceived, RegistrationConfirmed, RegistrationNotConfirmed, RegistrationSeenElsewhere } from "../../../../views/pages/registration/RegisterPage.tsx";
import type { Registration } from "../../core/registration.ts";
import { findByReference } from "../../core/tables/registrations.ts";
import * as payments from "../../../payments/repository.ts";
import { formatPrice } from "../../../shared/money.ts";
import { addresseeOf } from "../../core/email.ts";
import { REGISTRATION_KIND, type RegistrationDeps } from "../../core/deps.ts";
import { confirmationPageManageHref } from "../../changes/links.ts";
import { ownReference } from "../../core/routeKit.tsx";
import { isRegistered } from "../../core/states.ts";
import { balanceOwed } from "../../core/money/deposit.ts";
import { DEPOSIT_TEXT } from "../../../shared/registrations/deposits.ts";

/**
 * What the payment step shows when the card was charged (or the bank is confirming it) before this site recorded the
 * payment: the core found it so (PaymentNotOpenError) and settled what it could. Null when the registration went to
 * review (the caller shows "not confirmed").
 */
export async function paymentReceivedContent(deps: RegistrationDeps, req: Request, event: EventDetail, reference: string): Promise<React.ReactElement | null> {
  const r = await findByReference(deps.db, reference);
  if (!r || r.status === "needs_review") return null;
  const paid = isRegistered(r.status);
  const manageHref = paid ? await confirmationPageManageHref(req, deps, r) : undefined;
  return <PaymentReceived eventTitle={event.title} email={addresseeOf(r).email} paid={paid} manageHref={manageHref} />;
}

/**
 * What /register/{id}?paymentSuccess=true and /event-registration/{id} show: the confirmation, for a payment the
 * server confirmed for this visitor's registration; anything else is neutral.
 */
export async function confirmationContent(deps: RegistrationDeps, req: Request, event: EventDetail): Promise<React.ReactNode> {
  const { db, site, paymentCore } = deps;
  const reference = ownReference(req, event.id);
  // `payment_intent` is what Stripe appends when it sends the visitor back from a redirect (3-D Secure).
  const named = req.query.paymentIntentId ?? req.query.payment_intent;
  const intentId = typeof named === "string" ? named.slice(0, 200) : undefined;
  let registration = reference ? await findByReference(db, reference) : undefined;
  // A paid registration says paid whatever its payment says: the payment is read only for one not paid (yet).
  let payment = registration && !isRegistered(registration.status) ? await paymentCore.latestFor(REGISTRATION_KIND, registration.reference) : undefined;
  // The visitor's own paid registration says paid however it is reached (whichever intent the link names).
  const matches = registration && (isRegistered(registration.status) || !intentId || payment?.providerPaymentId === intentId);
  let processing = false;
  // The browser came back before anything recorded the payment: ask Stripe through the core.
  if (matches && !isRegistered(registration!.status) && payment?.providerPaymentId && intentId) {
    try {
      const settled = await paymentCore.settle(payment.providerPaymentId, "return");
      processing = settled.status === "pending" && settled.intentStatus === "processing";
    } catch (err) {
      req.log.error({ err: (err as Error).message, reference }, "could not confirm the registration payment");
    }
    registration = await findByReference(db, reference!);
    payment = await paymentCore.latestFor(REGISTRATION_KIND, reference!);
  }
  if (matches && isRegistered(registration!.status)) {
    const manageHref = await confirmationPageManageHref(req, deps, registration!);
    return (
      <RegistrationConfirmed email={addresseeOf(registration!).email} reference={registration!.reference} eventTitle={event.title} free={registration!.amountPaidCents === 0}
        manageHref={manageHref} facts={boughtFacts(event, registration!)} />
    );
  }
  if (matches && (payment?.status === "needs_review" || registration!.status === "needs_review")) {
    return (
      <RegistrationNotConfirmed email={site.email} phone={site.phone} title="Payment Successful - Action Required"
        message={`Your card was charged but we could not record your registration ${registration!.reference}. Please contact support immediately with your payment confirmation.`} />
    );
  }
  if (matches && processing) {
    return (
      <RegistrationNotConfirmed email={site.email} phone={site.phone} title="Payment processing"
        message={`Your bank is still confirming the payment for registration ${registration!.reference}. We'll e-mail you as soon as it is confirmed; your place is kept meanwhile.`} />
    );
  }
  if (!matches && intentId) {
    const elsewhere = await seenElsewhere(deps, event, intentId);
    if (elsewhere) return elsewhere;
  }
  return <RegistrationNotConfirmed email={site.email} phone={site.phone} />;
}

/**
 * The confirmation address opened in another browser (another device, a shared link): the PaymentIntent it names
 * is all it proves, so the page says what that payment bought (event, package, days, amount) and where the private
 * link went, never who registered, their address, the reference or the manage link.
 */
async function seenElsewhere(deps: RegistrationDeps, event: EventDetail, intentId: string): Promise<React.ReactNode> {
  const payment = await payments.findByIntentId(deps.db, intentId);
  if (!payment || payment.kind !== REGISTRATION_KIND) return null;
  const registration = await findByReference(deps.db, payment.reference);
  if (!registration || registration.eventId !== event.id || registration.kind !== "individual") return null;
  const state = isRegistered(registration.status) ? (balanceOwed(registration) > 0 ? "deposit_paid" : "paid") : registration.status === "withdrawn" || registration.status === "canceled" || registration.status === "refunded" ? "canceled" : null;
  if (!state) return null;
  return <RegistrationSeenElsewhere state={state} eventTitle={event.title} dateText={event.dateText} facts={boughtFacts(event, registration)} />;
}

/** What a registration bought, as its confirmation lists it: package, days, amount paid (and refunded), the balance owed and its date. */
export function boughtFacts(event: EventDetail, r: Registration): [string, string][] {
  const rows: [string, string][] = [
    ["Package", r.kind === "team" ? `${r.packageLabel} (${r.places} athletes)` : r.packageLabel],
    ["Days", event.days.filter((d) => r.dayIds.includes(d.id)).map((d) => d.label).join("; ")],
    ["Amount paid", formatPrice(r.amountPaidCents ?? 0)],
  ];
  if (r.amountRefundedCents > 0) rows.push(["Refunded", formatPrice(r.amountRefundedCents)]);
  const owed = balanceOwed(r);
  if (r.deposit && owed > 0) rows.push(["Balance due", DEPOSIT_TEXT.owed(owed, r.deposit.balanceDueAt, event.timeZone)]);
  return rows;
}
