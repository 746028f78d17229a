import type { Knex } from "knex";
import { lockPlacesCount } from "../../events/places.ts";
import type { Row } from "./tables/rows.ts";

/**
 * The registration aggregate's lock order, followed by every transaction that changes a registration:
 *
 *   1. the event row            places are decided under it, and it serialises every change to the event's registrations
 *   2. the discount code row    a code's limit is decided under it (only when a code is involved)
 *   3. the registration row     its status, version, details and code
 *   (4. a change's row          registration_changes: after the registration's, when a change is settled or ended)
 *
 * A transaction that refunds (a cancellation, a cheaper package) first locks the payments that hold the registration's
 * money (its payment group, src/payments/groups.ts), in id order, as settlement does. src/registrations/core/
 * withRegistration.ts takes these locks once for every use case that changes a registration. The payment core's settlement holds the payment row before it calls the registration handler, which then takes
 * 1 to 3 in this order, or 3 alone when it pays a live hold (nothing about places or codes is decided then; should the
 * hold be found lapsed under 3, the transaction starts again and takes 1 to 3: src/registrations/booking/paymentHandler.ts);
 * no registration transaction locks a payment row after these. All of them run through
 * `lockingTransaction` (src/db/transaction.ts): READ COMMITTED on MySQL, so what is read after a lock is current,
 * and a deadlock or lock-wait timeout runs the transaction again instead of answering 500.
 */


/** The name under which this process queues the transactions that take an event's lock (src/db/rowQueue.ts). */
export const eventKey = (eventId: number) => `event:${eventId}`;

/**
 * The payment core's transactions on an event's registrations (a settlement after the card) queue apart from its
 * holds: a live hold's settlement takes no event lock at all, and any other waits in MySQL for it behind the one hold
 * running, not behind every hold queued here.
 */
export const eventPaymentsKey = (eventId: number) => `event:${eventId}:payments`;

/** The in-process queue of one registration's settlements that lock only its own row (a live hold's). */
export const registrationPaymentsKey = (reference: string) => `registration:${reference}:payments`;

/**
 * 1. The event: its row share-locked (its capacity and dates stay as read; a hold's insert share-locks it too), then its
 * count of places (src/events/places.ts) locked for update; undefined when there is no such event. The row comes with
 * `places_taken`, the count as locked. Every decision on the event's places that is not a hold's admission runs under
 * this lock.
 */
export async function lockEvent(trx: Knex.Transaction, eventId: number): Promise<Record<string, unknown> | undefined> {
  const row = await trx<Row>("events").where({ id: eventId }).forShare().first();
  if (!row) return undefined;
  return { ...row, places_taken: await lockPlacesCount(trx, eventId) };
}

/** 1. The event row locked for update, then its count: an operator's change of the row itself (capacity, dates). */
export async function lockEventForChange(trx: Knex.Transaction, eventId: number): Promise<Record<string, unknown> | undefined> {
  const row = await trx<Row>("events").where({ id: eventId }).forUpdate().first();
  if (!row) return undefined;
  return { ...row, places_taken: await lockPlacesCount(trx, eventId) };
}

/** 2. A discount code's row. */
export async function lockCode(trx: Knex.Transaction, codeId: number): Promise<void> {
  await trx("discount_codes").where({ id: codeId }).forUpdate().first("id");
}
