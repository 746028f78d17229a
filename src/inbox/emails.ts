/** The e-mails the brand receives for each message: pure functions of the stored data. */
import type { ContactMessage, NewsletterSignup, QuoteRequest } from "../shared/inbox/schemas.ts";
import type { OutgoingEmail } from "../email/outbox.ts";

const line = (label: string, value: string | undefined) => `${label}: ${value ?? "(not given)"}`;

export function contactEmail(id: number, m: ContactMessage, brandInbox: string): OutgoingEmail {
  return {
    kind: "contact_message",
    reference: `contact_message:${id}`,
    to: brandInbox,
    replyTo: m.email,
    subject: `Contact form: ${m.subject}`,
    text: [
      `New message from the website contact form (#${id}).`,
      "",
      line("Name", m.name),
      line("Email", m.email),
      line("Phone", m.phone),
      line("Subject", m.subject),
      "",
      m.message,
      "",
      "Reply to this e-mail to answer the sender directly.",
    ].join("\n"),
  };
}

export function quoteEmail(id: number, q: QuoteRequest, brandInbox: string): OutgoingEmail {
  return {
    kind: "quote_request",
    reference: `quote_request:${id}`,
    to: brandInbox,
    replyTo: q.email,
    subject: `Custom quote request: ${q.organization}`,
    text: [
      `New custom apparel quote request (#${id}).`,
      "",
      line("Team or organization", q.organization),
      line("Contact name", q.contactName),
      line("Email", q.email),
      line("Phone", q.phone),
      line("Apparel needs", q.apparelNeeds.length > 0 ? q.apparelNeeds.join(", ") : undefined),
      line("Estimated quantity", q.estimatedQuantity),
      line("Similar to design", q.referenceDesign),
      "",
      "Additional details:",
      q.details ?? "(none)",
      "",
      "Reply to this e-mail to answer the coach directly.",
    ].join("\n"),
  };
}

export function newsletterEmail(id: number, s: NewsletterSignup, source: string, brandInbox: string): OutgoingEmail {
  return {
    kind: "newsletter_subscriber",
    reference: `newsletter_subscriber:${id}`,
    to: brandInbox,
    subject: `New newsletter subscriber: ${s.email}`,
    text: [`${s.email} subscribed to the newsletter from the ${source} page (#${id}).`].join("\n"),
  };
}
