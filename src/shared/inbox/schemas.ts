/**
 * The message forms' rules, shared by the server and the widgets so both show the same words.
 * Browser-safe: zod and plain data only.
 */
import * as z from "zod/mini";
import { multiLine, singleLine } from "../text.ts";

export const CONTACT_MIN = { name: 2, subject: 2, message: 10 } as const;

/** The spec's contact messages, word for word. */
export const CONTACT_MESSAGES = {
  name: "Name must be at least 2 characters",
  email: "Please enter a valid email address",
  subject: "Subject must be at least 2 characters",
  message: "Message must be at least 10 characters",
  sendFailed: { title: "Error sending message", description: "Please try again later or contact us directly by phone." },
} as const;

const text = (message: string) => singleLine(message);
const email = () => z.pipe(text(CONTACT_MESSAGES.email).check(z.maxLength(254, CONTACT_MESSAGES.email)), z.email(CONTACT_MESSAGES.email));
/** An optional text field (single-line unless `paragraphs`): blank or missing becomes undefined. */
const optionalText = (max: number, message: string, paragraphs = false) =>
  z.pipe(
    z.optional((paragraphs ? multiLine() : singleLine()).check(z.maxLength(max, message))),
    z.transform((v) => (v ? v : undefined)),
  );

export const contactSchema = z.object({
  name: text(CONTACT_MESSAGES.name).check(z.minLength(CONTACT_MIN.name, CONTACT_MESSAGES.name), z.maxLength(100, "Name must be at most 100 characters")),
  email: email(),
  phone: optionalText(40, "Phone must be at most 40 characters"),
  subject: text(CONTACT_MESSAGES.subject).check(z.minLength(CONTACT_MIN.subject, CONTACT_MESSAGES.subject), z.maxLength(200, "Subject must be at most 200 characters")),
  message: multiLine(CONTACT_MESSAGES.message).check(z.minLength(CONTACT_MIN.message, CONTACT_MESSAGES.message), z.maxLength(5000, "Message must be at most 5000 characters")),
});
export type ContactMessage = z.output<typeof contactSchema>;

export const APPAREL_NEEDS = [
  "Competition Singlets",
  "Rashguards",
  "Team Warmups",
  "Casual Team Apparel",
  "Complete Team Package",
  "Other",
] as const;

export const QUANTITY_OPTIONS = ["1-10", "11-25", "26-50", "51-100", "100+"] as const;

export const QUOTE_MESSAGES = {
  organization: "Please enter your team or organization name",
  contactName: "Please enter a contact name",
  email: CONTACT_MESSAGES.email,
  apparelNeeds: "Please choose from the listed apparel needs",
  estimatedQuantity: "Please choose one of the listed quantities",
  sent: { title: "Quote Request Sent", description: "Thanks! Our design team will reply within one business day." },
  sendFailed: { title: "Error sending request", description: "Please try again later or contact us directly by phone." },
} as const;

/** A form post sends one checkbox as a string, several as an array, none as nothing. */
const asList = (v: unknown): unknown[] => (v === undefined || v === null || v === "" ? [] : Array.isArray(v) ? (v as unknown[]) : [v]);

export const quoteSchema = z.object({
  organization: text(QUOTE_MESSAGES.organization).check(z.minLength(2, QUOTE_MESSAGES.organization), z.maxLength(150, "Organization name must be at most 150 characters")),
  contactName: text(QUOTE_MESSAGES.contactName).check(z.minLength(2, QUOTE_MESSAGES.contactName), z.maxLength(100, "Contact name must be at most 100 characters")),
  email: email(),
  phone: optionalText(40, "Phone must be at most 40 characters"),
  apparelNeeds: z.pipe(
    z.pipe(z.transform(asList), z.array(z.enum(APPAREL_NEEDS, QUOTE_MESSAGES.apparelNeeds)).check(z.maxLength(APPAREL_NEEDS.length))),
    z.transform((needs) => APPAREL_NEEDS.filter((n) => needs.includes(n))),
  ),
  estimatedQuantity: z.pipe(
    z.optional(z.union([z.literal(""), z.enum(QUANTITY_OPTIONS, QUOTE_MESSAGES.estimatedQuantity)], QUOTE_MESSAGES.estimatedQuantity)),
    z.transform((v) => (v ? v : undefined)),
  ),
  referenceDesign: optionalText(100, "Design name must be at most 100 characters"),
  details: optionalText(5000, "Details must be at most 5000 characters", true),
});
export type QuoteRequest = z.output<typeof quoteSchema>;

export const NEWSLETTER_MESSAGES = {
  email: CONTACT_MESSAGES.email,
  subscribed: { title: "You're on the list!", description: "Camp dates, new drops and team deals will land in your inbox." },
  failed: { title: "Subscription failed", description: "Please try again in a minute." },
} as const;

export const newsletterSchema = z.object({ email: email() });
export type NewsletterSignup = z.output<typeof newsletterSchema>;
