import type { Site } from "../../shared/site.ts";
import type { OutgoingEmail } from "../../email/outbox.ts";
import type { EventDetail } from "../../shared/events/types.ts";
import { formatPrice } from "../../shared/money.ts";
import { refundLines } from "../../shared/texts.ts";
import { dueDayText } from "../../shared/registrations/deposits.ts";
import { refundText } from "../../shared/registrations/changePolicy.ts";
import type { Registration } from "../core/repository.ts";
import { addresseeOf, attendanceLines, registrationSubject } from "../core/email.ts";
import type { Balance } from "./repository.ts";
import { cardExpiresBefore, cardText } from "./schedule.ts";

/**
 * The balance's e-mails (README: Deposits and balances). Each goes to whoever the registration's e-mails go to: a
 * team's coach, an individual's parent or guardian, or the adult athlete. Links to the manage page are fresh ones,
 * issued in the transaction that queues the e-mail (the outbox drops their secrets once sent: docs/security.md).
 */
function plain(site: Site, r: Registration, kind: string, subject: string, body: string[]): OutgoingEmail {
  const text = [`Hi ${addresseeOf(r).firstName},`, "", ...body, "", `Questions? Reply to this e-mail, write to ${site.email} or call ${site.phone}.`, "", site.displayName].join("\n");
  return { kind, reference: `registration:${r.reference}`, to: addresseeOf(r).email, replyTo: site.email, subject, text };
}

const what = (event: EventDetail, r: Registration) => `${registrationSubject(r)} at ${event.title} (registration ${r.reference})`;
const day = (at: Date, event: EventDetail) => dueDayText(at, event.timeZone);
const cardLine = (b: Balance) => (b.card ? `the saved card, ${cardText(b.card)}` : "the saved card");
/** Stripe's decline message as a sentence of its own. */
const sentence = (message: string) => (/[.!?]$/.test(message.trim()) ? message.trim() : `${message.trim()}.`);

/** 7 and 2 days before the due date: what will be charged, when, to which card; a card that expires first is said. */
export function balanceReminderEmail(site: Site, event: EventDetail, r: Registration, b: Balance, manageUrl: string): OutgoingEmail {
  const dueAt = b.dueAt!;
  const expires = b.card !== null && cardExpiresBefore(b.card, dueAt);
  return plain(site, r, "balance_reminder", `Balance of ${formatPrice(b.owedCents)} due ${day(dueAt, event)}: ${event.title} (${r.reference})`, [
    `The balance for ${what(event, r)} is ${formatPrice(b.owedCents)}. We will charge it on ${day(dueAt, event)} to ${cardLine(b)}.`,
    ...(expires ? ["", "Your card expires before then: update it on your registration's page, or the charge will fail."] : []),
    "",
    `To pay now or use another card, open your registration's page: ${manageUrl}`,
    "",
    ...attendanceLines(event, r),
  ]);
}

/** The balance was paid (charged on its date, or paid on the manage page): the registration is paid in full. */
export function balanceReceiptEmail(site: Site, event: EventDetail, r: Registration, paidCents: number, totalCents: number): OutgoingEmail {
  return plain(site, r, "balance_receipt", `Receipt: balance paid for ${event.title} (${r.reference})`, [
    `We received the balance of ${formatPrice(paidCents)} for ${what(event, r)}. It is paid in full: ${formatPrice(totalCents)}.`,
    "",
    ...attendanceLines(event, r),
  ]);
}

/** A soft decline with attempts left: when the next one is, and how to avoid it. */
export function balanceDeclinedEmail(site: Site, event: EventDetail, r: Registration, b: Balance, declineMessage: string, nextAt: Date, manageUrl: string): OutgoingEmail {
  return plain(site, r, "balance_declined", `Payment declined: balance for ${event.title} (${r.reference})`, [
    `We tried to charge the balance of ${formatPrice(b.owedCents)} for ${what(event, r)} to ${cardLine(b)}, and the bank declined it: ${sentence(declineMessage)} Nothing was charged.`,
    "",
    `We will try again on ${day(nextAt, event)}. To pay now or use another card, open your registration's page: ${manageUrl}`,
  ]);
}

/** The bank asks the cardholder to confirm (3-D Secure): the job does not retry; the payer pays on the manage page. */
export function balanceAuthenticationEmail(site: Site, event: EventDetail, r: Registration, b: Balance, graceEndsAt: Date, manageUrl: string): OutgoingEmail {
  return plain(site, r, "balance_authentication", `Action needed: confirm the balance payment for ${event.title} (${r.reference})`, [
    `Your bank asks you to confirm the balance of ${formatPrice(b.owedCents)} for ${what(event, r)} yourself, so we could not charge ${cardLine(b)}. Nothing was charged.`,
    "",
    `Pay it on your registration's page, where your bank can check it is you: ${manageUrl}`,
    "",
    `The places are kept until ${day(graceEndsAt, event)}; after that they go to the waiting list.`,
  ]);
}

/** A hard decline, or the last attempt failed: the balance is overdue and the places are kept until the grace date. */
export function balanceOverdueEmail(site: Site, event: EventDetail, r: Registration, b: Balance, declineMessage: string, graceEndsAt: Date, manageUrl: string): OutgoingEmail {
  return plain(site, r, "balance_overdue", `Balance overdue: ${event.title} (${r.reference})`, [
    `We could not charge the balance of ${formatPrice(b.owedCents)} for ${what(event, r)} to ${cardLine(b)}: ${sentence(declineMessage)} Nothing was charged, and we will not try that card again.`,
    "",
    `Please pay it on your registration's page, with this card or another: ${manageUrl}`,
    "",
    `The places are kept until ${day(graceEndsAt, event)}; if the balance is still unpaid then, the registration is canceled and the places go to the waiting list.`,
  ]);
}

/** The grace date passed unpaid: the registration is canceled, its places released, the deposit refunded as the policy says. */
export function balanceReleasedEmail(site: Site, event: EventDetail, r: Registration, refund: { cents: number; percent: number; paidCents: number; parts: number[] }): OutgoingEmail {
  return plain(site, r, "balance_released", `Canceled, balance unpaid: ${event.title} (${r.reference})`, [
    `The balance for ${what(event, r)} was not paid by its grace date, so the registration is canceled and its places have gone to the waiting list.`,
    "",
    `Deposit paid: ${formatPrice(refund.paidCents)}. Under our cancellation policy you get ${refundText(refund.cents, refund.percent, refund.paidCents)}.`,
    ...refundLines(refund.parts),
    ...(refund.cents > 0 ? ["The refund goes back to the card that paid; depending on your bank it shows within 5 to 10 business days."] : []),
  ]);
}

/** A balance paid twice (the job's charge and the manage page's at once): the second is refunded in full. */
export function balanceDuplicateRefundEmail(site: Site, event: EventDetail, r: Registration, cents: number): OutgoingEmail {
  return plain(site, r, "balance_refund", `Refund: balance paid twice for ${event.title} (${r.reference})`, [
    `The balance for ${what(event, r)} was already paid when a second payment of ${formatPrice(cents)} arrived. We have refunded that payment in full; depending on your bank it shows within 5 to 10 business days.`,
  ]);
}
