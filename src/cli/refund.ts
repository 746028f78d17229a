// `npm run refund -- registration|order REFERENCE [--amount 25.00] --reason "..." [--wait SECONDS]`: a full or partial
// refund through the payment core's durable refunds (src/payments/refunds.ts). The command writes the request; a
// running app instance's refund job sends it to Stripe, and the kind's hook e-mails the payer (and, in full, releases
// a registration's places) when it succeeds. The command waits a bounded time for that outcome.
import { createHash } from "node:crypto";
import { lockForUpdate } from "../db/locks.ts";
import { lockingTransaction } from "../db/transaction.ts";
import { formatPrice } from "../shared/money.ts";
import { findById, type PaymentRow } from "../payments/repository.ts";
import { findRefund, findRefundByKey, refundsOfPayment, retryKey, type RefundRow } from "../payments/refundLedger.ts";
import { RefundExceedsBalanceError, RefundNotAllowedError } from "../payments/refunds.ts";
import type { PaymentStatus } from "../payments/transitions.ts";
import { parseRefundArgs, REFUND_USAGE, type RefundCommand } from "./operatorArgs.ts";
import { isMain, OperatorError, runOperatorCommand, type OperatorContext } from "./operatorContext.ts";
import type { Row } from "../db/rows.ts";

/** The exit codes of a refund command, by the refund's outcome (1 is a refusal: nothing was written). */
export const REFUND_EXIT = { succeeded: 0, pending: 3, failed: 4, queued: 5 } as const;

/** Statuses of a payment that took money: the ones a refund may be asked of (or was, for a command run again). */
const MONEY_TAKEN = ["paid", "needs_review", "refund_pending", "refunded"];

/**
 * The request key of an operator's refund: the same command (payment, amount, reason) run twice names the same
 * request, so it never refunds twice; another amount or reason is another refund.
 */
export function operatorRefundKey(paymentId: number, amountCents: number | undefined, reason: string): string {
  const digest = createHash("sha256").update(reason).digest("hex").slice(0, 16);
  return `operator:refund:${paymentId}:${amountCents ?? "rest"}:${digest}`;
}

/** The payment of a registration or an order that took money (its newest). */
async function paymentOf(ctx: OperatorContext, cmd: Pick<RefundCommand, "kind" | "reference">): Promise<PaymentRow> {
  const table = cmd.kind === "registration" ? "registrations" : "orders";
  const row = await ctx.db<Row>(table).where({ reference: cmd.reference }).first("status");
  if (!row) throw new OperatorError(`There is no ${cmd.kind} ${cmd.reference}.`);
  const paid = await ctx.db<Row>("payments").where({ kind: cmd.kind, reference: cmd.reference }).whereIn("status", MONEY_TAKEN).whereNot({ provider: "none" }).orderBy("id", "desc").first("id");
  if (!paid) throw new OperatorError(`${cmd.kind === "order" ? "Order" : "Registration"} ${cmd.reference} is ${String(row.status)} and has no payment with money to refund.`);
  return (await findById(ctx.db, Number(paid.id)))!;
}

export { retryKey };

/** The payment's oldest failed refund not yet asked for again: what the payer is still owed. */
export function owedRefund(refunds: readonly RefundRow[]): RefundRow | undefined {
  return refunds.find((f) => f.status === "failed" && !refunds.some((r) => r.requestKey === retryKey(f.id)));
}

/**
 * Writes the refund request (refused, writing nothing, when it asks for more than is left); the row, new or the earlier
 * one. Without --amount, a payment with a failed refund gets that refund again, for its amount, once (its key).
 */
async function request(ctx: OperatorContext, payment: PaymentRow, opts: RefundOptions): Promise<{ refund: RefundRow; again: boolean; retried?: RefundRow }> {
  const { reason } = opts;
  try {
    return await lockingTransaction(ctx.db, async (trx) => {
      await lockForUpdate(trx, "payments", payment.id);
      const status = (await findById(trx, payment.id))!.status;
      if (opts.onlyIf && status !== opts.onlyIf) throw new OperatorError(`Payment ${payment.id} is ${status}, not ${opts.onlyIf}: nothing was written.`);
      const owed = opts.amountCents === undefined ? owedRefund(await refundsOfPayment(trx, payment.id)) : undefined;
      const amountCents = owed ? owed.amountCents : opts.amountCents;
      const key = owed ? retryKey(owed.id) : operatorRefundKey(payment.id, amountCents, reason);
      const earlier = await findRefundByKey(trx, key);
      return { refund: await ctx.paymentCore.requestRefund(trx, payment, { amountCents, reason, key }), again: earlier !== undefined, retried: owed };
    });
  } catch (err) {
    if (err instanceof RefundExceedsBalanceError) {
      throw new OperatorError(`A refund of ${formatPrice(err.requestedCents)} is more than the ${formatPrice(err.leftCents)} left to refund of ${payment.kind} ${payment.reference} (paid ${formatPrice(payment.amountCents)}): nothing was written.`);
    }
    if (err instanceof RefundNotAllowedError) throw new OperatorError(`Payment ${payment.id} of ${payment.kind} ${payment.reference} is ${err.payment.status}: nothing to refund.`);
    throw err;
  }
}

/** Polls the refund row until Stripe's answer is final or the time is up. */
async function waitForOutcome(ctx: OperatorContext, refund: RefundRow, waitSeconds: number): Promise<RefundRow> {
  const deadline = Date.now() + waitSeconds * 1000;
  let row = refund;
  while ((row.status === "requested" || row.status === "pending") && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 200));
    row = (await findRefund(ctx.db, row.id)) ?? row;
  }
  return row;
}

export interface RefundOptions {
  amountCents?: number;
  reason: string;
  waitSeconds: number;
  /** Only while the payment (locked) is in this status (a review refund: not once another operator accepted it). */
  onlyIf?: PaymentStatus;
}

/** Requests the refund of a payment, waits for it, prints the outcome; answers the exit code (REFUND_EXIT). */
export async function refundPayment(ctx: OperatorContext, payment: PaymentRow, opts: RefundOptions, out: (line: string) => void): Promise<number> {
  const { refund, again, retried } = await request(ctx, payment, opts);
  const what = `refund ${refund.id} of ${formatPrice(refund.amountCents)} (${payment.kind} ${payment.reference}, payment ${payment.id}${retried ? `: failed refund ${retried.id} again` : ""})`;
  out(again ? `The same refund was asked for before: ${what}; nothing more is refunded.` : `Requested ${what}.`);
  let row: RefundRow;
  try {
    row = await waitForOutcome(ctx, refund, opts.waitSeconds);
  } catch (err) {
    out(`Could not follow refund ${refund.id} (${(err as Error).message.split("\n")[0]}): it is written, and a running app instance sends it.`);
    return REFUND_EXIT.queued;
  }
  switch (row.status) {
    case "succeeded":
      out(`Succeeded: ${formatPrice(row.amountCents)} refunded${row.providerRefundId ? ` (Stripe ${row.providerRefundId})` : ""}; the payer is e-mailed.`);
      return REFUND_EXIT.succeeded;
    case "pending":
      out(`Pending at Stripe${row.providerRefundId ? ` (${row.providerRefundId})` : ""}: it finishes on its own; the payer is e-mailed when it succeeds.`);
      return REFUND_EXIT.pending;
    case "requested":
      out(`Still queued after ${opts.waitSeconds} s: no running app instance sent it to Stripe. It is kept, and the next app instance to run sends it.`);
      return REFUND_EXIT.queued;
    default:
      out(`Failed (${row.status}): ${row.failureReason ?? "Stripe gave no reason"}. The money is still with the shop.`);
      return REFUND_EXIT.failed;
  }
}

export async function runRefundCommand(ctx: OperatorContext, cmd: RefundCommand, out: (line: string) => void = console.log): Promise<number> {
  const payment = await paymentOf(ctx, cmd);
  return refundPayment(ctx, payment, cmd, out);
}

if (isMain(import.meta.url)) process.exitCode = await runOperatorCommand(process.argv.slice(2), parseRefundArgs, REFUND_USAGE, (ctx, cmd) => runRefundCommand(ctx, cmd));
