import { attendedDayIdsOf, familyLines } from "./family.ts";
import { familyFactRows } from "../../shared/registrations/siblings.ts";
import { calendarFile } from "../../email/icalendar.ts";
import type { Site } from "../../shared/site.ts";
import type { OutgoingEmail } from "../../email/outbox.ts";
import type { EventDetail } from "../../shared/events/types.ts";
import { formatPrice } from "../../shared/money.ts";
import { eventHoursText } from "../../shared/events/rules.ts";
import { refundLines } from "../../shared/texts.ts";
import type { Registration } from "./registration.ts";
import { FAMILIES_EMAILED } from "../../shared/registrations/teamRules.ts";
import { balanceLine } from "../../shared/registrations/deposits.ts";

/**
 * Who a registration's e-mails greet and go to: an individual athlete's parent or guardian when the form named one
 * (an athlete under 18), else the registration's contact (an adult athlete, a team's coach).
 */
export function addresseeOf(r: Pick<Registration, "contact" | "guardian">): { firstName: string; email: string } {
  if (!r.guardian) return { firstName: r.contact.firstName, email: r.contact.email };
  return { firstName: r.guardian.name.split(/\s+/)[0] || r.guardian.name, email: r.guardian.email };
}
/** The discount code a registration used, as the e-mail shows it. */
export interface EmailDiscount {
  code: string;
  amountOffCents: number;
}

const escapeHtml = (s: string) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");

/** What every athlete brings; the same list for each camp. */
const WHAT_TO_BRING = [
  "Wrestling shoes, headgear and a mouthguard",
  "Two changes of practice clothes and a towel",
  "A water bottle and healthy snacks",
  "This e-mail (or your registration reference) for check-in",
];

function attendedDays(event: EventDetail, registration: Registration) {
  const ids = attendedDayIdsOf(registration);
  return event.days.filter((d) => ids.includes(d.id));
}

/** Who a registration is for, as its e-mails name it: the athlete, or the team ('Steel City WC's 6 athletes'). */
export function registrationSubject(r: Registration): string {
  if (r.kind === "team") return `${r.teamName ?? `${r.contact.firstName} ${r.contact.lastName}'s team`}'s ${r.places} athletes`;
  const names = r.athletes.filter((a) => !a.withdrawnAt).map((a) => `${a.firstName} ${a.lastName}`);
  if (names.length > 1) return `${names.slice(0, -1).join(", ")} and ${names.at(-1)}`;
  return names[0] ?? "your registration";
}

/** Each attended day with the daily hours, in the event's own time zone: 'Saturday, June 5: 9:00 AM - 4:00 PM PDT'. */
export function attendanceLines(event: EventDetail, registration: Registration): string[] {
  const hours = eventHoursText(event);
  return ["Days:", ...attendedDays(event, registration).map((d) => `- ${d.label}${hours ? `: ${hours}` : ""}`), `Location: ${event.location}`];
}

/** The calendar file: one all-day event per attended day. */
export function registrationCalendar(site: Site, event: EventDetail, registration: Registration): string {
  const uidHost = `${site.brandName.toLowerCase()}-registration`;
  return calendarFile({
    name: site.displayName,
    events: attendedDays(event, registration).map((d) => ({
      uid: `${registration.reference}-${d.date}@${uidHost}`,
      date: d.date,
      summary: `${event.title} (${d.label})`,
      description: `${registration.packageLabel}, ${event.time}. Registration ${registration.reference}.`,
      location: event.location,
    })),
  });
}

/** The registration confirmation, queued in the transaction that marks the registration paid. */
export function registrationConfirmationEmail(site: Site, event: EventDetail, registration: Registration, discount?: EmailDiscount, manageUrl?: string): OutgoingEmail {
  if (registration.kind === "team") return teamRosterEmail(site, event, registration, discount, manageUrl);
  const athlete = registration.athletes[0]!;
  const days = attendedDays(event, registration).map((d) => d.label);
  const family = familyLines(event, registration);
  const facts: Fact[] = [
    ["Registration reference", registration.reference],
    ["Event", event.title],
    ["Dates", event.dateText],
    ["Time", eventHoursText(event)],
    ["Location", event.location],
    ...(family
      ? familyFactRows(family)
      : ([
          ["Package", registration.packageLabel],
          ["Days", days.join(", ")],
          ["Athlete", `${athlete.firstName} ${athlete.lastName}`],
        ] as Fact[])),
    ...discountFact(discount),
    ["Amount paid", amountPaid(registration)],
    ...balanceFact(event, registration),
  ];
  return confirmation(site, event, registration, {
    kind: "registration_confirmation",
    subject: `You're registered: ${event.title} (${registration.reference})`,
    intro: family ? `${registrationSubject(registration)} are registered for ${event.title}.` : `${athlete.firstName} ${athlete.lastName} is registered for ${event.title}.`,
    headingHtml: `You're registered for ${escapeHtml(event.title)}`,
    facts,
    ...(registration.guardianMissing ? { rosterText: [guardianAsk(athlete.firstName), ""], rosterHtml: `<p><strong>${escapeHtml(guardianAsk(athlete.firstName))}</strong></p>` } : {}),
    manageUrl,
  });
}

/** An individual registered without a parent or guardian contact (the spec's request has none): asked for, as a waiver is. */
export const guardianAsk = (first: string) =>
  `Still needed: ${first}'s parent or guardian contact (name, e-mail and phone), or word that ${first} is 18 or older. Add it with the private link below, under "Change the details".`;

/** A payment that came after the hold lapsed, when the event had filled up: refunded in full. */
export function lateRegistrationRefundEmail(site: Site, event: EventDetail, registration: Registration, amountCents: number, why: "full" | "discount" = "full"): OutgoingEmail {
  const gone = why === "full" ? "the event had filled up" : "every use of your discount code had been taken";
  const text = [
    `Hi ${addresseeOf(registration).firstName},`,
    "",
    `Your payment of ${formatPrice(amountCents)} for ${registrationSubject(registration)} at ${event.title} (registration ${registration.reference}) arrived after the 30 minutes we hold a place, and by then ${gone}.`,
    "We have refunded the full amount to your card; depending on your bank it shows within 5 to 10 business days.",
    "",
    "What the payment was for:",
    ...attendanceLines(event, registration),
    "",
    `We're sorry. Write to ${site.email} or call ${site.phone} and we'll help you find another camp.`,
    "",
    site.displayName,
  ].join("\n");
  return {
    kind: "registration_refund",
    reference: `registration:${registration.reference}`,
    to: addresseeOf(registration).email,
    replyTo: site.email,
    subject: why === "full" ? `Refund: ${event.title} is full (${registration.reference})` : `Refund: ${event.title} (${registration.reference})`,
    text,
  };
}

/** A paid registration refunded in full (by the site's operator or in Stripe's dashboard): its places are free again. */
export function registrationRefundedEmail(site: Site, event: EventDetail, registration: Registration, refundedCents: readonly number[]): OutgoingEmail {
  const total = refundedCents.reduce((sum, c) => sum + c, 0);
  const text = [
    `Hi ${addresseeOf(registration).firstName},`,
    "",
    `What you paid for ${registrationSubject(registration)} at ${event.title} (registration ${registration.reference}), ${formatPrice(total)}, has been refunded in full, and the registration is canceled.`,
    ...refundLines(refundedCents),
    "Depending on your bank, the refund shows on your card within 5 to 10 business days.",
    "",
    "What was canceled:",
    ...attendanceLines(event, registration),
    "",
    `If this is not what you expected, write to ${site.email} or call ${site.phone}.`,
    "",
    site.displayName,
  ].join("\n");
  return {
    kind: "registration_refunded",
    reference: `registration:${registration.reference}`,
    to: addresseeOf(registration).email,
    replyTo: site.email,
    subject: `Refunded: ${event.title} (${registration.reference})`,
    text,
  };
}

/** The coach's confirmation of a paid team: the team, the event, each athlete with their shirt size, the amount and the reference. */
export function teamRosterEmail(site: Site, event: EventDetail, registration: Registration, discount?: EmailDiscount, manageUrl?: string): OutgoingEmail {
  const team = registration.teamName ?? `${registration.contact.firstName} ${registration.contact.lastName}'s team`;
  const facts: Fact[] = [
    ["Registration reference", registration.reference],
    ["Team", team],
    ["Coach", `${registration.contact.firstName} ${registration.contact.lastName}, ${registration.contact.phone}`],
    ["Event", event.title],
    ["Dates", event.dateText],
    ["Time", eventHoursText(event)],
    ["Location", event.location],
    ["Athletes", String(registration.places)],
    ...discountFact(discount),
    ["Amount paid", amountPaid(registration)],
    ...balanceFact(event, registration),
  ];
  const roster = registration.athletes.map((a, i) => ({
    n: i + 1,
    name: `${a.firstName} ${a.lastName}`,
    age: a.age === null ? "" : String(a.age),
    shirt: a.shirtSize ?? "",
    parent: `${a.emergencyContactName}, ${a.emergencyContactPhone}`,
  }));
  return confirmation(site, event, registration, {
    kind: "team_registration_confirmation",
    subject: `Team registered: ${event.title}, ${registration.places} athletes (${registration.reference})`,
    intro: `${team} is registered for ${event.title}: ${registration.places} athletes.`,
    headingHtml: `${escapeHtml(team)} is registered for ${escapeHtml(event.title)}`,
    facts,
    manageUrl,
    rosterText: ["Roster:", ...roster.map((a) => `${a.n}. ${a.name}, age ${a.age}, shirt ${a.shirt}, parent ${a.parent}`), "", FAMILIES_EMAILED, ""],
    rosterHtml: `<h2 style="font-size:16px">Roster</h2>
<table cellpadding="6" style="border-collapse:collapse"><tr><th align="left">#</th><th align="left">Athlete</th><th align="left">Age</th><th align="left">Shirt size</th><th align="left">Parent</th></tr>
${roster.map((a) => `<tr><td>${a.n}</td><td>${escapeHtml(a.name)}</td><td>${escapeHtml(a.age)}</td><td>${escapeHtml(a.shirt)}</td><td>${escapeHtml(a.parent)}</td></tr>`).join("\n")}</table>
<p>${escapeHtml(FAMILIES_EMAILED)}</p>
`,
  });
}

type Fact = [string, string];

/** Above the private manage link in every confirmation. */
const MANAGE_TEXT =
  "Your private link to see this registration, change the details or cancel (under our camp refund and cancellation policy) until the event's deadline; keep it to yourself:";

const discountFact = (discount: EmailDiscount | undefined): Fact[] =>
  discount ? [["Discount code", `${discount.code} (${formatPrice(discount.amountOffCents)} off)`]] : [];

const amountPaid = (registration: Registration) => formatPrice(registration.amountPaidCents ?? registration.amountCents);
/** Plan deposit: the balance still owed and when it is charged. */
const balanceFact = (event: EventDetail, r: Registration): Fact[] =>
  r.deposit && r.status === "deposit_paid" ? [["Balance due", balanceLine(r.amountCents - (r.amountPaidCents ?? 0), r.deposit.balanceDueAt, event.timeZone)]] : [];

/** What an individual's and a team's confirmation share: greeting, facts, what to bring, contact, the calendar file. */
function confirmation(
  site: Site,
  event: EventDetail,
  registration: Registration,
  parts: { kind: OutgoingEmail["kind"]; subject: string; intro: string; headingHtml: string; facts: Fact[]; rosterText?: string[]; rosterHtml?: string; manageUrl?: string },
): OutgoingEmail {
  const text = [
    `Hi ${addresseeOf(registration).firstName},`,
    "",
    `${parts.intro} ${registration.amountPaidCents === 0 ? "Your registration is free: nothing was charged." : "Your payment was received."}`,
    "",
    ...parts.facts.map(([k, v]) => `${k}: ${v}`),
    "",
    ...attendanceLines(event, registration),
    "",
    ...(parts.rosterText ?? []),
    ...(parts.manageUrl ? [MANAGE_TEXT, parts.manageUrl, ""] : []),
    "What to bring:",
    ...WHAT_TO_BRING.map((w) => `- ${w}`),
    "",
    "The attached calendar file adds each camp day to your calendar.",
    "",
    `Questions? Reply to this e-mail, write to ${site.email} or call ${site.phone}.`,
    "",
    site.displayName,
  ].join("\n");
  const html = `<!doctype html><html><body style="font-family:Arial,sans-serif;color:#111">
<h1 style="font-size:20px">${parts.headingHtml}</h1>
<table cellpadding="6" style="border-collapse:collapse">${parts.facts.map(([k, v]) => `<tr><th align="left">${escapeHtml(k)}</th><td>${escapeHtml(v)}</td></tr>`).join("")}</table>
${parts.rosterHtml ?? ""}${parts.manageUrl ? `<p>${escapeHtml(MANAGE_TEXT)}<br><a href="${escapeHtml(parts.manageUrl)}">Manage your registration</a></p>` : ""}
<h2 style="font-size:16px">What to bring</h2><ul>${WHAT_TO_BRING.map((w) => `<li>${escapeHtml(w)}</li>`).join("")}</ul>
<p>Questions? Write to ${escapeHtml(site.email)} or call ${escapeHtml(site.phone)}.</p></body></html>`;
  return {
    kind: parts.kind,
    reference: `registration:${registration.reference}`,
    to: addresseeOf(registration).email,
    replyTo: site.email,
    subject: parts.subject,
    text,
    html,
    attachments: [{ filename: `${registration.reference}.ics`, contentType: "text/calendar; charset=utf-8; method=PUBLISH", content: registrationCalendar(site, event, registration) }],
  };
}
