import { createHash, randomBytes } from "node:crypto";
import type { Knex } from "knex";
import { toDate } from "../../../db/rows.ts";
import type { EntryKind, EntryStatus, JoinRequest } from "../../../shared/registrations/waitingList.ts";
import { toText } from "../../../shared/toText.ts";
import type { Conn, Row } from "../../core/tables/rows.ts";

/** The waiting list's entries (waiting_list_entries): the line, its order and each entry's state, and the links' tokens. */
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
  holdsLineUntil: Date | null;
}

/** Who joined: the visitor's hashes (src/http/visitor.ts), as the per-visitor cap counts them. */
export interface Joiner {
  session: string;
  address: string;
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
    holdsLineUntil: toDate(r.holds_line_until),
  };
}

/** Entries still in line or holding an offer: the family or team is not to join twice. */
const ACTIVE: EntryStatus[] = ["waiting", "offered"];

export async function activeEntryFor(conn: Conn, eventId: number, email: string): Promise<Entry | undefined> {
  const row = await conn<Row>("waiting_list_entries").where({ event_id: eventId, contact_email: email }).whereIn("status", ACTIVE).first();
  return row ? mapEntry(row) : undefined;
}

/** A new entry at the end of the line; only under the event's lock (positions are decided there). */
/** `joiner` is null for an entry an operator or a test writes (it counts against no visitor's cap). */
export async function insertEntry(trx: Knex.Transaction, eventId: number, req: JoinRequest, leaveTokenHash: string, now: Date, joiner: Joiner | null = null): Promise<Entry> {
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
    joiner_session: joiner?.session ?? null,
    joiner_address: joiner?.address ?? null,
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

export async function entryById(conn: Conn, id: number): Promise<Entry | undefined> {
  const row = await conn<Row>("waiting_list_entries").where({ id }).first();
  return row ? mapEntry(row) : undefined;
}

/** The entry's row locked (after the event row: the aggregate's lock order, src/registrations/core/locks.ts). */
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

/** Entries passed over once more; one that reaches `holdsAt` passes holds the line until `holdsUntil` (once only). */
export async function countPassedOver(trx: Knex.Transaction, entries: Entry[], holdsAt: number, holdsUntil: Date, now: Date): Promise<void> {
  for (const e of entries) {
    const holds = e.passedOver + 1 >= holdsAt && e.holdsLineUntil === null;
    await trx("waiting_list_entries").where({ id: e.id }).update({ passed_over: e.passedOver + 1, updated_at: now, ...(holds ? { holds_line_until: holdsUntil } : {}) });
  }
}

/** The confirmed entries waiting in front of this one, and this one: its place in line (1 is next). */
export async function placeInLine(conn: Conn, entry: Entry): Promise<number> {
  const row = await conn("waiting_list_entries").where({ event_id: entry.eventId, status: "waiting" }).andWhere("position", "<=", entry.position).count({ n: "*" }).first();
  return Number(row?.n ?? 0);
}

/** How many families and teams wait for each event, and their places (the event pages). */
export async function waitingCounts(conn: Conn, eventId: number): Promise<{ entries: number; places: number }> {
  const row = await conn("waiting_list_entries").where({ event_id: eventId, status: "waiting" }).count({ n: "*" }).sum({ p: "places" }).first();
  return { entries: Number(row?.n ?? 0), places: Number(row?.p ?? 0) };
}
