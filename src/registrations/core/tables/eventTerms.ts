import { toDate } from "../../../db/rows.ts";
import type { Conn, Row } from "./rows.ts";

/** What the kernel reads of an event's own terms: its prices as stored now and its deadline for changes. */

/** The price of an event's package as stored now (cents); undefined when the event has no such package. */
export async function packagePriceCents(conn: Conn, eventId: number, code: string): Promise<number | undefined> {
  const row = await conn<Row>("event_packages").where({ event_id: eventId, code }).first("price_cents");
  return row ? Number(row.price_cents) : undefined;
}

/** The event's team price per athlete as stored now (cents). */
export async function teamPriceCents(conn: Conn, eventId: number): Promise<number> {
  return Number((await conn<Row>("events").where({ id: eventId }).first("team_price_cents"))?.team_price_cents);
}

/** The event's own deadline for changes (`events.changes_freeze_at`), null when it keeps the default. */
export async function eventChangesFreezeAt(conn: Conn, eventId: number): Promise<Date | null> {
  return toDate((await conn<Row>("events").where({ id: eventId }).first("changes_freeze_at"))?.changes_freeze_at);
}
