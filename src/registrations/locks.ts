import type { Knex } from "knex";

/**
 * The registration aggregate's lock order, followed by every transaction that changes a registration:
 *
 *   1. the event row            places are decided under it, and it serialises every change to the event's registrations
 *   2. the discount code row    a code's limit is decided under it (only when a code is involved)
 *   3. the registration row     its status, version, details and code
 *
 * The payment core's settlement holds the payment row before it calls the registration handler, which then takes
 * 1 to 3 in this order; no registration transaction locks a payment row after these. All of them run through
 * `lockingTransaction` (src/db/transaction.ts): READ COMMITTED on MySQL, so what is read after a lock is current,
 * and a deadlock or lock-wait timeout runs the transaction again instead of answering 500.
 */

/** 1. The event row; undefined when there is no such event. */
export async function lockEvent(trx: Knex.Transaction, eventId: number): Promise<Record<string, unknown> | undefined> {
  return trx("events").where({ id: eventId }).forUpdate().first();
}

/** 2. A discount code's row. */
export async function lockCode(trx: Knex.Transaction, codeId: number): Promise<void> {
  await trx("discount_codes").where({ id: codeId }).forUpdate().first("id");
}

// 3. The registration row: repository.lockByReference / lockByFormSession.
