import { balanceOwed } from "../core/money/deposit.ts";
import type { Site } from "../../shared/site.ts";
import type { OutgoingEmail } from "../../email/outbox.ts";
import type { EventDetail } from "../../shared/events/types.ts";
import { refundLines, stampText } from "../../shared/texts.ts";
import { formatPrice } from "../../shared/money.ts";
import type { Registration, RegistrationAthlete } from "../core/registration.ts";
import { addresseeOf, attendanceLines, registrationSubject } from "../core/email.ts";
import { cancellationPolicyLines, refundText } from "../../shared/registrations/changePolicy.ts";

/** Who a registration's e-mails are about: the athlete, or the team. */
function subjectOf(r: Registration): string {
  if (r.kind === "team") return r.teamName ?? `${r.contact.firstName} ${r.contact.lastName}'s team`;
  const a = r.athletes[0]!;
  return `${a.firstName} ${a.lastName}`;
}

function plain(site: Site, r: Registration, kind: OutgoingEmail["kind"], subject: string, body: string[]): OutgoingEmail {
  const text = [`Hi ${addresseeOf(r).firstName},`, "", ...body, "", `Questions? Reply to this e-mail, write to ${site.email} or call ${site.phone}.`, "", site.displayName].join("\n");
  return { kind, reference: `registration:${r.reference}`, to: addresseeOf(r).email, replyTo: site.email, subject, text };
}

/** "Lost your confirmation?": a new private link to the registration. */
export function manageLinkEmail(site: Site, event: EventDetail, r: Registration, url: string): OutgoingEmail {
  return plain(site, r, "registration_manage_link", `Your registration link: ${event.title} (${r.reference})`, [
    `Here is the private link to ${subjectOf(r)}'s registration for ${event.title} (reference ${r.reference}), as you asked:`,
    "",
    url,
    "",
    "It shows the registration as it stands and lets you change the details or cancel until the event's deadline. Anyone with the link can open it, so keep it to yourself.",
    "",
    ...attendanceLines(event, r),
    "",
    "If you did not ask for this e-mail, you can ignore it.",
  ]);
}

/** The reminder before the freeze date to a registration made without its parent or guardian contact. */
export function guardianReminderEmail(site: Site, event: EventDetail, r: Registration, url: string, until: string): OutgoingEmail {
  const first = r.athletes[0]!.firstName;
  return plain(site, r, "registration_guardian_reminder", `Reminder: ${subjectOf(r)}'s parent or guardian contact: ${event.title}`, [
    `${subjectOf(r)}'s registration for ${event.title} (reference ${r.reference}) still has no parent or guardian contact. Please add their name, e-mail and phone, or tick "The athlete is 18 or older", under "Change the details" ${until}:`,
    "",
    url,
    "",
    `Anyone with the link can open ${first}'s registration, so keep it to yourself.`,
    "",
    ...attendanceLines(event, r),
  ]);
}

/** What a family's e-mail asks for, and until when (the event's freeze date, in its own time zone). */
export interface FamilyDue {
  until: string;
  /** What the athlete's record still lacks (`missingFor`): the waiver and medical release, for a minor. */
  missing: string[];
  minor: boolean;
}

/**
 * A team athlete's family gets its own link (at payment, when the coach resends it, and as a reminder before the
 * freeze date): greets the family (the parent named on the roster; an athlete of 18 or more, by name), names the
 * athlete, the coach and the team, says what is still needed and until when, and lists the days and hours.
 */
export function familyLinkEmail(site: Site, event: EventDetail, r: Registration, athlete: RegistrationAthlete, url: string, due: FamilyDue, reminder = false): OutgoingEmail {
  const name = `${athlete.firstName} ${athlete.lastName}`;
  const first = athlete.firstName;
  const team = subjectOf(r);
  const needs = [
    `- check ${first}'s details and ${due.minor ? "your" : "the emergency"} contact, and add any medical conditions, allergies or other needs our staff should know`,
    ...(due.missing.length > 0 ? [`- sign the ${due.missing.join(" and the ")}${due.minor ? ` (a parent or legal guardian: ${first} is under 18)` : ""}`] : []),
  ];
  const text = [
    `Hi ${due.minor ? athlete.emergencyContactName : first},`,
    "",
    ...(reminder && due.missing.length > 0 ? [`A reminder: ${first}'s registration still needs the ${due.missing.join(" and the ")}, and details can change only ${due.until}.`, ""] : []),
    `${r.contact.firstName} ${r.contact.lastName} has registered ${name} for ${event.title} with ${team} (reference ${r.reference}), and ${balanceOwed(r) > 0 ? "the place is booked (the team's balance is its coach's to pay)" : "the registration is paid"}.`,
    "",
    `Your private link, for ${first} only:`,
    url,
    "",
    `What we need from you ${due.until}:`,
    ...needs,
    `After that date only the medical notes can change.${due.missing.length === 0 ? ` Nothing else is missing for ${first}.` : ""}`,
    "",
    ...attendanceLines(event, r),
    "",
    `Anyone with the link can open ${first}'s details, so keep it to yourself. Questions? Reply to this e-mail, write to ${site.email} or call ${site.phone}.`,
    "",
    site.displayName,
  ].join("\n");
  const subject = `${reminder ? "Reminder: " : ""}${name}: ${event.title} with ${team}`;
  return { kind: reminder ? "registration_family_reminder" : "registration_family_link", reference: `registration:${r.reference}`, to: athlete.email, replyTo: site.email, subject, text };
}

/** A change made through the manage link, confirmed to the contact with the registration as it now stands. */
export function registrationChangedEmail(site: Site, event: EventDetail, r: Registration, what: string[]): OutgoingEmail {
  const athletes = r.athletes.map((a) => `- ${a.firstName} ${a.lastName}${a.shirtSize ? `, shirt ${a.shirtSize}` : ""}, emergency contact ${a.emergencyContactName} ${a.emergencyContactPhone}`);
  return plain(site, r, "registration_changed", `Registration changed: ${event.title} (${r.reference})`, [
    `${subjectOf(r)}'s registration for ${event.title} (reference ${r.reference}) was changed through its manage link: ${what.join(", ")}.`,
    "",
    ...attendanceLines(event, r),
    "",
    r.kind === "team" ? "Athletes:" : "Athlete:",
    ...athletes,
    "",
    `If you did not make this change, write to ${site.email} at once.`,
  ]);
}

/** The receipt of a cancellation: what was canceled, when, and what the policy refunds. */
export function registrationCanceledEmail(site: Site, event: EventDetail, r: Registration, refund: { cents: number; percent: number; paidCents: number; parts?: number[] }, at: Date): OutgoingEmail {
  return plain(site, r, "registration_canceled", `Canceled: ${event.title} (${r.reference})`, [
    `${subjectOf(r)}'s registration for ${event.title} (reference ${r.reference}) was canceled on ${stampText(at, event.timeZone)}. ${r.kind === "team" ? "The team's places are" : "The place is"} free for someone else.`,
    "",
    ...attendanceLines(event, r),
    "",
    `Amount paid: ${formatPrice(refund.paidCents)}`,
    `Under our cancellation policy you get ${refundText(refund.cents, refund.percent, refund.paidCents)}.`,
    ...refundLines(refund.parts ?? (refund.cents > 0 ? [refund.cents] : [])),
    ...(refund.cents > 0 ? ["The refund goes back to the card that paid; we e-mail you again when Stripe confirms it. Depending on your bank it shows within 5 to 10 business days."] : []),
    "",
    "Our camp refund and cancellation policy:",
    ...cancellationPolicyLines().map((l) => `- ${l}`),
  ]);
}

/** A coach withdrew one athlete from the team: the family hears it from us too (any refund goes to the coach's card). */
export function athleteWithdrawnEmail(site: Site, event: EventDetail, r: Registration, athlete: RegistrationAthlete, at: Date, minor: boolean): OutgoingEmail {
  const name = `${athlete.firstName} ${athlete.lastName}`;
  const text = [
    `Hi ${minor ? athlete.emergencyContactName : athlete.firstName},`,
    "",
    `${r.contact.firstName} ${r.contact.lastName} withdrew ${name} from ${subjectOf(r)}'s registration for ${event.title} (reference ${r.reference}) on ${stampText(at, event.timeZone)}. ${athlete.firstName}'s place is free for someone else, and the private link we sent you for ${athlete.firstName} no longer opens.`,
    "",
    `The team paid for the place, so any refund goes to the card that paid; please ask ${r.contact.firstName} about it. If this is a mistake, ${r.contact.firstName} can write to us at ${site.email}.`,
    "",
    site.displayName,
  ].join("\n");
  return { kind: "registration_athlete_withdrawn", reference: `registration:${r.reference}`, to: athlete.email, replyTo: site.email, subject: `${name} withdrawn: ${event.title} with ${subjectOf(r)}`, text };
}

/** A change paid for when it could no longer be made (the registration changed, the deadline passed): its payment is refunded. */
export function changeRefundedEmail(site: Site, event: EventDetail, r: Registration, cents: number): OutgoingEmail {
  return plain(site, r, "registration_change_refunded", `Change refunded: ${event.title} (${r.reference})`, [
    `The change you paid for on ${subjectOf(r)}'s registration for ${event.title} (reference ${r.reference}) could no longer be made when the payment arrived, so nothing changed and we refunded the ${formatPrice(cents)} to your card.`,
    "Depending on your bank it shows within 5 to 10 business days.",
    "",
    ...attendanceLines(event, r),
  ]);
}

/** The payer's correction: the refund they were told of did not reach them; the money is still with the shop. */
export function refundFailedEmail(site: Site, event: EventDetail, r: Registration, refundCents: number): OutgoingEmail {
  const text = [
    `Hi ${r.contact.firstName},`,
    "",
    `The refund of ${formatPrice(refundCents)} for ${registrationSubject(r)} at ${event.title} (registration ${r.reference}) did not go through: your card company sent it back to us, so the money is still with us.`,
    "We are sending it again to the same card; depending on your bank it shows within 5 to 10 business days, and we will write to you only if it comes back again. If the card you paid with is closed, reply to this e-mail and tell us how you would like to be refunded.",
    "",
    `Questions? Reply to this e-mail, write to ${site.email} or call ${site.phone}.`,
    "",
    site.displayName,
  ].join("\n");
  return { kind: "registration_refund_failed", reference: `registration:${r.reference}`, to: r.contact.email, replyTo: site.email, subject: `Your refund did not go through: ${event.title} (${r.reference})`, text };
}
