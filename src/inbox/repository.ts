/** The messages feature's queries: each message is stored and its e-mail to the brand queued in one transaction. */
import { isUniqueViolation } from "../db/rows.ts";
import type { Db } from "../db/knex.ts";
import { enqueueEmail } from "../email/outbox.ts";
import { contactEmail, newsletterEmail, quoteEmail } from "./emails.ts";
import type { ContactMessage, NewsletterSignup, QuoteRequest } from "../shared/inbox/schemas.ts";

export async function saveContactMessage(db: Db, m: ContactMessage, brandInbox: string): Promise<number> {
  return db.transaction(async (trx) => {
    const [id] = await trx("contact_messages").insert({
      name: m.name,
      email: m.email,
      phone: m.phone ?? null,
      subject: m.subject,
      message: m.message,
      created_at: new Date(),
    });
    await enqueueEmail(trx, contactEmail(Number(id), m, brandInbox));
    return Number(id);
  });
}

export async function saveQuoteRequest(db: Db, q: QuoteRequest, brandInbox: string): Promise<number> {
  return db.transaction(async (trx) => {
    const [id] = await trx("quote_requests").insert({
      organization: q.organization,
      contact_name: q.contactName,
      email: q.email,
      phone: q.phone ?? null,
      apparel_needs: q.apparelNeeds.join(", "),
      estimated_quantity: q.estimatedQuantity ?? null,
      reference_design: q.referenceDesign ?? null,
      details: q.details ?? null,
      created_at: new Date(),
    });
    await enqueueEmail(trx, quoteEmail(Number(id), q, brandInbox));
    return Number(id);
  });
}

/**
 * Adds an address to the newsletter list. Subscribing again is harmless: the existing row is kept,
 * and the brand is told only about new subscribers.
 */
export async function subscribeToNewsletter(
  db: Db,
  signup: NewsletterSignup,
  source: string,
  brandInbox: string,
): Promise<{ id: number; created: boolean }> {
  const email = signup.email.toLowerCase();
  const existing = async () => {
    const row = await db<{ id: number; email: string }>("newsletter_subscribers").where({ email }).first("id");
    return row ? { id: Number(row.id), created: false } : undefined;
  };
  const found = await existing();
  if (found) return found;
  try {
    return await db.transaction(async (trx) => {
      const [id] = await trx("newsletter_subscribers").insert({ email, source, created_at: new Date() });
      await enqueueEmail(trx, newsletterEmail(Number(id), { email }, source, brandInbox));
      return { id: Number(id), created: true };
    });
  } catch (err) {
    // Two sign-ups with the same address at once: the other one won, which is the same outcome.
    if (isUniqueViolation(err)) {
      const winner = await existing();
      if (winner) return winner;
    }
    throw err;
  }
}
