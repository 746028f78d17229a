import type { Knex } from "knex";
import type { Conn, Row } from "../../core/tables/rows.ts";
import type { Joiner } from "./entries.ts";

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
