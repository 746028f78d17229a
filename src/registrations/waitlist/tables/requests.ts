import type { Knex } from "knex";
import { toDate } from "../../../db/rows.ts";
import type { EntryKind, JoinRequest } from "../../../shared/registrations/waitingList.ts";
import { toText } from "../../../shared/toText.ts";
import type { Conn, Row } from "../../core/tables/rows.ts";
import { hashToken, type Joiner } from "./entries.ts";

/** Requests to join the waiting list (waiting_list_requests), until their e-mail is confirmed. */
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

/** Requests never confirmed whose link lapsed before `before`: deleted with the contact details they hold. */
export async function deleteLapsedRequests(conn: Conn, before: Date): Promise<number> {
  return conn("waiting_list_requests").whereNull("entry_id").andWhere("confirm_by", "<", before).delete();
}
