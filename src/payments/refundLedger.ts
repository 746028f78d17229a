import { randomBytes } from "node:crypto";
import type { Knex } from "knex";
import type { Db } from "../db/knex.ts";
import { type Row, toDate } from "../db/rows.ts";

/**
 * The rows of `payment_refunds`: one per refund asked for (by the site) or found (made in Stripe's dashboard).
 *
 *   requested -> pending (Stripe took it and has not finished) -> succeeded | failed | canceled
 *   requested -> succeeded | failed (Stripe's first answer was final)
 *   succeeded -> failed (Stripe's asynchronous refund failure: the money went back to the merchant)
 */
export const REFUND_STATUSES = ["requested", "pending", "succeeded", "failed", "canceled"] as const;
export type RefundStatus = (typeof REFUND_STATUSES)[number];
/** Refunds that count against what is left to refund: asked for, under way, or done. */
export const COUNTED_REFUND_STATUSES: readonly RefundStatus[] = ["requested", "pending", "succeeded"];

export interface RefundRow {
  id: number;
  paymentId: number;
  amountCents: number;
  reason: string;
  /** What asked for it (`cancel:registration:42:v7`, `operator:refund:<uuid>`, `stripe:<re_...>`): never refunded twice. */
  requestKey: string;
  status: RefundStatus;
  providerRefundId: string | null;
  failureReason: string | null;
  createdAt: Date;
  updatedAt: Date;
}

type Conn = Db | Knex.Transaction;

function mapRefund(r: Record<string, unknown>): RefundRow {
  return {
    id: Number(r.id),
    paymentId: Number(r.payment_id),
    amountCents: Number(r.amount_cents),
    reason: String(r.reason),
    requestKey: String(r.request_key),
    status: String(r.status) as RefundStatus,
    providerRefundId: (r.provider_refund_id as string | null) ?? null,
    failureReason: (r.failure_reason as string | null) ?? null,
    createdAt: toDate(r.created_at)!,
    updatedAt: toDate(r.updated_at)!,
  };
}

export async function insertRefund(
  trx: Knex.Transaction,
  r: { paymentId: number; amountCents: number; reason: string; requestKey: string; status?: RefundStatus; providerRefundId?: string; sent?: boolean },
): Promise<RefundRow> {
  const now = new Date();
  const [id] = await trx("payment_refunds").insert({
    payment_id: r.paymentId,
    amount_cents: r.amountCents,
    reason: r.reason.slice(0, 500),
    request_key: r.requestKey,
    status: r.status ?? "requested",
    provider_refund_id: r.providerRefundId ?? null,
    // A refund found in Stripe has nothing to send.
    send_status: r.sent ? "sent" : "pending",
    next_attempt_at: now,
    created_at: now,
    updated_at: now,
  });
  return (await findRefund(trx, Number(id)))!;
}

export async function findRefund(conn: Conn, id: number): Promise<RefundRow | undefined> {
  const row = await conn<Row>("payment_refunds").where({ id }).first();
  return row ? mapRefund(row) : undefined;
}

export async function findRefundByKey(conn: Conn, requestKey: string): Promise<RefundRow | undefined> {
  const row = await conn<Row>("payment_refunds").where({ request_key: requestKey }).first();
  return row ? mapRefund(row) : undefined;
}

export async function findRefundByProviderId(conn: Conn, providerRefundId: string): Promise<RefundRow | undefined> {
  const row = await conn<Row>("payment_refunds").where({ provider_refund_id: providerRefundId }).first();
  return row ? mapRefund(row) : undefined;
}

/** A payment's refunds, oldest first. */
export async function refundsOfPayment(conn: Conn, paymentId: number): Promise<RefundRow[]> {
  return (await conn("payment_refunds").where({ payment_id: paymentId }).orderBy("id")).map(mapRefund);
}

/** Refunds that failed (Stripe refused or reversed them): the money is still with the merchant; an operator decides. */
/** The request key of the one retry of a refund that failed (`npm run refund` without --amount). */
export const retryKey = (failedRefundId: number) => `retry:refund:${failedRefundId}`;

export async function listFailedRefunds(conn: Conn): Promise<RefundRow[]> {
  return (await conn("payment_refunds").where({ status: "failed" }).orderBy("id")).map(mapRefund);
}

/** Moves a refund on, only from one of `from` (of two callers, one gets true). */
export async function moveRefund(conn: Conn, id: number, from: readonly RefundStatus[], to: RefundStatus, fields: { providerRefundId?: string; failureReason?: string } = {}): Promise<boolean> {
  const row: Record<string, unknown> = { status: to, updated_at: new Date() };
  if (fields.providerRefundId !== undefined) row.provider_refund_id = fields.providerRefundId;
  if (fields.failureReason !== undefined) row.failure_reason = fields.failureReason.slice(0, 2000);
  return (await conn("payment_refunds").where({ id }).whereIn("status", [...from]).update(row)) === 1;
}

/** Records Stripe's id for a refund still under way (its status stays). */
export async function setProviderRefundId(conn: Conn, id: number, providerRefundId: string): Promise<void> {
  await conn("payment_refunds").where({ id }).whereNull("provider_refund_id").update({ provider_refund_id: providerRefundId, updated_at: new Date() });
}

/**
 * The key a refund is sent to Stripe with: made once (from the PaymentIntent and a random part, so no other database's
 * row can have it) and kept with the row, so a retry after a timeout gets Stripe's first answer back.
 */
export async function idempotencyKeyOf(conn: Conn, id: number, intentId: string): Promise<string> {
  await conn("payment_refunds").where({ id }).whereNull("idempotency_key").update({ idempotency_key: `refund-${intentId}-${randomBytes(12).toString("base64url")}` });
  const row = await conn<Row>("payment_refunds").where({ id }).first("idempotency_key");
  return String(row!.idempotency_key);
}

/** What Stripe has refunded of a payment: the sum of its succeeded refunds. */
export function refundedCents(refunds: readonly RefundRow[]): number {
  return refunds.filter((r) => r.status === "succeeded").reduce((sum, r) => sum + r.amountCents, 0);
}

/** What may still be asked for: the payment's amount less every refund asked for, under way or done. */
export function refundableCents(amountCents: number, refunds: readonly RefundRow[]): number {
  const counted = refunds.filter((r) => COUNTED_REFUND_STATUSES.includes(r.status)).reduce((sum, r) => sum + r.amountCents, 0);
  return Math.max(0, amountCents - counted);
}
