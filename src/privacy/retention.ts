/**
 * Deletes what has been kept as long as the privacy page says (the periods of src/shared/inbox/policies.ts, the one
 * list): sent e-mails and teams' invite links after 90 days, messages, quote requests and coach requests (with their logos) after 2 years,
 * orders and their payments 7 years after the order, registrations and their payments 7 years after the camp.
 * Each statement deletes by age only, so several instances (or the command and an instance) running it at once
 * delete each row once and nothing else.
 */
import type { Db } from "../db/knex.ts";
import { COUNTED_REGISTRATION_STATUSES, movePlaces } from "../events/places.ts";
import { deleteStoredFiles } from "../db/storedFiles.ts";
import { MESSAGE_YEARS, ORDER_RECORD_YEARS, OUTBOX_DAYS, TEAM_INVITE_DAYS } from "../shared/inbox/policies.ts";

export type RetentionCounts = Record<string, number>;

const DAY_MS = 86_400_000;
function yearsBefore(now: Date, years: number): Date {
  const d = new Date(now);
  d.setUTCFullYear(d.getUTCFullYear() - years);
  return d;
}

export async function applyRetention(db: Db, now: Date): Promise<RetentionCounts> {
  const outboxCutoff = new Date(now.getTime() - OUTBOX_DAYS * DAY_MS);
  const messageCutoff = yearsBefore(now, MESSAGE_YEARS);
  const recordCutoff = yearsBefore(now, ORDER_RECORD_YEARS);
  const counts: RetentionCounts = {};
  counts.email_outbox = await db("email_outbox")
    .where((q) => { q.where("status", "sent").where("sent_at", "<", outboxCutoff); })
    .orWhere((q) => { q.where("status", "failed").where("created_at", "<", outboxCutoff); })
    .delete();
  // "Registered before?" links count the e-mails of the last 24 hours and open for 30 minutes: a day is all they are kept.
  counts.returning_links = await db("returning_links").where("created_at", "<", new Date(now.getTime() - DAY_MS)).delete();
  counts.team_invites = await db.transaction(async (trx): Promise<number> => {
    const old = (await trx("team_invites").where("updated_at", "<", new Date(now.getTime() - TEAM_INVITE_DAYS * DAY_MS)).pluck("id")) as number[];
    await trx("team_invite_rows").whereIn("invite_id", old).delete();
    return Number(await trx("team_invites").whereIn("id", old).delete());
  });
  counts.contact_messages = await db("contact_messages").where("created_at", "<", messageCutoff).delete();
  counts.quote_requests = await db("quote_requests").where("created_at", "<", messageCutoff).delete();
  counts.coach_requests = await db.transaction(async (trx): Promise<number> => {
    const old = await trx<{ id: number; logo_file: string | null }>("coach_requests").where("created_at", "<", messageCutoff).select("id", "logo_file");
    await deleteStoredFiles(trx, old.flatMap((r) => (r.logo_file ? [r.logo_file] : [])));
    return Number(await trx("coach_requests").whereIn("id", old.map((r) => r.id)).delete());
  });
  counts.orders = await db.transaction(async (trx): Promise<number> => {
    const old = (await trx("orders").where("created_at", "<", recordCutoff).pluck("reference")) as string[];
    await trx("payments").where("kind", "order").whereIn("reference", old).delete();
    return Number(await trx("orders").whereIn("reference", old).delete());
  });
  counts.registrations = await db.transaction(async (trx): Promise<number> => {
    const pastEvents = trx("events").where("end_date", "<", recordCutoff).select("id");
    const old = (await trx("registrations").whereIn("event_id", pastEvents).pluck("reference")) as string[];
    // Their events' counts of places (src/events/places.ts) give back what the deleted rows counted; locked, so a
    // second instance running this at once finds the rows gone and gives back nothing twice.
    const counted: { event_id: unknown; places: unknown }[] = await trx("registrations").whereIn("reference", old).whereIn("status", [...COUNTED_REGISTRATION_STATUSES]).forUpdate().groupBy("event_id").select("event_id").sum({ places: "places" });
    for (const c of counted) await movePlaces(trx, Number(c.event_id), -Number(c.places));
    await trx("payments").where("kind", "registration").whereIn("reference", old).delete();
    return Number(await trx("registrations").whereIn("reference", old).delete());
  });
  return counts;
}
