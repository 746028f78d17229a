import type { Knex } from "knex";
import type { Db } from "../../../db/knex.ts";
import { toDate, toJson, type Row } from "../../../db/rows.ts";
import { toText } from "../../../shared/toText.ts";
import { blankCoach, type AthleteRow, type CoachValues, type TeamAthlete } from "../../../shared/registrations/teamRules.ts";

/** The invites' own queries (team_invites, team_invite_rows): a coach's draft and the rows families fill in. */

type Conn = Db | Knex.Transaction;

export interface Invite {
  id: number;
  eventId: number;
  formSessionId: string;
  coach: CoachValues;
  /** The rows the coach typed. */
  rows: AthleteRow[];
  registrationReference: string | null;
  paidAt: Date | null;
}

export interface InviteWaiver {
  version: string;
  signedName: string;
  relationship: string;
  signedAt: Date;
}

export interface InviteRow {
  id: number;
  athlete: TeamAthlete;
  waiver: InviteWaiver | null;
  heldPosition: number | null;
}

const inviteOf = (r: Row): Invite => ({
  id: Number(r.id),
  eventId: Number(r.event_id),
  formSessionId: String(r.form_session_id),
  coach: { ...blankCoach(), ...toJson<Partial<CoachValues>>(r.coach_json, {}) },
  rows: toJson<AthleteRow[]>(r.rows_json, []),
  registrationReference: r.registration_reference === null ? null : toText(r.registration_reference),
  paidAt: toDate(r.paid_at),
});

const rowOf = (r: Row): InviteRow => ({
  id: Number(r.id),
  athlete: {
    firstName: String(r.first_name),
    lastName: String(r.last_name),
    age: Number(r.age),
    email: String(r.email),
    shirtSize: String(r.shirt_size) as TeamAthlete["shirtSize"],
    parentName: String(r.parent_name),
    parentPhoneNumber: String(r.parent_phone),
  },
  waiver: r.waiver_version
    ? { version: toText(r.waiver_version), signedName: String(r.waiver_signed_name), relationship: String(r.waiver_signer_relationship), signedAt: toDate(r.waiver_signed_at)! }
    : null,
  heldPosition: r.held_position === null ? null : Number(r.held_position),
});

export async function insertInvite(conn: Conn, i: { eventId: number; tokenHash: string; formSessionId: string; coach: CoachValues; rows: AthleteRow[] }, now: Date): Promise<number> {
  const [id] = await conn("team_invites").insert({
    event_id: i.eventId,
    token_hash: i.tokenHash,
    form_session_id: i.formSessionId,
    coach_json: JSON.stringify(i.coach),
    rows_json: JSON.stringify(i.rows),
    created_at: now,
    updated_at: now,
  });
  return Number(id);
}

export async function inviteByTokenHash(conn: Conn, tokenHash: string): Promise<Invite | undefined> {
  const row: Row | undefined = await conn<Row>("team_invites").where({ token_hash: tokenHash }).first();
  return row ? inviteOf(row) : undefined;
}

/** The invite's row for update: one family's row, the coach's hold and the team's payment are decided one at a time. */
export async function lockInvite(trx: Knex.Transaction, id: number): Promise<Invite | undefined> {
  const row: Row | undefined = await trx<Row>("team_invites").where({ id }).forUpdate().first();
  return row ? inviteOf(row) : undefined;
}

export async function lockInviteOfReference(trx: Knex.Transaction, reference: string): Promise<Invite | undefined> {
  const row: Row | undefined = await trx<Row>("team_invites").where({ registration_reference: reference }).orderBy("id", "desc").forUpdate().first();
  return row ? inviteOf(row) : undefined;
}

export async function saveDraft(conn: Conn, id: number, d: { formSessionId: string; coach: CoachValues; rows: AthleteRow[] }, now: Date): Promise<void> {
  await conn("team_invites").where({ id }).whereNull("paid_at").update({ form_session_id: d.formSessionId, coach_json: JSON.stringify(d.coach), rows_json: JSON.stringify(d.rows), updated_at: now });
}

export async function rowsOf(conn: Conn, inviteId: number): Promise<InviteRow[]> {
  const rows: Row[] = await conn<Row>("team_invite_rows").where({ invite_id: inviteId }).orderBy("id");
  return rows.map(rowOf);
}

const columnsOf = (a: TeamAthlete) => ({
  first_name: a.firstName,
  last_name: a.lastName,
  age: a.age,
  email: a.email,
  shirt_size: a.shirtSize,
  parent_name: a.parentName,
  parent_phone: a.parentPhoneNumber,
});
const waiverColumns = (w: Omit<InviteWaiver, "signedAt"> | null, now: Date) => ({
  waiver_version: w?.version ?? null,
  waiver_signed_name: w?.signedName ?? null,
  waiver_signer_relationship: w?.relationship ?? null,
  waiver_signed_at: w ? now : null,
});

export async function insertRow(trx: Knex.Transaction, inviteId: number, a: TeamAthlete, waiver: Omit<InviteWaiver, "signedAt"> | null, now: Date): Promise<number> {
  const [id] = await trx("team_invite_rows").insert({ invite_id: inviteId, ...columnsOf(a), ...waiverColumns(waiver, now), created_at: now, updated_at: now });
  return Number(id);
}

/** A family corrects its row; `waiver` undefined keeps the signature as it is. */
export async function updateRow(trx: Knex.Transaction, id: number, a: TeamAthlete, waiver: Omit<InviteWaiver, "signedAt"> | null | undefined, now: Date): Promise<void> {
  await trx("team_invite_rows").where({ id }).update({ ...columnsOf(a), ...(waiver === undefined ? {} : waiverColumns(waiver, now)), updated_at: now });
}

/** The team held from the invite, and where each family's row sits on it (the other rows are not on it). */
export async function markHeld(trx: Knex.Transaction, inviteId: number, reference: string, positions: Map<number, number>, now: Date): Promise<void> {
  await trx("team_invites").where({ id: inviteId }).update({ registration_reference: reference, updated_at: now });
  await trx("team_invite_rows").where({ invite_id: inviteId }).update({ held_position: null });
  for (const [rowId, position] of positions) await trx("team_invite_rows").where({ id: rowId, invite_id: inviteId }).update({ held_position: position });
}

export async function deleteRow(trx: Knex.Transaction, inviteId: number, rowId: number): Promise<number> {
  return Number(await trx("team_invite_rows").where({ id: rowId, invite_id: inviteId }).delete());
}

export async function markPaid(trx: Knex.Transaction, inviteId: number, now: Date): Promise<void> {
  await trx("team_invites").where({ id: inviteId }).update({ paid_at: now, updated_at: now });
}
