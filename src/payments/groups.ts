import type { Knex } from "knex";
import type { Db } from "../db/knex.ts";
import { lockForUpdate } from "../db/locks.ts";
import * as repo from "./repository.ts";
import type { PaymentRow } from "./repository.ts";
import { COUNTED_REFUND_STATUSES, refundableCents, refundsOfPayment, type RefundRow } from "./refundLedger.ts";
import type { RefundRequest } from "./refunds.ts";
import { OPEN_STATUSES } from "./transitions.ts";

/**
 * A group's money (after Medusa's payment collection): the payments that share a `group_reference`. A registration's
 * group is its reference, shared by its own payment and its changes' payments (an upgrade, added athletes); an
 * order's group is its own reference. Each payment is one PaymentIntent at Stripe; the group answers what the thing
 * they pay for has paid, had refunded and is paying now.
 */

/** The key prefix of the full refund the core asks for when a kind rejects a payment (core.ts REJECTED_REFUND_KEY_PREFIX). */
const REJECTED_KEY_PREFIX = "rejected:payment:";

export interface GroupPayment {
  payment: PaymentRow;
  /** Its refund rows, oldest first. */
  refunds: RefundRow[];
  /**
   * The money was taken and its kind kept it: paid (settled, or accepted by an operator), and not rejected by its
   * kind (a rejected payment is refunded in full and was never the group's money). A payment later refunded in part
   * or in full stays kept: its refunds count in `refundedCents`.
   */
  kept: boolean;
  /** Its kind rejected it (the core's full refund was asked for). */
  rejected: boolean;
  /** What may still be refunded of it: a kept card payment's amount less its refunds asked for, under way or done. */
  refundableCents: number;
}

export interface GroupMoney {
  /** Money received and kept: the amounts of the kept payments (free settlements add 0). */
  paidCents: number;
  /** Refunds of the kept payments asked for, under way or done (requested, pending, succeeded), as the refund ledger counts them. */
  refundedCents: number;
  /** Payments in flight: the amounts of the open payments (pending, or failed and still payable with the same PaymentIntent). */
  pendingCents: number;
  /** What may still be refunded over the kept card payments: paidCents less refundedCents, payment by payment. */
  refundableCents: number;
  /** Every payment of the group, oldest first (kept or not: canceled, rejected, in review, open). */
  payments: GroupPayment[];
}

type Conn = Db | Knex.Transaction;

/** The group's money as it stands (in the caller's transaction, under the payments' locks when it decides on it). */
export async function moneyOf(conn: Conn, group: string): Promise<GroupMoney> {
  const payments: GroupPayment[] = [];
  for (const payment of await repo.findByGroup(conn, group)) {
    const refunds = await refundsOfPayment(conn, payment.id);
    const rejected = refunds.some((r) => r.requestKey.startsWith(REJECTED_KEY_PREFIX));
    const kept = payment.paidAt !== null && !rejected;
    const refundable = kept && payment.provider !== "none" ? refundableCents(payment.amountCents, refunds) : 0;
    payments.push({ payment, refunds, kept, rejected, refundableCents: refundable });
  }
  const kept = payments.filter((p) => p.kept);
  return {
    paidCents: sum(kept.map((p) => p.payment.amountCents)),
    refundedCents: sum(kept.flatMap((p) => p.refunds.filter((r) => COUNTED_REFUND_STATUSES.includes(r.status)).map((r) => r.amountCents))),
    pendingCents: sum(payments.filter((p) => OPEN_STATUSES.includes(p.payment.status)).map((p) => p.payment.amountCents)),
    refundableCents: sum(kept.map((p) => p.refundableCents)),
    payments,
  };
}

/** The ids of the payments that hold the group's money (its kept payments), in id order: the payments a refund may touch. */
export function keptPaymentIds(money: GroupMoney): number[] {
  return money.payments.filter((p) => p.kept).map((p) => p.payment.id).sort((a, b) => a - b);
}

/**
 * The first statements of a transaction that decides on a group's money (a refund): the payments `keptPaymentIds`
 * named, read before the transaction, locked in id order, as settlement locks a payment before the rows it pays for.
 * Under those locks the caller reads the group again (moneyOf) and compares (another payment may have been kept meanwhile).
 */
export async function lockPayments(trx: Knex.Transaction, ids: readonly number[]): Promise<void> {
  for (const [i, id] of [...ids].sort((a, b) => a - b).entries()) {
    if (i === 0) await lockForUpdate(trx, "payments", id);
    else await repo.lockById(trx, id);
  }
}

/** What refundAcross needs of the payment core: its refund request (in the caller's transaction, no network call). */
export interface RefundRequester {
  requestRefund(trx: Knex.Transaction, payment: PaymentRow, request: RefundRequest): Promise<RefundRow>;
}

/** The key of one payment's part of a spread refund: the group's first card payment keeps `key` itself. */
const partKey = (key: string, payment: PaymentRow, first: PaymentRow) => (payment.id === first.id ? key : `${key}:payment:${payment.id}`);

/**
 * Asks for a refund of `cents` spread over the group's kept card payments, the newest first, each up to what is left on
 * it. Inside the caller's transaction, which holds the payments' locks (taken first, in id order); no network call:
 * the refund job sends the requests after the commit. Idempotent on `key`: when a refund of the group was already
 * asked for with it, nothing new is asked and that request's parts are returned. Returns the parts, one per payment
 * (as the card will show them), the newest payment's first; less than `cents` in all when less is left to refund.
 */
export async function refundAcross(trx: Knex.Transaction, core: RefundRequester, group: string, cents: number, key: string, reason: string): Promise<number[]> {
  const money = await moneyOf(trx, group);
  const earlier = money.payments.flatMap((p) => p.refunds).filter((r) => r.requestKey === key || r.requestKey.startsWith(`${key}:payment:`));
  if (earlier.length > 0) return earlier.sort((a, b) => b.paymentId - a.paymentId).map((r) => r.amountCents);
  const card = money.payments.filter((p) => p.kept && p.payment.provider !== "none");
  if (card.length === 0) return [];
  const first = card[0]!.payment;
  let left = cents;
  const parts: number[] = [];
  for (const p of [...card].reverse()) {
    if (left <= 0) break;
    const part = Math.min(left, p.refundableCents);
    if (part <= 0) continue;
    await core.requestRefund(trx, p.payment, { amountCents: part, reason, key: partKey(key, p.payment, first) });
    parts.push(part);
    left -= part;
  }
  return parts;
}

const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
