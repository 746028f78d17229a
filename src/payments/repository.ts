import type { Knex } from "knex";
import type { Db } from "../db/knex.ts";
import { asStored, isUniqueViolation, type Row, toDate } from "../db/rows.ts";
import { isLive, TRANSITIONS, type PaymentStatus, type Transition } from "./transitions.ts";
import { countPaymentTransition } from "../metrics/hooks.ts";

export interface PaymentRow {
  id: number;
  kind: string;
  reference: string;
  /** The registration or order whose money this is (src/payments/groups.ts): a change's payment has its registration's reference. */
  group: string;
  /** `stripe`, or `none` for a free settlement (no PaymentIntent). */
  provider: string;
  /** The PaymentIntent id; null for a free settlement, and for a moment while the intent is being created. */
  providerPaymentId: string | null;
  amountCents: number;
  currency: string;
  status: PaymentStatus;
  /** An amount change in flight: Stripe is being (or was, before a crash) asked for this amount. */
  expectedAmountCents: number | null;
  amountChangeStartedAt: Date | null;
  paidVia: string | null;
  lastError: string | null;
  reviewReason: string | null;
  refundReason: string | null;
  createdAt: Date;
  paidAt: Date | null;
  refundedAt: Date | null;
  /** The version of the paid-for row that the PaymentIntent's amount was set for (registrations); null: none given. */
  coversVersion: number | null;
  /** Refunded so far (a partial refund leaves the payment paid). */
  amountRefundedCents: number;
  /** What Stripe charged: the row's amount, or what a payment in review was really charged (amount_received_cents). */
  chargedCents: number;
  /** The idempotency key of the PaymentIntent's creation, or of the latest off-session attempt (saved cards). */
  idempotencyKey: string | null;
}

type Conn = Db | Knex.Transaction;

export const liveKey = (kind: string, reference: string) => `${kind}:${reference}`;

/** A payments row as read (a locked row lockForUpdate returned, say). */
export function paymentOf(r: Record<string, unknown>): PaymentRow {
  return mapPayment(r);
}

function mapPayment(r: Record<string, unknown>): PaymentRow {
  return {
    id: Number(r.id),
    kind: String(r.kind),
    reference: String(r.reference),
    group: String(r.group_reference ?? r.reference),
    provider: String(r.provider),
    providerPaymentId: (r.provider_payment_id as string | null) ?? null,
    amountCents: Number(r.amount_cents),
    currency: String(r.currency),
    status: String(r.status) as PaymentStatus,
    expectedAmountCents: r.expected_amount_cents === null || r.expected_amount_cents === undefined ? null : Number(r.expected_amount_cents),
    amountChangeStartedAt: toDate(r.amount_change_started_at),
    paidVia: (r.paid_via as string | null) ?? null,
    lastError: (r.last_error as string | null) ?? null,
    reviewReason: (r.review_reason as string | null) ?? null,
    refundReason: (r.refund_reason as string | null) ?? null,
    createdAt: toDate(r.created_at)!,
    paidAt: toDate(r.paid_at),
    refundedAt: toDate(r.refunded_at),
    coversVersion: r.covers_version === null || r.covers_version === undefined ? null : Number(r.covers_version),
    amountRefundedCents: Number(r.amount_refunded_cents ?? 0),
    chargedCents: r.amount_received_cents === null || r.amount_received_cents === undefined ? Number(r.amount_cents) : Number(r.amount_received_cents),
    idempotencyKey: (r.idempotency_key as string | null | undefined) ?? null,
  };
}

/**
 * Claims the (kind, reference)'s live slot with a row that has no PaymentIntent yet. Returns undefined
 * when another payment already holds the slot (the unique `live_key` index refused the insert).
 */
export async function claimLive(conn: Conn, p: { kind: string; reference: string; group: string; amountCents: number; currency: string; coversVersion?: number; idempotencyKey?: string }): Promise<PaymentRow | undefined> {
  const now = new Date();
  const row = asStored(conn, {
    kind: p.kind,
    reference: p.reference,
    group_reference: p.group,
    provider: "stripe",
    live_key: liveKey(p.kind, p.reference),
    amount_cents: p.amountCents,
    covers_version: p.coversVersion ?? null,
    idempotency_key: p.idempotencyKey ?? null,
    currency: p.currency,
    status: "pending",
    created_at: now,
    updated_at: now,
  });
  try {
    const [id] = await conn("payments").insert(row);
    // The row as written (every other column starts empty): not read back.
    return mapPayment({ ...row, id });
  } catch (err) {
    if (await findLive(conn, p.kind, p.reference)) return undefined;
    throw err;
  }
}

export async function setIntent(conn: Conn, id: number, intentId: string, idempotencyKey: string): Promise<void> {
  await conn("payments").where({ id }).whereNull("provider_payment_id").update({ provider_payment_id: intentId, idempotency_key: idempotencyKey, updated_at: new Date() });
}

/** An off-session attempt is about to be sent with this key (written first: a crash mid-call is retried with it). */
export async function setAttemptKey(conn: Conn, id: number, idempotencyKey: string): Promise<void> {
  await conn("payments").where({ id }).update({ idempotency_key: idempotencyKey, updated_at: new Date() });
}

/** The PaymentIntent, at its present amount, is for this version of the paid-for row. */
export async function setCoversVersion(conn: Conn, id: number, version: number): Promise<void> {
  await conn("payments").where({ id }).update({ covers_version: version, updated_at: new Date() });
}

/** What Stripe says has been refunded of this payment so far. */
export async function setAmountRefunded(conn: Conn, id: number, amountRefundedCents: number): Promise<void> {
  await conn("payments").where({ id }).update({ amount_refunded_cents: amountRefundedCents, updated_at: new Date() });
}

/** A free settlement: provider `none`, amount 0, paid at once. Throws when a live payment holds the slot. */
export async function insertFree(trx: Knex.Transaction, p: { kind: string; reference: string; group: string; currency: string; coversVersion?: number }): Promise<PaymentRow> {
  const now = new Date();
  const [id] = await trx("payments").insert({
    kind: p.kind,
    reference: p.reference,
    group_reference: p.group,
    provider: "none",
    live_key: liveKey(p.kind, p.reference),
    amount_cents: 0,
    covers_version: p.coversVersion ?? null,
    currency: p.currency,
    status: "paid",
    paid_via: "free",
    paid_at: now,
    created_at: now,
    updated_at: now,
  });
  return (await findById(trx, Number(id)))!;
}

export async function findById(conn: Conn, id: number): Promise<PaymentRow | undefined> {
  const row = await conn<Row>("payments").where({ id }).first();
  return row ? mapPayment(row) : undefined;
}

export async function findByIntentId(conn: Conn, intentId: string): Promise<PaymentRow | undefined> {
  const row = await conn<Row>("payments").where({ provider_payment_id: intentId }).first();
  return row ? mapPayment(row) : undefined;
}

/** The one live payment of a paid-for row (an order or a registration), if any. */
export async function findLive(conn: Conn, kind: string, reference: string): Promise<PaymentRow | undefined> {
  const row = await conn<Row>("payments").where({ live_key: liveKey(kind, reference) }).first();
  return row ? mapPayment(row) : undefined;
}

/** The newest payment of a paid-for row, live or not. */
export async function findLatestFor(conn: Conn, kind: string, reference: string): Promise<PaymentRow | undefined> {
  const row = await conn<Row>("payments").where({ kind, reference }).orderBy("id", "desc").first();
  return row ? mapPayment(row) : undefined;
}

/** A payment's row locked for the caller's transaction (after the transaction's first lock: src/db/locks.ts). */
export async function lockById(trx: Knex.Transaction, id: number): Promise<void> {
  await trx("payments").where({ id }).forUpdate().first("id");
}

/** Every payment of a group (src/payments/groups.ts), oldest first. */
export async function findByGroup(conn: Conn, group: string): Promise<PaymentRow[]> {
  return (await conn("payments").where({ group_reference: group }).orderBy("id")).map(mapPayment);
}

/** Every payment waiting for an operator (see the README for the same query in SQL). */
export async function listNeedsReview(conn: Conn): Promise<PaymentRow[]> {
  return (await conn("payments").where({ status: "needs_review" }).orderBy("id")).map(mapPayment);
}

/**
 * Moves a payment along one step of TRANSITIONS. Only a row still in one of the step's `from` statuses
 * changes, so of two callers of the same step exactly one gets true. The live slot follows the status.
 */
export async function transition(conn: Conn, id: number, step: Transition, fields: Record<string, unknown> = {}): Promise<boolean> {
  const { from, to } = TRANSITIONS[step];
  const row: Record<string, unknown> = { ...fields, status: to, updated_at: new Date() };
  if (!isLive(to)) row.live_key = null;
  const changed = await conn("payments").where({ id }).whereIn("status", [...from]).update(row);
  if (changed === 1) countPaymentTransition(conn, step, to);
  return changed === 1;
}

/**
 * The exactly-once guard: only one caller finds the row still payable. Returns the payment as now paid (from the
 * locked row it was given, not read again) for that caller, undefined for the others.
 */
export async function markPaidOnce(trx: Knex.Transaction, payment: PaymentRow, via: "return" | "webhook" | "off_session"): Promise<PaymentRow | undefined> {
  const fields = asStored(trx, { paid_via: via, paid_at: new Date(), last_error: null });
  if (!(await transition(trx, payment.id, "pay", fields))) return undefined;
  return { ...payment, status: TRANSITIONS.pay.to, paidVia: via, paidAt: fields.paid_at as Date, lastError: null };
}

/** Step 1 of an amount change, under the row lock: the amount Stripe is about to be asked for. */
export async function startAmountChange(trx: Knex.Transaction, id: number, amountCents: number): Promise<void> {
  await trx("payments").where({ id }).update({ expected_amount_cents: amountCents, amount_change_started_at: new Date(), updated_at: new Date() });
}

/** Step 2: Stripe answered; the amount it holds becomes the payment's amount. */
export async function finishAmountChange(conn: Conn, id: number, amountCents: number): Promise<void> {
  await conn("payments").where({ id }).update({ amount_cents: amountCents, expected_amount_cents: null, amount_change_started_at: null, updated_at: new Date() });
}

/**
 * Open payments with a PaymentIntent that are due for the reconciliation job: made more than `minAgeMs` ago, and
 * never asked about or due again.
 */
export async function dueForReconciliation(conn: Conn, now: Date, minAgeMs: number, limit: number): Promise<{ id: number; kind: string; reference: string; intentId: string; checks: number }[]> {
  const rows: Record<string, unknown>[] = await conn("payments")
    .whereIn("status", ["pending", "failed"])
    .whereNotNull("provider_payment_id")
    .andWhere("created_at", "<=", new Date(now.getTime() - minAgeMs))
    .andWhere((q) => { q.whereNull("reconcile_after").orWhere("reconcile_after", "<=", now); })
    .orderBy("id")
    .limit(limit)
    .select("id", "kind", "reference", "provider_payment_id", "reconcile_checks");
  return rows.map((r) => ({ id: Number(r.id), kind: String(r.kind), reference: String(r.reference), intentId: String(r.provider_payment_id), checks: Number(r.reconcile_checks) }));
}

/** Claims one due payment for this instance's question to Stripe (false: another instance has it); the last check sets no next time. */
export async function claimReconciliation(conn: Conn, id: number, now: Date, next: Date, last: boolean): Promise<boolean> {
  const changed = await conn("payments")
    .where({ id })
    .andWhere((q) => { q.whereNull("reconcile_after").orWhere("reconcile_after", "<=", now); })
    .update({ reconcile_after: last ? new Date("9999-12-31T00:00:00Z") : next, reconcile_checks: conn.raw("reconcile_checks + 1") });
  return changed === 1;
}

/**
 * Records a webhook event; answers `processed` true when an earlier delivery of the same event id was processed.
 * `opts.processed`: recorded as processed already (the webhook was told its payment is settled).
 */
export async function recordEvent(conn: Conn, e: { eventId: string; type: string; intentId: string | null }, opts: { processed?: boolean } = {}): Promise<{ isNew: boolean; processed: boolean }> {
  // Inserted first (most events are delivered once): the unique index refuses a delivery seen before, which is then read.
  try {
    const now = new Date();
    await conn("stripe_events").insert({ event_id: e.eventId, type: e.type, provider_payment_id: e.intentId, received_at: now, ...(opts.processed ? { processed_at: now } : {}) });
    return { isNew: true, processed: opts.processed === true };
  } catch (err) {
    if (!isUniqueViolation(err)) throw err;
    const again = await conn<Row>("stripe_events").where({ event_id: e.eventId }).first();
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
