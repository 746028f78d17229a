import type { Knex } from "knex";
import { toDate } from "../../../db/rows.ts";
import { changeCountsPlaces, movePlaces } from "../../../events/places.ts";
import type { TeamRegistration } from "../../../shared/registrations/teamRules.ts";
import { CHANGE_TRANSITIONS, type ChangeStatus, type ChangeTransition } from "../states.ts";
import { str, type Conn, type Row } from "./rows.ts";

/** Changes paid through their own PaymentIntent (registration_changes): an upgrade, athletes added to a team. */

export type ChangeKind = "upgrade" | "add_athletes";

export type { ChangeStatus };

/** The change's data: the new package and its days, or the athletes to add (the team form's fields, checked). */
export type ChangeData =
  | { kind: "upgrade"; fromPackageCode: string; fromListPriceCents: number; packageCode: string; packageLabel: string; priceCents: number; dayIds: number[] }
  /** balanceCents: on a deposit plan, the part of the athletes' price added to the balance (the change charges the rest). */
  | { kind: "add_athletes"; pricePerAthleteCents: number; athletes: TeamRegistration["athletes"]; balanceCents?: number };

export interface RegistrationChange {
  id: number;
  registrationId: number;
  eventId: number;
  kind: ChangeKind;
  data: ChangeData;
  places: number;
  amountCents: number;
  pricedVersion: number;
  status: ChangeStatus;
  reservedUntil: Date;
  holderSession: string | null;
  createdAt: Date;
  paidAt: Date | null;
}

export function mapChange(row: Row): RegistrationChange {
  return {
    id: Number(row.id),
    registrationId: Number(row.registration_id),
    eventId: Number(row.event_id),
    kind: String(row.kind) as ChangeKind,
    data: JSON.parse(String(row.data_json)) as ChangeData,
    places: Number(row.places),
    amountCents: Number(row.amount_cents),
    pricedVersion: Number(row.priced_version),
    status: String(row.status) as ChangeStatus,
    reservedUntil: toDate(row.reserved_until)!,
    holderSession: str(row.holder_session),
    createdAt: toDate(row.created_at)!,
    paidAt: toDate(row.paid_at),
  };
}

export async function findChange(conn: Conn, id: number): Promise<RegistrationChange | undefined> {
  const row: Row | undefined = await conn<Row>("registration_changes").where({ id }).first();
  return row ? mapChange(row) : undefined;
}

/** After the event's and the registration's locks (the aggregate's order): the change's own row. */
export async function lockChangeRow(trx: Knex.Transaction, id: number): Promise<RegistrationChange | undefined> {
  const row: Row | undefined = await trx<Row>("registration_changes").where({ id }).forUpdate().first();
  return row ? mapChange(row) : undefined;
}

/** The registration's changes in these statuses, oldest first. */
export async function changesOf(conn: Conn, registrationId: number, statuses: readonly ChangeStatus[]): Promise<RegistrationChange[]> {
  const rows: Row[] = await conn<Row>("registration_changes").where({ registration_id: registrationId }).whereIn("status", [...statuses]).orderBy("id");
  return rows.map(mapChange);
}

/** Moves a change from one of `from` to `to`; of two callers exactly one gets true. Under the aggregate's locks. */
export async function moveChange(trx: Knex.Transaction, id: number, step: ChangeTransition, now: Date, fields: Record<string, unknown> = {}): Promise<boolean> {
  const { from, to } = CHANGE_TRANSITIONS[step];
  const moves = from.some((s) => changeCountsPlaces(s) !== changeCountsPlaces(to));
  const before = moves ? await trx<Row>("registration_changes").where({ id }).forUpdate().first("status", "places", "event_id") : undefined;
  const changed = (await trx("registration_changes").where({ id }).whereIn("status", [...from]).update({ ...fields, status: to, updated_at: now })) === 1;
  if (changed && before) {
    const places = Number(before.places);
    await movePlaces(trx, Number(before.event_id), (changeCountsPlaces(to) ? places : 0) - (changeCountsPlaces(String(before.status)) ? places : 0));
  }
  return changed;
}

/** Places that pending add-athlete changes hold at an event at `now` (a lapsed one holds none, before the sweep marks it). */
export async function placesHeldByChanges(conn: Conn, eventId: number, now: Date, exceptChangeId?: number): Promise<number> {
  const q = conn("registration_changes")
    .where({ event_id: eventId })
    .andWhere((w) => { w.where("status", "needs_review").orWhere((h) => { h.where("status", "pending").andWhere("reserved_until", ">", now); }); });
  if (exceptChangeId !== undefined) q.andWhereNot("id", exceptChangeId);
  const row: Row | undefined = await q.sum({ held: "places" }).first();
  return Number(row?.held ?? 0) || 0;
}
