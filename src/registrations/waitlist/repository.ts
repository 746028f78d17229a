import { createHash, randomBytes } from "node:crypto";
import type { Knex } from "knex";
import type { Db } from "../../db/knex.ts";
import { toDate } from "../../db/rows.ts";
import type { EntryKind, EntryStatus, JoinRequest } from "../../shared/registrations/waitingList.ts";
import { toText } from "../../shared/toText.ts";

/** The one module that queries the waiting list's tables (waiting_list_entries, waiting_list_holds, waiting_list_jobs). */

type Conn = Db | Knex.Transaction;
type Row = Record<string, unknown>;

export interface Entry {
  id: number;
  eventId: number;
  position: number;
  kind: EntryKind;
  places: number;
  packageCode: string;
  contact: { firstName: string; lastName: string; email: string; phone: string };
  teamName: string | null;
  status: EntryStatus;
  passedOver: number;
  offeredUntil: Date | null;
}

/** A link's token (sent by e-mail, never stored) and the hash that is stored. */
export function newToken(): { token: string; hash: string } {
  const token = randomBytes(24).toString("base64url");
  return { token, hash: hashToken(token) };
}
export const hashToken = (token: string) => createHash("sha256").update(token).digest("hex");

function mapEntry(r: Row): Entry {
  return {
    id: Number(r.id),
    eventId: Number(r.event_id),
    position: Number(r.position),
    kind: String(r.kind) as EntryKind,
    places: Number(r.places),
    packageCode: String(r.package_code),
    contact: { firstName: String(r.contact_first_name), lastName: String(r.contact_last_name), email: String(r.contact_email), phone: String(r.contact_phone) },
    teamName: r.team_name === null || r.team_name === undefined ? null : toText(r.team_name),
    status: String(r.status) as EntryStatus,
    passedOver: Number(r.passed_over ?? 0),
    offeredUntil: toDate(r.offered_until),
  };
}

/** Entries still in line or holding an offer: the family or team is not to join twice. */
const ACTIVE: EntryStatus[] = ["waiting", "offered"];

export async function activeEntryFor(conn: Conn, eventId: number, email: string): Promise<Entry | undefined> {
  const row = await conn<Row>("waiting_list_entries").where({ event_id: eventId, contact_email: email }).whereIn("status", ACTIVE).first();
  return row ? mapEntry(row) : undefined;
}

/** A new entry at the end of the line; only under the event's lock (positions are decided there). */
export async function insertEntry(trx: Knex.Transaction, eventId: number, req: JoinRequest, leaveTokenHash: string, now: Date): Promise<Entry> {
  const last = await trx("waiting_list_entries").where({ event_id: eventId }).max({ p: "position" }).first();
  const position = Number(last?.p ?? 0) + 1;
  const [id] = await trx("waiting_list_entries").insert({
    event_id: eventId,
    position,
    kind: req.kind,
    places: req.places,
    package_code: req.packageCode,
    contact_first_name: req.firstName,
    contact_last_name: req.lastName,
    contact_email: req.email,
    contact_phone: req.phone,
    team_name: req.teamName ?? null,
    status: "waiting",
    leave_token_hash: leaveTokenHash,
    passed_over: 0,
    created_at: now,
    updated_at: now,
  });
  return mapEntry((await trx<Row>("waiting_list_entries").where({ id: Number(id) }).first())!);
}

export async function entryByLeaveToken(conn: Conn, token: string): Promise<Entry | undefined> {
  const row = await conn<Row>("waiting_list_entries").where({ leave_token_hash: hashToken(token) }).first();
  return row ? mapEntry(row) : undefined;
}

export async function entryByOfferToken(conn: Conn, token: string): Promise<Entry | undefined> {
  const row = await conn<Row>("waiting_list_entries").where({ offer_token_hash: hashToken(token) }).first();
  return row ? mapEntry(row) : undefined;
}

/** The entry's row locked (after the event row: the aggregate's lock order, src/registrations/repository.ts). */
export async function lockEntry(trx: Knex.Transaction, id: number): Promise<Entry | undefined> {
  const row = await trx<Row>("waiting_list_entries").where({ id }).forUpdate().first();
  return row ? mapEntry(row) : undefined;
}

/** The event's entries in one of `statuses`, in line order. */
export async function entriesOf(conn: Conn, eventId: number, statuses: EntryStatus[]): Promise<Entry[]> {
  const rows: Row[] = await conn<Row>("waiting_list_entries").where({ event_id: eventId }).whereIn("status", statuses).orderBy("position");
  return rows.map(mapEntry);
}

/** Moves an entry from one of `from` to `to`: of two callers, one gets true. */
export async function setStatus(trx: Knex.Transaction, id: number, from: EntryStatus[], to: EntryStatus, now: Date, fields: Record<string, unknown> = {}): Promise<boolean> {
  return (await trx("waiting_list_entries").where({ id }).whereIn("status", from).update({ ...fields, status: to, updated_at: now })) === 1;
}

export async function countPassedOver(trx: Knex.Transaction, ids: number[], now: Date): Promise<void> {
  if (ids.length > 0) await trx("waiting_list_entries").whereIn("id", ids).increment("passed_over", 1).update({ updated_at: now });
}

export async function linkHold(trx: Knex.Transaction, entryId: number, registrationId: number, placeNumber: number): Promise<void> {
  await trx("waiting_list_holds").insert({ entry_id: entryId, registration_id: registrationId, place_number: placeNumber });
}

/** The registrations an offer holds, by place number, with their status and hold. */
export async function holdsOf(conn: Conn, entryId: number): Promise<{ placeNumber: number; registrationId: number; reference: string; status: string; reservedUntil: Date | null }[]> {
  const rows: Row[] = await conn("waiting_list_holds as h")
    .join("registrations as r", "r.id", "h.registration_id")
    .where("h.entry_id", entryId)
    .orderBy("h.place_number")
    .select("h.place_number", "r.id", "r.reference", "r.status", "r.reserved_until");
  return rows.map((r) => ({ placeNumber: Number(r.place_number), registrationId: Number(r.id), reference: String(r.reference), status: String(r.status), reservedUntil: toDate(r.reserved_until) }));
}

/** How many families and teams wait for each event, and their places (the event pages). */
export async function waitingCounts(conn: Conn, eventId: number): Promise<{ entries: number; places: number }> {
  const row = await conn("waiting_list_entries").where({ event_id: eventId, status: "waiting" }).count({ n: "*" }).sum({ p: "places" }).first();
  return { entries: Number(row?.n ?? 0), places: Number(row?.p ?? 0) };
}

// ---- the offer jobs (src/db/jobQueue.ts works the table) ----

/** Asks for an offer round at the event, in the caller's transaction. */
export async function insertJob(conn: Conn, eventId: number, now: Date): Promise<void> {
  await conn("waiting_list_jobs").insert({ event_id: eventId, status: "pending", attempts: 0, next_attempt_at: now, created_at: now });
}

/** Whether anyone is in line or holds an offer at the event (no round is asked for otherwise). */
export async function hasLine(conn: Conn, eventId: number): Promise<boolean> {
  return !!(await conn("waiting_list_entries").where({ event_id: eventId }).whereIn("status", ACTIVE).first("id"));
}

/**
 * While anyone is in line at the event, free places are the line's: a registration that is not one of the line's
 * offers sees none (the event shows 'Sold Out' and invites to join the list). `exceptRegistrationId` is the
 * registration being written, which may be an offer's own hold.
 */
export async function lineComesFirst(conn: Conn, eventId: number, exceptRegistrationId?: number): Promise<boolean> {
  if (exceptRegistrationId !== undefined && (await conn("waiting_list_holds").where({ registration_id: exceptRegistrationId }).first("id"))) return false;
  return !!(await conn("waiting_list_entries").where({ event_id: eventId, status: "waiting" }).first("id"));
}
