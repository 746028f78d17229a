import type { Site } from "../../shared/site.ts";
import type { OutgoingEmail } from "../../email/outbox.ts";
import type { EventDetail } from "../../shared/events/types.ts";
import { formatPrice } from "../../shared/money.ts";
import { refundLines } from "../../shared/texts.ts";
import { dueDayText } from "../../shared/registrations/deposits.ts";
import { refundText } from "../../shared/registrations/changePolicy.ts";
import type { Registration } from "../core/registration.ts";
import { addresseeOf, attendanceLines, registrationSubject } from "../core/email.ts";
import type { Balance } from "./repository.ts";
import { cardExpiresBefore, cardText } from "./schedule.ts";

const escapeHtml = (s: string) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");

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

type Fact = [string, string];

/**
 * A receipt-like e-mail as the other receipts are sent (src/registrations/core/email.ts): the text, and HTML with the
 * same facts in a table (date, card, the breakdown) and the same link.
 */
function withFacts(site: Site, r: Registration, kind: string, subject: string, parts: { heading: string; lead: string[]; facts: Fact[]; after: string[]; link?: { text: string; url: string } }): OutgoingEmail {
  const email = plain(site, r, kind, subject, [...parts.lead, "", ...parts.facts.map(([k, v]) => `${k}: ${v}`), "", ...(parts.link ? [`${parts.link.text} ${parts.link.url}`, ""] : []), ...parts.after]);
  const html = `<!doctype html><html><body style="font-family:Arial,sans-serif;color:#111">
<h1 style="font-size:20px">${escapeHtml(parts.heading)}</h1>
<p>Hi ${escapeHtml(addresseeOf(r).firstName)},</p>
${parts.lead.map((line) => `<p>${escapeHtml(line)}</p>`).join("\n")}
<table cellpadding="6" style="border-collapse:collapse">${parts.facts.map(([k, v]) => `<tr><th align="left">${escapeHtml(k)}</th><td>${escapeHtml(v)}</td></tr>`).join("")}</table>
${parts.link ? `<p>${escapeHtml(parts.link.text)}<br><a href="${escapeHtml(parts.link.url)}">Your registration</a></p>` : ""}
<p>Questions? Write to ${escapeHtml(site.email)} or call ${escapeHtml(site.phone)}.</p>
<p>${escapeHtml(site.displayName)}</p></body></html>`;
  return { ...email, html };
}

/** The balance's breakdown: the registration's price, what was paid before, and this balance. */
const breakdown = (totalCents: number, paidBeforeCents: number, balanceCents: number): Fact[] => [
  ["Total", formatPrice(totalCents)],
  ["Paid before", formatPrice(paidBeforeCents)],
  ["Balance", formatPrice(balanceCents)],
];

/** 7 and 2 days before the due date: what will be charged, when, to which card; a card that expires first is said. */
export function balanceReminderEmail(site: Site, event: EventDetail, r: Registration, b: Balance, manageUrl: string): OutgoingEmail {
  const dueAt = b.dueAt!;
  const expires = b.card !== null && cardExpiresBefore(b.card, dueAt);
  return withFacts(site, r, "balance_reminder", `Balance of ${formatPrice(b.owedCents)} due ${day(dueAt, event)}: ${event.title} (${r.reference})`, {
    heading: `Your balance of ${formatPrice(b.owedCents)} is due on ${day(dueAt, event)}`,
    lead: [
      `The balance for ${what(event, r)} is ${formatPrice(b.owedCents)}. We will charge it on ${day(dueAt, event)} to ${cardLine(b)}.`,
      ...(expires ? ["Your card expires before then: update it on your registration's page, or the charge will fail."] : []),
    ],
    facts: [["Registration reference", r.reference], ["Event", event.title], ["Charge date", day(dueAt, event)], ["Card", b.card ? cardText(b.card) : "the saved card"], ...breakdown(b.amountCents, b.paidCents, b.owedCents)],
    link: { text: "To pay now or use another card, open your registration's page:", url: manageUrl },
    after: attendanceLines(event, r),
  });
}

/**
 * The balance was paid (charged on its date, or paid on the manage page): the registration is paid in full. The card
 * is named when the job charged the saved one (off session); paid on the page, it is the card the payer chose there.
 */
export function balanceReceiptEmail(site: Site, event: EventDetail, r: Registration, paidCents: number, totalCents: number, paid: { at: Date; savedCardCharged: boolean }): OutgoingEmail {
  const card = paid.savedCardCharged && r.deposit?.card ? cardText(r.deposit.card) : "the card you paid with";
  return withFacts(site, r, "balance_receipt", `Receipt: balance paid for ${event.title} (${r.reference})`, {
    heading: `Balance paid: ${event.title}`,
    lead: [`We received the balance of ${formatPrice(paidCents)} for ${what(event, r)}. It is paid in full: ${formatPrice(totalCents)}.`],
    facts: [["Registration reference", r.reference], ["Event", event.title], ["Paid on", day(paid.at, event)], ["Card", card], ...breakdown(totalCents, totalCents - paidCents, paidCents), ["Still owed", formatPrice(0)]],
    after: attendanceLines(event, r),
  });
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
