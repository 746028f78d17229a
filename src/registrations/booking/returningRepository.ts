import type { Knex } from "knex";
import type { Db } from "../../db/knex.ts";
import { toDate } from "../../db/rows.ts";
import { toText } from "../../shared/toText.ts";
import type { ReturningForm } from "../../shared/registrations/returning.ts";

/**
 * "Registered before?" (returning.ts): the registrations an address made, and the links e-mailed to it
 * (`returning_links`, `returning_link_senders`). Registration rows are read through core/tables/.
 */

type Conn = Db | Knex.Transaction;
type Row = Record<string, unknown>;

/** A registration the address made, newest first: as its contact (athlete, parent or coach), its guardian, or one of its athletes. */
export interface MadeBy {
  reference: string;
  eventId: number;
  createdAt: Date;
  contactEmail: string;
  guardianEmail: string | null;
}

/** The newest registrations (at most `limit`) made by or for the address, among `statuses`. */
export async function registrationsOfAddress(conn: Conn, email: string, statuses: readonly string[], limit: number): Promise<MadeBy[]> {
  const address = email.toLowerCase();
  const asAthlete = conn("registration_athletes").whereRaw("lower(email) = ?", [address]).select("registration_id");
  const rows: Row[] = await conn("registrations")
    .whereIn("status", [...statuses])
    .where((q) => {
      void q.whereRaw("lower(contact_email) = ?", [address]).orWhereRaw("lower(guardian_email) = ?", [address]).orWhereIn("id", asAthlete);
    })
    .orderBy([{ column: "created_at", order: "desc" }, { column: "id", order: "desc" }])
    .limit(limit)
    .select("reference", "event_id", "created_at", "contact_email", "guardian_email");
  return rows.map((r) => ({
    reference: String(r.reference),
    eventId: Number(r.event_id),
    createdAt: toDate(r.created_at)!,
    contactEmail: toText(r.contact_email),
    guardianEmail: r.guardian_email ? toText(r.guardian_email) : null,
  }));
}

/** The address's own row (by hash), made once outside any transaction: two asks at once never both insert it under a lock. */
export async function ensureSender(db: Db, sender: string): Promise<void> {
  await db("returning_link_senders").insert({ sender }).onConflict("sender").ignore();
}

/** The first statement of an ask's transaction: the address's row locked, so one address's links are decided one after another. */
export async function lockSender(trx: Knex.Transaction, sender: string): Promise<void> {
  await trx("returning_link_senders").where({ sender }).forUpdate().first("sender");
}

export async function linksSentSince(trx: Knex.Transaction, email: string, since: Date): Promise<number> {
  const row = (await trx("returning_links").where({ email: email.toLowerCase() }).andWhere("created_at", ">", since).count({ n: "*" }).first()) as Row | undefined;
  return Number(row?.n ?? 0);
}

export async function insertLink(trx: Knex.Transaction, link: { tokenHash: string; email: string; eventId: number; form: ReturningForm; now: Date; expiresAt: Date }): Promise<void> {
  await trx("returning_links").insert({
    token_hash: link.tokenHash,
    email: link.email.toLowerCase(),
    event_id: link.eventId,
    form: link.form,
    created_at: link.now,
    expires_at: link.expiresAt,
    used_at: null,
  });
}

/**
 * Uses a link: one conditional statement, so of two opens at once exactly one finds it unused and unexpired. Answers
 * what the link opens, or undefined (unknown, used or expired alike).
 */
export async function useLink(db: Db, tokenHash: string, now: Date): Promise<{ email: string; eventId: number; form: ReturningForm } | undefined> {
  const changed = await db("returning_links").where({ token_hash: tokenHash }).whereNull("used_at").andWhere("expires_at", ">", now).update({ used_at: now });
  if (Number(changed) !== 1) return undefined;
  const row: Row | undefined = await db<Row>("returning_links").where({ token_hash: tokenHash }).first("email", "event_id", "form");
  return row ? { email: toText(row.email), eventId: Number(row.event_id), form: toText(row.form) === "team" ? "team" : "individual" } : undefined;
}

/** The event and form of a link by its token's hash, used or not: where a spent link's page offers to ask again. */
export async function linkTarget(db: Db, tokenHash: string): Promise<{ eventId: number; form: ReturningForm } | undefined> {
  const row: Row | undefined = await db<Row>("returning_links").where({ token_hash: tokenHash }).first("event_id", "form");
  return row ? { eventId: Number(row.event_id), form: toText(row.form) === "team" ? "team" : "individual" } : undefined;
}
