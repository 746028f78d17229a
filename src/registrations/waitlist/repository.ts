import { createHash, randomBytes } from "node:crypto";
import type { Knex } from "knex";
import type { Db } from "../../db/knex.ts";
import { toDate } from "../../db/rows.ts";
import type { EntryKind, EntryStatus, JoinRequest } from "../../shared/registrations/waitingList.ts";
import { toText } from "../../shared/toText.ts";

/**
 * The one module that queries the waiting list's tables (waiting_list_requests, waiting_list_entries,
 * waiting_list_holds, waiting_list_jobs).
 */

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

/** Offer rounds done before `before` (they record nothing else). */
export async function deleteSentJobs(conn: Conn, before: Date): Promise<void> {
  await conn("waiting_list_jobs").where("status", "sent").andWhere("sent_at", "<", before).delete();
}

/** Events where someone is in line or holds an offer and no offer round is pending or running. */
export async function eventsNeedingRound(conn: Conn): Promise<number[]> {
  const rows: { event_id: unknown }[] = await conn("waiting_list_entries as w")
    .whereIn("w.status", ["waiting", "offered"])
    .whereNotExists((q) => { q.select(conn.raw("1")).from("waiting_list_jobs as j").whereRaw("j.event_id = w.event_id").whereIn("j.status", ["pending", "sending"]); })
    .distinct("w.event_id");
  return rows.map((r) => Number(r.event_id));
}

/** Whether an offer round is asked for at the event and not yet run. */
export async function roundPending(conn: Conn, eventId: number): Promise<boolean> {
  return (await conn("waiting_list_jobs").where({ event_id: eventId, status: "pending" }).first("id")) !== undefined;
}

/** An operator's new capacity for the event (decided under the event's lock: src/registrations/waitlist/capacity.ts). */
export async function setEventCapacity(trx: Knex.Transaction, eventId: number, capacity: number): Promise<void> {
  await trx("events").where({ id: eventId }).update({ capacity });
}

/** The confirmed entries waiting in front of this one, and this one: its place in line (1 is next). */
export async function placeInLine(conn: Conn, entry: Entry): Promise<number> {
  const row = await conn("waiting_list_entries").where({ event_id: entry.eventId, status: "waiting" }).andWhere("position", "<=", entry.position).count({ n: "*" }).first();
  return Number(row?.n ?? 0);
}

// ---- requests to join, until their e-mail is confirmed ----

export interface Request {
  id: number;
  eventId: number;
  join: JoinRequest;
  joiner: Joiner;
  confirmBy: Date;
  entryId: number | null;
}

function mapRequest(r: Row): Request {
  return {
    id: Number(r.id),
    eventId: Number(r.event_id),
    join: {
      kind: String(r.kind) as EntryKind,
      places: Number(r.places),
      packageCode: String(r.package_code),
      firstName: String(r.contact_first_name),
      lastName: String(r.contact_last_name),
      email: String(r.contact_email),
      phone: String(r.contact_phone),
      teamName: r.team_name === null || r.team_name === undefined ? undefined : toText(r.team_name),
    },
    joiner: { session: String(r.joiner_session), address: String(r.joiner_address) },
    confirmBy: toDate(r.confirm_by)!,
    entryId: r.entry_id === null || r.entry_id === undefined ? null : Number(r.entry_id),
  };
}

export async function insertRequest(trx: Knex.Transaction, eventId: number, req: JoinRequest, joiner: Joiner, tokenHash: string, confirmBy: Date, now: Date): Promise<number> {
  const [id] = await trx("waiting_list_requests").insert({
    event_id: eventId,
    kind: req.kind,
    places: req.places,
    package_code: req.packageCode,
    contact_first_name: req.firstName,
    contact_last_name: req.lastName,
    contact_email: req.email,
    contact_phone: req.phone,
    team_name: req.teamName ?? null,
    joiner_session: joiner.session,
    joiner_address: joiner.address,
    confirm_token_hash: tokenHash,
    confirm_by: confirmBy,
    created_at: now,
  });
  return Number(id);
}

export async function requestByConfirmToken(conn: Conn, token: string): Promise<Request | undefined> {
  const row = await conn<Row>("waiting_list_requests").where({ confirm_token_hash: hashToken(token) }).first();
  return row ? mapRequest(row) : undefined;
}

/** The request's row locked (after the event row). */
export async function lockRequest(trx: Knex.Transaction, id: number): Promise<Request | undefined> {
  const row = await trx<Row>("waiting_list_requests").where({ id }).forUpdate().first();
  return row ? mapRequest(row) : undefined;
}

export async function setRequestEntry(trx: Knex.Transaction, id: number, entryId: number): Promise<void> {
  await trx("waiting_list_requests").where({ id }).update({ entry_id: entryId });
}

export async function entryById(conn: Conn, id: number): Promise<Entry | undefined> {
  const row = await conn<Row>("waiting_list_entries").where({ id }).first();
  return row ? mapEntry(row) : undefined;
}

/** Requests never confirmed whose link lapsed before `before`: deleted with the contact details they hold. */
export async function deleteLapsedRequests(conn: Conn, before: Date): Promise<number> {
  return conn("waiting_list_requests").whereNull("entry_id").andWhere("confirm_by", "<", before).delete();
}

// ---- the per-visitor cap ----

/**
 * The places a visitor (by session and by address) and an e-mail address have on waiting lists now: requests not
 * yet confirmed and still confirmable (the visitor's only: anyone can type an address), entries in line, and
 * offers' places held and not yet taken by someone's registration form (a taken place counts as that visitor's
 * held place: registrations' placesHeldBy). `exceptRegistrationId` is an offer's place being taken.
 */
export async function lineLoad(conn: Conn, who: Joiner & { email: string | null }, now: Date, exceptRegistrationId?: number): Promise<{ session: number; address: number; email: number }> {
  const requests: Row | undefined = await conn<Row>("waiting_list_requests")
    .whereNull("entry_id")
    .andWhere("confirm_by", ">", now)
    .andWhere((w) => { w.where("joiner_session", who.session).orWhere("joiner_address", who.address); })
    .select(
      conn.raw("coalesce(sum(case when joiner_session = ? then places else 0 end), 0) as by_session", [who.session]),
      conn.raw("coalesce(sum(case when joiner_address = ? then places else 0 end), 0) as by_address", [who.address]),
    )
    .first();
  // An e-mail of null (a visitor taking an offer's place) matches no entry.
  const email = who.email ?? "";
  const bySessionAddressEmail = (col: string) => [
    conn.raw(`coalesce(sum(case when w.joiner_session = ? then ${col} else 0 end), 0) as by_session`, [who.session]),
    conn.raw(`coalesce(sum(case when w.joiner_address = ? then ${col} else 0 end), 0) as by_address`, [who.address]),
    conn.raw(`coalesce(sum(case when w.contact_email = ? then ${col} else 0 end), 0) as by_email`, [email]),
  ];
  const mine = (w: Knex.QueryBuilder) => { w.where("w.joiner_session", who.session).orWhere("w.joiner_address", who.address).orWhere("w.contact_email", email); };
  const waiting: Row | undefined = await conn<Row>("waiting_list_entries as w").where("w.status", "waiting").andWhere(mine).select(...bySessionAddressEmail("w.places")).first();
  const offeredQ = conn<Row>("waiting_list_entries as w")
    .join("waiting_list_holds as h", "h.entry_id", "w.id")
    .join("registrations as r", "r.id", "h.registration_id")
    .where("w.status", "offered")
    .andWhere("r.status", "pending_payment")
    .andWhere("r.reserved_until", ">", now)
    .whereNull("r.holder_session")
    .andWhere(mine);
  if (exceptRegistrationId !== undefined) offeredQ.andWhereNot("r.id", exceptRegistrationId);
  const offered = (await offeredQ.select(...bySessionAddressEmail("r.places")).first()) as Row | undefined;
  const n = (r: Row | undefined, k: string) => Number(r?.[k] ?? 0);
  return {
    session: n(requests, "by_session") + n(waiting, "by_session") + n(offered, "by_session"),
    address: n(requests, "by_address") + n(waiting, "by_address") + n(offered, "by_address"),
    email: n(waiting, "by_email") + n(offered, "by_email"),
  };
}
