import type { Knex } from "knex";
import { movePlaces } from "../../../events/places.ts";
import type { RegistrationKind } from "../registration.ts";
import type { Conn, Row } from "./rows.ts";
import type { ServerBegin } from "../../../db/serverBegins.ts";

/** Unpaid holds: who holds them (the visitor's lock and places held), a live hold kept or claimed, a waiting-list offer's hold. */

/** Who holds a registration unpaid: hashes of the visitor's session key and address. */
export interface Holder {
  session: string;
  address: string;
}

/**
 * 0. The visitor's own rows (one per hash: session key, address), locked first by a hold or a join: one visitor's
 * holds are decided one after another, so their cap (placesHeldBy, read after this lock) holds under races, and no
 * other visitor waits for them.
 */
export async function lockVisitor(trx: Knex.Transaction, holder: Holder): Promise<void> {
  const rows = [...new Set([holder.session, holder.address])].sort().map((h) => ({ holder: h }));
  await trx("hold_visitors").insert(rows).onConflict("holder").merge();
}

/**
 * MySQL: a new hold's BEGIN, lockVisitor and placesHeldBy (no `exceptId`) as one round trip, the procedure
 * `begin_hold` (migrations/20261204000300_begin_hold.ts) in place of knex's BEGIN (src/db/serverBegins.ts). Given to
 * the transaction as `{ beginWith }`; placesHeldAtBegin reads its answer inside the work.
 */
export function beginHold(holder: Holder, now: Date): ServerBegin {
  return { sql: "call begin_hold(?, ?, ?)", bindings: [holder.session, holder.address, now] };
}

/** What begin_hold answered: the visitor's places held, as placesHeldBy answers them. */
export function placesHeldAtBegin(begin: ServerBegin): { session: number; address: number } {
  const row = begin.rows?.[0];
  if (!row) throw new Error("begin_hold answered no row");
  return { session: Number(row.by_session), address: Number(row.by_address) };
}

/** Places this visitor (by session key, or by address) holds unpaid right now, other than in `exceptId`. */
export async function placesHeldBy(trx: Knex.Transaction, holder: Holder, now: Date, exceptId?: number): Promise<{ session: number; address: number }> {
  const q = trx<Row>("registrations")
    .where("status", "pending_payment")
    .andWhere("reserved_until", ">", now)
    .andWhere((w) => { w.where("holder_session", holder.session).orWhere("holder_address", holder.address); });
  if (exceptId !== undefined) q.andWhereNot("id", exceptId);
  const bySessionAndAddress = [
    trx.raw("coalesce(sum(case when holder_session = ? then places else 0 end), 0) as by_session", [holder.session]),
    trx.raw("coalesce(sum(case when holder_address = ? then places else 0 end), 0) as by_address", [holder.address]),
  ];
  // Athletes being added to a paid team hold places too (registration_changes).
  const changes = trx<Row>("registration_changes")
    .where("status", "pending")
    .andWhere("reserved_until", ">", now)
    .andWhere((w) => { w.where("holder_session", holder.session).orWhere("holder_address", holder.address); })
    .select(...bySessionAndAddress);
  // One round trip (a hold runs this under the event's lock): both sums in one statement.
  const rows: Row[] = await trx.select("*").from(q.select(...bySessionAndAddress).unionAll(changes).as("held"));
  return {
    session: rows.reduce((sum, r) => sum + Number(r.by_session ?? 0), 0),
    address: rows.reduce((sum, r) => sum + Number(r.by_address ?? 0), 0),
  };
}

/** The places a registration holds while its hold is live (0 once paid, lapsed or gone). */
export async function livePlacesHeld(conn: Conn, id: number, now: Date): Promise<number> {
  const row = await conn<Row>("registrations").where({ id, status: "pending_payment" }).andWhere("reserved_until", ">", now).first("places");
  return Number(row?.places ?? 0);
}

/** A waiting-list offer's place taken by a visitor: from now on it counts against that visitor's cap (placesHeldBy). */
export async function claimHold(trx: Knex.Transaction, registrationId: number, holder: Holder, now: Date): Promise<void> {
  await trx("registrations").where({ id: registrationId }).update({ holder_session: holder.session, holder_address: holder.address, updated_at: now });
}

/** A live hold kept until `until` (never shortened): its payment is being confirmed. Under the aggregate's locks. */
export async function keepHoldUntil(trx: Knex.Transaction, id: number, until: Date, now: Date): Promise<boolean> {
  const changed = await trx("registrations").where({ id, status: "pending_payment" }).andWhere("reserved_until", ">", now).andWhere("reserved_until", "<", until).update({ reserved_until: until, updated_at: now });
  return changed === 1;
}

/** What a waiting-list offer holds (src/registrations/waitlist/offer.ts): its places, package and price, no athletes yet. */
export interface OfferedHold {
  reference: string;
  eventId: number;
  kind: RegistrationKind;
  teamName: string | null;
  places: number;
  packageCode: string;
  packageLabel: string;
  priceCents: number;
  contact: { firstName: string; lastName: string; email: string; phone: string | null };
  formSessionId: string;
  reservedUntil: Date;
  dayIds: number[];
}

/**
 * A pending registration holding an offer's places until the offer ends: the entry's contact and package, no
 * athletes yet (the registration or team form fills them in, on the same row: its form id is the row's).
 */
export async function insertOfferedHold(trx: Knex.Transaction, h: OfferedHold, now: Date): Promise<number> {
  const [id] = await trx("registrations").insert({
    reference: h.reference,
    event_id: h.eventId,
    kind: h.kind,
    team_name: h.teamName,
    status: "pending_payment",
    places: h.places,
    package_code: h.packageCode,
    package_label: h.packageLabel,
    list_price_cents: h.priceCents,
    amount_cents: h.priceCents,
    contact_first_name: h.contact.firstName,
    contact_last_name: h.contact.lastName,
    contact_email: h.contact.email,
    contact_phone: h.contact.phone,
    form_session_id: h.formSessionId,
    reserved_until: h.reservedUntil,
    // The row requires it; the form records the real agreement when it is submitted (it rewrites agreed_at).
    agreed_at: now,
    created_at: now,
    updated_at: now,
    version: 1,
  });
  const registrationId = Number(id);
  if (h.dayIds.length > 0) await trx("registration_days").insert(h.dayIds.map((dayId) => ({ registration_id: registrationId, event_day_id: dayId })));
  // An offer round decides under the event's lock (lockEvent): its places are counted here.
  await movePlaces(trx, h.eventId, h.places);
  return registrationId;
}
