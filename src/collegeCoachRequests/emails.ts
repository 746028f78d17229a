/** The two e-mails a coach request sends: the details to the brand (logo attached), and an acknowledgement to the coach. */
import type { OutgoingEmail } from "../email/outbox.ts";
import type { MailAttachment } from "../email/transport.ts";
import type { CoachEvent } from "../shared/collegeCoachRequests/rules.ts";
import type { CoachRequest } from "../shared/collegeCoachRequests/schemas.ts";
import type { StoredLogo } from "./logoStore.ts";

const line = (label: string, value: string | number | null | undefined) =>
  `${label}: ${value === undefined || value === null || value === "" ? "(not given)" : value}`;

const dayLabels = (event: CoachEvent, request: CoachRequest) =>
  event.days.filter((d) => request.daysAttending.includes(d.date)).map((d) => d.label);

/** 'Ironwood University' -> 'ironwood-university-logo.png'. */
export function logoAttachmentName(collegeName: string, logo: StoredLogo): string {
  const slug = collegeName.toLowerCase().replace(/[^a-z0-9]+/g, "-").replace(/^-+|-+$/g, "").slice(0, 60) || "school";
  return `${slug}-logo.${logo.type}`;
}

export function coachRequestBrandEmail(id: number, event: CoachEvent, r: CoachRequest, logo: StoredLogo | undefined, brandInbox: string): OutgoingEmail {
  const attachments: MailAttachment[] | undefined = logo
    ? [{ filename: logoAttachmentName(r.collegeName, logo), contentType: logo.contentType, storedFile: logo.file }]
    : undefined;
  return {
    kind: "coach_request",
    reference: `coach_request:${id}`,
    to: brandInbox,
    replyTo: r.email,
    subject: `College coach registration: ${r.collegeName} for ${event.title}`,
    text: [
      `New college coach registration (#${id}) for ${event.title}, ${event.dateText}, ${event.location}.`,
      "",
      line("Full name", r.fullName),
      line("Title/Position", r.title),
      line("College/University", r.collegeName),
      line("Email", r.email),
      line("Cell phone", r.cellPhone),
      line("School phone", r.schoolPhone),
      line("School website", r.schoolWebsite),
      line("Division", r.divisionLevel),
      line("Conference", r.conference),
      line("Number of athletes", r.numberOfAthletes),
      line("Areas of interest", r.areasOfInterest.join(", ")),
      line("Days attending", dayLabels(event, r).join(", ")),
      line("School logo", logo ? "attached" : undefined),
      "",
      "Notes:",
      r.notes ?? "(none)",
      "",
      "Reply to this e-mail to answer the coach directly.",
    ].join("\n"),
    attachments,
  };
}

export function coachRequestAcknowledgement(id: number, event: CoachEvent, r: CoachRequest, brand: string, brandInbox: string): OutgoingEmail {
  return {
    kind: "coach_request_acknowledgement",
    reference: `coach_request:${id}`,
    to: r.email,
    replyTo: brandInbox,
    subject: `We received your college coach registration for ${event.title}`,
    text: [
      `Hello ${r.fullName},`,
      "",
      `Thank you for your interest in the ${event.title} (${event.dateText}, ${event.location}). We'll review your application and get back to you soon.`,
      "",
      "What you sent us:",
      line("College/University", r.collegeName),
      line("Division", r.divisionLevel),
      line("Conference", r.conference),
      line("Days attending", dayLabels(event, r).join(", ")),
      "",
      "Questions in the meantime? Reply to this e-mail.",
      "",
      `The ${brand} team`,
    ].join("\n"),
  };
}
