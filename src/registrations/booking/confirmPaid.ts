import type { Knex } from "knex";
import { findEvent, keptEvent } from "../../events/repository.ts";
import type { PaidOutcome } from "../../payments/core.ts";
import type { PaymentRow } from "../../payments/repository.ts";
import type { Registration } from "../core/registration.ts";
import { transition } from "../core/tables/registrations.ts";
import { REGISTRATION_TRANSITIONS } from "../core/states.ts";
import { redeemUse } from "../core/money/codes.ts";
import { registrationConfirmationEmail } from "../core/email.ts";
import { manageUrl, newManageLink } from "../changes/links.ts";
import { familyLinksAtPayment, writeOutgoing } from "../changes/familyLinks.ts";
import { closeInviteOnPayment } from "./invites/invites.ts";
import { redemptionIn } from "./settlementLocks.ts";
import type { RegistrationDeps } from "../core/deps.ts";

/** A registration's payment accepted in the settling transaction (paymentHandler.ts): its code, its status, its e-mails. */

/** Starts the refund reason of a payment refused because the discount code's last use went to someone else. */
export const DISCOUNT_REJECTION = "discount: ";

/**
 * Registrations on a deposit plan whose payment onPaid accepted in this process, for afterPaid (after the commit) to
 * keep their card; the others' afterPaid reads nothing. An entry left by a transaction that then failed is taken by
 * the next settlement of the same registration.
 */
export const depositsPaid = new Set<string>();

/**
 * The visitor's own return (confirmReturn.ts) asks for the confirmation page's manage link too: written with the
 * e-mail's in one insert, its token here once written (for the visitor's session: links.ts keepPageLink).
 */
export class PageLinkAsk {
  token: string | undefined;
}
export const asPageLinkAsk = (context: unknown) => (context instanceof PageLinkAsk ? context : undefined);

/** The registration takes the payment: its code's use is redeemed, it is paid and the payer gets the confirmation. */
export async function confirmPaid(deps: RegistrationDeps, trx: Knex.Transaction, r: Registration, payment: PaymentRow, step: "pay" | "payDeposit" | "acceptReview", held: boolean, now: Date, underLock: boolean, page?: PageLinkAsk): Promise<PaidOutcome> {
  const discount = await redeemUse(trx, r.id, held, now, underLock ? redemptionIn.get(trx) : undefined);
  if ("reject" in discount) return { reject: `${DISCOUNT_REJECTION}${discount.reject}` };
  const fields = { amount_paid_cents: payment.amountCents, paid_at: now, reserved_until: null };
  // `r` read under this transaction's lock (expected): the transition needs no read of its own.
  await transition(trx, r.id, step, now, fields, underLock ? r : undefined);
  // The row as just written (the transition's target is paid), without reading it back under the lock.
  const paid: Registration = { ...r, status: REGISTRATION_TRANSITIONS[step].to, amountPaidCents: payment.amountCents, paidAt: now, reservedUntil: null };
  if (r.deposit) depositsPaid.add(r.reference);
  // The e-mail's event as every instance keeps it (queueKey made sure of it before the transaction); read here only when it was emptied meanwhile.
  const event = keptEvent(deps.db, paid.eventId) ?? (await findEvent(trx, paid.eventId));
  if (event) {
    // The payer's link and confirmation, the page's link when the return asked, and a team's family links and e-mails:
    // one insert for the links, one for the e-mails.
    const link = newManageLink(paid.id, "confirmation", now);
    const pageLink = page ? newManageLink(paid.id, "page", now) : undefined;
    const confirmation = registrationConfirmationEmail(deps.site, event, paid, discount.redemption, manageUrl(deps.publicUrl, link.token));
    const family = await familyLinksAtPayment(trx, deps, event, await closeInviteOnPayment(trx, paid, now), now);
    await writeOutgoing(trx, { links: [link.row, ...family.links, ...(pageLink ? [pageLink.row] : [])], emails: [confirmation, ...family.emails] });
    if (page && pageLink) page.token = pageLink.token;
  }
  return "accepted";
}
