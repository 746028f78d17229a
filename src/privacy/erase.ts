/**
 * A person's data erased on request, by e-mail address: what exists only for them is deleted (messages, quote
 * requests, the newsletter sign-up, coach requests with their logos, e-mails to or about them); the records tax
 * law needs (orders, registrations, payments) keep their amounts, dates, statuses and references, and lose the name,
 * e-mail, phone and everything else about the person. One transaction: all of it or nothing.
 */
import { createHash } from "node:crypto";
import type { Knex } from "knex";
import type { Db } from "../db/knex.ts";
import { deleteStoredFiles } from "../db/storedFiles.ts";

export type ErasureCounts = Record<string, number>;

export const ERASED = "Erased";

/** The address the anonymised rows keep: unique per person, never deliverable (.invalid), not the address. */
export function erasedAddress(email: string): string {
  return `erased-${createHash("sha256").update(email).digest("hex").slice(0, 16)}@erased.invalid`;
}

/** An address erasedAddress made: nobody can be written to at it. */
export function isErasedAddress(email: string): boolean {
  return email.endsWith("@erased.invalid");
}

export async function erasePerson(db: Db, rawEmail: string, opts: { dryRun?: boolean } = {}): Promise<ErasureCounts> {
  const email = rawEmail.trim().toLowerCase();
  const is = (column: string) => [`lower(${column}) = ?`, [email]] as const;
  const counts: ErasureCounts = {};
  const work = async (trx: Knex.Transaction) => {
    const coachRequests = await trx<{ id: number; logo_file: string | null }>("coach_requests").whereRaw(...is("email")).select("id", "logo_file");
    const registrations = (await trx("registrations").whereRaw(...is("contact_email")).pluck("id")) as number[];
    const athletes = (await trx("registration_athletes").whereRaw(...is("email")).orWhereIn("registration_id", registrations).pluck("id")) as number[];
    counts.contact_messages = await trx("contact_messages").whereRaw(...is("email")).count({ n: "*" }).first().then((r) => Number(r?.n ?? 0));
    counts.quote_requests = await trx("quote_requests").whereRaw(...is("email")).count({ n: "*" }).first().then((r) => Number(r?.n ?? 0));
    counts.newsletter_subscribers = await trx("newsletter_subscribers").whereRaw(...is("email")).count({ n: "*" }).first().then((r) => Number(r?.n ?? 0));
    counts.email_outbox = await trx("email_outbox").whereRaw(...is("to_address")).orWhereRaw(...is("reply_to")).count({ n: "*" }).first().then((r) => Number(r?.n ?? 0));
    counts.coach_requests = coachRequests.length;
    counts.orders_anonymised = await trx("orders").whereRaw(...is("customer_email")).count({ n: "*" }).first().then((r) => Number(r?.n ?? 0));
    counts.registrations_anonymised = registrations.length;
    counts.athletes_anonymised = athletes.length;
    if (opts.dryRun) return;

    await trx("contact_messages").whereRaw(...is("email")).delete();
    await trx("quote_requests").whereRaw(...is("email")).delete();
    await trx("newsletter_subscribers").whereRaw(...is("email")).delete();
    await trx("email_outbox").whereRaw(...is("to_address")).orWhereRaw(...is("reply_to")).delete();
    // "Registered before?" links sent to them (kept a day at most) stop opening and go.
    await trx("returning_links").where({ email }).delete();
    await deleteStoredFiles(trx, coachRequests.flatMap((c) => (c.logo_file ? [c.logo_file] : [])));
    await trx("coach_requests").whereIn("id", coachRequests.map((c) => c.id)).delete();
    const address = erasedAddress(email);
    await trx("orders").whereRaw(...is("customer_email")).update({
      customer_first_name: ERASED, customer_last_name: "", customer_email: address, customer_phone: null,
      // City, state and ZIP stay: the sales-tax jurisdiction of a kept sale.
      ship_name: null, ship_line1: null, ship_line2: null, shopify_error: null,
    });
    await trx("registrations").whereIn("id", registrations).update({ contact_first_name: ERASED, contact_last_name: "", contact_email: address, contact_phone: "" });
    // Their manage links stop working: what is left of the registration is the money record.
    await trx("registration_manage_links").whereIn("registration_id", registrations).update({ revoked_at: new Date() });
    await trx("registration_athletes").whereIn("id", athletes).update({
      first_name: ERASED, last_name: "", email: address, phone: null, grade: null, age: null, gender: null, school_name: null, club_name: null,
      shirt_size: null, emergency_contact_name: ERASED, emergency_contact_phone: "", special_requirements: null,
    });
  };
  await db.transaction(work);
  return counts;
}
