import type { Request } from "express";
import type { EventDetail } from "../../shared/events/types.ts";
import { RegistrationConfirmed, RegistrationNotConfirmed } from "../../../views/pages/registration/RegisterPage.tsx";
import * as repo from "../repository.ts";
import { REGISTRATION_KIND, type RegistrationDeps } from "../deps.ts";
import { confirmationPageManageHref } from "./manageLink.tsx";
import { ownReference } from "./shared.tsx";

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
  let registration = reference ? await repo.findByReference(db, reference) : undefined;
  let payment = reference ? await paymentCore.latestFor(REGISTRATION_KIND, reference) : undefined;
  // The visitor's own paid registration says paid however it is reached (whichever intent the link names).
  const matches = registration && (registration.status === "paid" || !intentId || payment?.providerPaymentId === intentId);
  let processing = false;
  // The browser came back before anything recorded the payment: ask Stripe through the core.
  if (matches && registration!.status !== "paid" && payment?.providerPaymentId && intentId) {
    try {
      const settled = await paymentCore.settle(payment.providerPaymentId, "return");
      processing = settled.status === "pending" && settled.intentStatus === "processing";
    } catch (err) {
      req.log.error({ err: (err as Error).message, reference }, "could not confirm the registration payment");
    }
    registration = await repo.findByReference(db, reference!);
    payment = await paymentCore.latestFor(REGISTRATION_KIND, reference!);
  }
  if (matches && registration!.status === "paid") {
    const manageHref = await confirmationPageManageHref(req, deps, registration!);
    return <RegistrationConfirmed email={registration!.contact.email} reference={registration!.reference} eventTitle={event.title} free={registration!.amountPaidCents === 0} manageHref={manageHref} />;
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
  return <RegistrationNotConfirmed email={site.email} phone={site.phone} />;
}
