import type { Knex } from "knex";
import { movePlaces } from "../../events/places.ts";
import type { Db } from "../../db/knex.ts";
import { toDate } from "../../db/rows.ts";
import { writeDeferred } from "../../db/deferredWrites.ts";
import type { RegistrationStatus } from "../core/registration.ts";
import { mapChange, type ChangeData, type RegistrationChange } from "../core/tables/changes.ts";
import type { Holder } from "../core/tables/holds.ts";

/**
 * The changes part's own queries (src/registrations/changes/): the manage links, the reminders' claims, and the rows of
 * registration_changes a change writes before it is paid (its state moves are core's: moveChange). The registration,
 * athlete and day rows are written by src/registrations/core/tables/ only.
 */

type Conn = Db | Knex.Transaction;
type Row = Record<string, unknown>;

export type ManageLinkSource = "confirmation" | "page" | "resend" | "family" | "balance" | "reminder";

/** A private manage link: only the token's hash is stored. A family's link names its athlete (`athletePosition`). */
export async function insertManageLink(conn: Conn, registrationId: number, tokenHash: string, sentBy: ManageLinkSource, now: Date, athletePosition: number | null = null): Promise<void> {
  await insertManageLinks(conn, [{ registrationId, tokenHash, sentBy, createdAt: now, athletePosition }]);
}

export interface NewManageLink {
  registrationId: number;
  tokenHash: string;
  sentBy: ManageLinkSource;
  createdAt: Date;
  athletePosition: number | null;
}

/** Several manage links written by one statement (deferred to the end of a transaction that defers: src/db/deferredWrites.ts). */
export async function insertManageLinks(conn: Conn, links: readonly NewManageLink[]): Promise<void> {
  if (links.length === 0) return;
  await writeDeferred(conn, conn("registration_manage_links").insert(links.map((l) => ({ registration_id: l.registrationId, token_hash: l.tokenHash, sent_by: l.sentBy, created_at: l.createdAt, athlete_position: l.athletePosition }))));
}

/** The reference a live (not revoked) link opens, and the athlete it is limited to: one lookup by the hash's unique index. */
export async function linkByManageTokenHash(conn: Conn, tokenHash: string, now: Date): Promise<{ reference: string; athletePosition: number | null } | undefined> {
  const row: Row | undefined = await conn<Row>("registration_manage_links as l")
    .join("registrations as r", "r.id", "l.registration_id")
    .where("l.token_hash", tokenHash)
    // A link revoked with a grace period still opens until then.
    .where((q) => { q.whereNull("l.revoked_at").orWhere("l.revoked_at", ">", now); })
    .first("r.reference", "l.athlete_position");
  if (!row) return undefined;
  return { reference: String(row.reference), athletePosition: row.athlete_position === null || row.athlete_position === undefined ? null : Number(row.athlete_position) };
}

/** How many links of this source a registration was sent since `since` (the lost-confirmation's daily cap). */
export async function manageLinksSentSince(trx: Knex.Transaction, registrationId: number, sentBy: ManageLinkSource, since: Date): Promise<number> {
  const row = await trx("registration_manage_links").where({ registration_id: registrationId, sent_by: sentBy }).andWhere("created_at", ">=", since).count({ n: "*" }).first();
  return Number(row?.n ?? 0);
}

/** The registration's whole-registration links (not a family's) still live stop opening at `at`. */
export async function revokeWholeLinks(trx: Knex.Transaction, registrationId: number, at: Date): Promise<void> {
  await trx("registration_manage_links").where({ registration_id: registrationId }).whereNull("athlete_position").whereNull("revoked_at").update({ revoked_at: at });
}

/** Registrations of an event made with this contact or guardian address (any case) that a registrant can still open. */
export async function manageableReferences(conn: Conn, eventId: number, email: string, statuses: readonly RegistrationStatus[]): Promise<string[]> {
  const address = email.toLowerCase();
  const rows: Row[] = await conn("registrations")
    .where({ event_id: eventId })
    .where((q) => {
      void q.whereRaw("lower(contact_email) = ?", [address]).orWhereRaw("lower(guardian_email) = ?", [address]);
    })
    .whereIn("status", [...statuses])
    .orderBy("id")
    .limit(20)
    .select("reference");
  return rows.map((r) => String(r.reference));
}

/** Paid team registrations of an event (the reminders read their athletes). */
export async function paidTeamReferences(conn: Conn, eventId: number): Promise<string[]> {
  return (await conn("registrations").where({ event_id: eventId, kind: "team", status: "paid" }).orderBy("id").pluck("reference")).map(String);
}

/** Paid individual registrations of an event still without their parent or guardian contact (a call of the spec's shape). */
export async function guardianMissingReferences(conn: Conn, eventId: number): Promise<string[]> {
  return (await conn("registrations").where({ event_id: eventId, kind: "individual", guardian_missing: true }).whereIn("status", ["paid", "deposit_paid", "balance_overdue"]).orderBy("id").pluck("reference")).map(String);
}

/** Claims one reminder for one athlete: throws a unique violation when it was sent already (by this or another instance). */
export async function claimReminder(trx: Knex.Transaction, registrationId: number, athletePosition: number, kind: string, now: Date): Promise<void> {
  await claimReminders(trx, registrationId, [athletePosition], kind, now);
}

/** Claims for several athletes of one registration, by one statement (the unique index refuses them all when one was claimed). */
export async function claimReminders(trx: Knex.Transaction, registrationId: number, athletePositions: readonly number[], kind: string, now: Date): Promise<void> {
  if (athletePositions.length === 0) return;
  await trx("registration_reminders").insert(athletePositions.map((athletePosition) => ({ registration_id: registrationId, athlete_position: athletePosition, kind, sent_at: now })));
}

/** The athletes of a registration already claimed for this kind of reminder (sent since `since`, when given). */
export async function claimedReminderPositions(conn: Conn, registrationId: number, kind: string, since?: Date): Promise<number[]> {
  const q = conn("registration_reminders").where({ registration_id: registrationId, kind });
  if (since) q.where("sent_at", ">=", since);
  return (await q.pluck("athlete_position")).map(Number);
}

/**
 * claimedReminderPositions (without `since`) and the event's own deadline for changes (core/tables/eventTerms.ts
 * eventChangesFreezeAt), read in one statement: a row for the event, one per claim.
 */
export async function claimsAndEventFreeze(conn: Conn, registrationId: number, kind: string, eventId: number): Promise<{ claimed: number[]; eventFreezeAt: Date | null }> {
  const rows: Record<string, unknown>[] = await conn("events as e")
    .leftJoin("registration_reminders as rr", (on) => on.onVal("rr.registration_id", registrationId).andOnVal("rr.kind", kind))
    .where("e.id", eventId)
    .select("e.changes_freeze_at", "rr.athlete_position");
  const claimed = rows.filter((r) => r.athlete_position !== null && r.athlete_position !== undefined).map((r) => Number(r.athlete_position));
  return { claimed, eventFreezeAt: toDate(rows[0]?.changes_freeze_at) };
}

export async function insertChange(
  trx: Knex.Transaction,
  c: { registrationId: number; eventId: number; data: ChangeData; places: number; amountCents: number; pricedVersion: number; reservedUntil: Date; holder: Holder },
  now: Date,
): Promise<number> {
  const [id] = await trx("registration_changes").insert({
    registration_id: c.registrationId,
    event_id: c.eventId,
    kind: c.data.kind,
    data_json: JSON.stringify(c.data),
    places: c.places,
    amount_cents: c.amountCents,
    priced_version: c.pricedVersion,
    status: "pending",
    reserved_until: c.reservedUntil,
    holder_session: c.holder.session,
    holder_address: c.holder.address,
    created_at: now,
    updated_at: now,
  });
  // Decided under the event's lock (addAthletes.ts): a pending change counts its places (src/events/places.ts).
  await movePlaces(trx, c.eventId, c.places);
  return Number(id);
}

/** A pending change's hold kept until `until` (never shortened): its payment is being confirmed. */
export async function keepChangeUntil(trx: Knex.Transaction, id: number, until: Date, now: Date): Promise<void> {
  await trx("registration_changes").where({ id, status: "pending" }).andWhere("reserved_until", "<", until).update({ reserved_until: until, updated_at: now });
}

/** Pending changes whose time to pay has passed, oldest first (the sweep). */
export async function lapsedChanges(conn: Conn, now: Date, limit: number): Promise<RegistrationChange[]> {
  const rows: Row[] = await conn<Row>("registration_changes").where("status", "pending").andWhere("reserved_until", "<=", now).orderBy("reserved_until").limit(limit);
  return rows.map(mapChange);
}
