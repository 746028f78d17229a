import type { Knex } from "knex";
import type { Db } from "../db/knex.ts";
import { toDate } from "../db/rows.ts";
import { PAYABLE_STATUSES, type PaymentStatus } from "./stateMachine.ts";

export interface PaymentRow {
  id: number;
  kind: string;
  reference: string;
  providerPaymentId: string;
  idempotencyKey: string;
  amountCents: number;
  currency: string;
  status: PaymentStatus;
  paidVia: string | null;
  lastError: string | null;
  createdAt: Date;
  paidAt: Date | null;
}

type Conn = Db | Knex.Transaction;

function mapPayment(r: Record<string, unknown>): PaymentRow {
  return {
    id: Number(r.id),
    kind: String(r.kind),
    reference: String(r.reference),
    providerPaymentId: String(r.provider_payment_id),
    idempotencyKey: String(r.idempotency_key),
    amountCents: Number(r.amount_cents),
    currency: String(r.currency),
    status: String(r.status) as PaymentStatus,
    paidVia: (r.paid_via as string | null) ?? null,
    lastError: (r.last_error as string | null) ?? null,
    createdAt: toDate(r.created_at)!,
    paidAt: toDate(r.paid_at),
  };
}

export async function insertPayment(
  conn: Conn,
  p: { kind: string; reference: string; providerPaymentId: string; idempotencyKey: string; amountCents: number; currency: string },
): Promise<PaymentRow> {
  const now = new Date();
  await conn("payments").insert({
    kind: p.kind,
    reference: p.reference,
    provider: "stripe",
    provider_payment_id: p.providerPaymentId,
    idempotency_key: p.idempotencyKey,
    amount_cents: p.amountCents,
    currency: p.currency,
    status: "pending",
    created_at: now,
    updated_at: now,
  });
  return (await findByIntentId(conn, p.providerPaymentId))!;
}

export async function findByIntentId(conn: Conn, intentId: string): Promise<PaymentRow | undefined> {
  const row = await conn("payments").where({ provider_payment_id: intentId }).first();
  return row ? mapPayment(row) : undefined;
}

/** The newest payment for a paid-for row (an order or a registration). */
export async function findLatestFor(conn: Conn, kind: string, reference: string): Promise<PaymentRow | undefined> {
  const row = await conn("payments").where({ kind, reference }).orderBy("id", "desc").first();
  return row ? mapPayment(row) : undefined;
}

/** The exactly-once guard: only one caller's UPDATE finds the row still unpaid. Returns true for that caller. */
export async function markPaidOnce(trx: Knex.Transaction, id: number, via: "return" | "webhook"): Promise<boolean> {
  const now = new Date();
  const changed = await trx("payments")
    .where({ id })
    .whereIn("status", PAYABLE_STATUSES)
    .update({ status: "paid", paid_via: via, paid_at: now, updated_at: now, last_error: null });
  return changed === 1;
}

export async function setStatus(conn: Conn, id: number, status: PaymentStatus, lastError: string | null): Promise<void> {
  await conn("payments").where({ id }).whereNot({ status: "paid" }).update({ status, last_error: lastError, updated_at: new Date() });
}

export async function updateAmount(conn: Conn, id: number, amountCents: number): Promise<void> {
  await conn("payments").where({ id }).whereNot({ status: "paid" }).update({ amount_cents: amountCents, updated_at: new Date() });
}

/** Records a webhook event; returns false when its id was seen before (a redelivery). */
export async function recordEvent(conn: Conn, e: { eventId: string; type: string; intentId: string | null }): Promise<{ isNew: boolean; processed: boolean }> {
  const existing = await conn("stripe_events").where({ event_id: e.eventId }).first();
  if (existing) return { isNew: false, processed: existing.processed_at !== null && existing.processed_at !== undefined };
  try {
    await conn("stripe_events").insert({ event_id: e.eventId, type: e.type, provider_payment_id: e.intentId, received_at: new Date() });
    return { isNew: true, processed: false };
  } catch (err) {
    // Two deliveries of one event at the same moment: the unique index lets one insert win.
    const again = await conn("stripe_events").where({ event_id: e.eventId }).first();
    if (again) return { isNew: false, processed: again.processed_at !== null && again.processed_at !== undefined };
    throw err;
  }
}

export async function markEventProcessed(conn: Conn, eventId: string): Promise<void> {
  await conn("stripe_events").where({ event_id: eventId }).update({ processed_at: new Date(), last_error: null });
}

export async function markEventFailed(conn: Conn, eventId: string, error: string): Promise<void> {
  await conn("stripe_events").where({ event_id: eventId }).update({ last_error: error.slice(0, 2000) });
}
