import type { Knex } from "knex";
import type { Db } from "../db/knex.ts";
import { createJobQueue, type JobQueue } from "../db/jobQueue.ts";
import { lockForUpdate } from "../db/locks.ts";
import { lockingTransaction } from "../db/transaction.ts";
import type { Logger } from "../logger.ts";
import type { PaymentGateway, RefundSnapshot } from "./gateway.ts";
import * as repo from "./repository.ts";
import type { PaymentRow } from "./repository.ts";
import type { PaymentStatus } from "./transitions.ts";
import * as ledger from "./refundLedger.ts";
import type { RefundRow } from "./refundLedger.ts";

export interface RefundRequest {
  /** Omitted: everything not yet refunded (or asked for). */
  amountCents?: number;
  reason: string;
  /** What asks for it; the same key never refunds twice (a second request with it returns the first row). */
  key: string;
}

/** The payment cannot be refunded in its state (not paid yet, canceled, refunded in full, a free settlement). */
export class RefundNotAllowedError extends Error {
  constructor(readonly payment: PaymentRow) {
    super(`Payment ${payment.kind}:${payment.reference} is ${payment.status}: nothing to refund`);
  }
}

/** More than what is left unrefunded (and not already asked for) was asked for; nothing was recorded. */
export class RefundExceedsBalanceError extends Error {
  constructor(
    readonly requestedCents: number,
    readonly leftCents: number,
  ) {
    super(`A refund of ${requestedCents} cents was asked for; ${leftCents} cents are left to refund`);
  }
}

/** What the payment core's refunds need from it: the kind's hooks, run in the kind's queue. */
export interface RefundHooks {
  onRefunded(trx: Knex.Transaction, payment: PaymentRow, facts: { amountRefundedCents: number; full: boolean; refund: RefundRow }): Promise<void>;
  onRefundFailed(trx: Knex.Transaction, payment: PaymentRow, refund: RefundRow): Promise<void>;
  afterChange(payment: PaymentRow): Promise<void>;
  /** A transaction that locks the payment first, queued behind the kind's own transactions on its row. */
  inKindQueue<T>(payment: PaymentRow, work: (trx: Knex.Transaction) => Promise<T>): Promise<T>;
}

export interface Refunds {
  requestRefund(trx: Knex.Transaction, payment: PaymentRow, request: RefundRequest): Promise<RefundRow>;
  /** requestRefund after the payment's lock, which the caller's transaction took as its first statement. */
  requestRefundLocked(trx: Knex.Transaction, paymentId: number, request: RefundRequest): Promise<RefundRow>;
  /** Stripe told us (its answer, a refund.* event, the list after charge.refunded): the row follows. */
  applyStripeRefund(refund: RefundSnapshot): Promise<void>;
  /** Every refund Stripe holds for the PaymentIntent, the dashboard's included. */
  syncIntentRefunds(intentId: string): Promise<void>;
  readonly job: JobQueue;
}

/** The payment statuses a refund may be asked for in. */
const REFUNDABLE: readonly PaymentStatus[] = ["paid", "needs_review", "refund_pending"];
/** Stripe's refusals that another attempt with the same parameters cannot change (the job does not retry them). */
const FINAL_HTTP_STATUSES = new Set([400, 402, 404]);

type Outcome = { status: string; providerRefundId?: string; failureReason?: string | null };

export function createRefunds(opts: { db: Db; gateway: PaymentGateway; logger: Logger; hooks: RefundHooks; intervalMs?: number }): Refunds {
  const { db, gateway, logger, hooks } = opts;

  async function requestRefundLocked(trx: Knex.Transaction, paymentId: number, request: RefundRequest): Promise<RefundRow> {
    const existing = await ledger.findRefundByKey(trx, request.key);
    if (existing) {
      if (existing.paymentId !== paymentId) throw new Error(`Refund key ${request.key} belongs to another payment`);
      return existing;
    }
    const payment = (await repo.findById(trx, paymentId))!;
    if (!REFUNDABLE.includes(payment.status) || payment.provider === "none") throw new RefundNotAllowedError(payment);
    // What Stripe charged: a payment in review may have been charged another amount than its row says.
    const left = ledger.refundableCents(payment.chargedCents, await ledger.refundsOfPayment(trx, payment.id));
    const amount = request.amountCents ?? left;
    if (!Number.isInteger(amount) || amount < 1 || amount > left) throw new RefundExceedsBalanceError(amount, left);
    const row = await ledger.insertRefund(trx, { paymentId: payment.id, amountCents: amount, reason: request.reason, requestKey: request.key });
    logger.info({ kind: payment.kind, reference: payment.reference, refundId: row.id, amountCents: amount }, "refund requested");
    return row;
  }

  async function applyOutcome(refundId: number, outcome: Outcome): Promise<void> {
    const before = await ledger.findRefund(db, refundId);
    if (!before) return;
    const found = (await repo.findById(db, before.paymentId))!;
    const step = await hooks.inKindQueue(found, async (trx) => {
      await lockForUpdate(trx, "payments", found.id);
      const refund = (await ledger.findRefund(trx, refundId))!;
      const id = outcome.providerRefundId;
      let effect: "none" | "succeeded" | "failed" = "none";
      if (outcome.status === "succeeded") {
        // A row failed here before Stripe ever answered (the job gave up) may still have gone through.
        const from: ledger.RefundStatus[] = refund.providerRefundId === null ? ["requested", "pending", "failed"] : ["requested", "pending"];
        if (await ledger.moveRefund(trx, refund.id, from, "succeeded", { providerRefundId: id })) effect = "succeeded";
      } else if (outcome.status === "failed" || outcome.status === "canceled") {
        const failureReason = outcome.failureReason ?? outcome.status;
        if (await ledger.moveRefund(trx, refund.id, ["requested", "pending", "succeeded"], outcome.status, { providerRefundId: id, failureReason })) effect = "failed";
      } else if (!(await ledger.moveRefund(trx, refund.id, ["requested"], "pending", { providerRefundId: id })) && id) {
        await ledger.setProviderRefundId(trx, refund.id, id);
      }
      if (effect === "none") return { effect, refund };

      const refunds = await ledger.refundsOfPayment(trx, found.id);
      const total = ledger.refundedCents(refunds);
      await repo.setAmountRefunded(trx, found.id, total);
      let payment = (await repo.findById(trx, found.id))!;
      const now = (await ledger.findRefund(trx, refund.id))!;
      if (effect === "succeeded") {
        const full = total >= payment.chargedCents;
        if (full) await repo.transition(trx, payment.id, "refunded", { refunded_at: new Date(), refund_reason: payment.refundReason ?? refund.reason, provider_refund_id: now.providerRefundId });
        payment = (await repo.findById(trx, payment.id))!;
        await hooks.onRefunded(trx, payment, { amountRefundedCents: total, full, refund: now });
      } else {
        // A payment its kind rejected keeps the money now: an operator decides (needs_review lists it).
        const stillOpen = refunds.some((r) => r.status === "requested" || r.status === "pending");
        if (payment.status === "refund_pending" && !stillOpen) {
          await repo.transition(trx, payment.id, "refundFailed", { review_reason: `refund failed: ${now.failureReason ?? "unknown"}`.slice(0, 2000) });
          payment = (await repo.findById(trx, payment.id))!;
        } else if (payment.status === "refunded" && total < payment.chargedCents) {
          // Stripe took the refund and then failed it: the money is with the merchant again, so it can be refunded again.
          await repo.transition(trx, payment.id, "refundReversed", { refunded_at: null });
          payment = (await repo.findById(trx, payment.id))!;
        }
        await hooks.onRefundFailed(trx, payment, now);
      }
      return { effect, refund: now, payment, wasSucceeded: refund.status === "succeeded" };
    });
    if (step.effect === "none") return;
    const fields = { kind: found.kind, reference: found.reference, refundId, amountCents: step.refund.amountCents, providerRefundId: step.refund.providerRefundId };
    if (step.effect === "succeeded") logger.warn(fields, "refund succeeded");
    else logger.error({ ...fields, failureReason: step.refund.failureReason, afterSuccess: step.wasSucceeded }, "refund failed: the money is still with the merchant; an operator must act");
    await hooks.afterChange(step.payment);
  }

  /** A refund Stripe reports that no row knows yet (made in Stripe's dashboard) gets its row; one row per Stripe refund. */
  async function rowFor(refund: RefundSnapshot): Promise<RefundRow | undefined> {
    const known = await ledger.findRefundByProviderId(db, refund.id);
    if (known) return known;
    const payment = refund.paymentIntentId ? await repo.findByIntentId(db, refund.paymentIntentId) : undefined;
    if (!payment) return undefined;
    const requestId = Number(refund.metadata.refund_request);
    if (Number.isInteger(requestId) && requestId > 0) {
      const ours = await ledger.findRefund(db, requestId);
      if (ours?.paymentId === payment.id) return ours;
    }
    return lockingTransaction(db, async (trx) => {
      await lockForUpdate(trx, "payments", payment.id);
      const again = await ledger.findRefundByProviderId(trx, refund.id);
      if (again) return again;
      logger.warn({ kind: payment.kind, reference: payment.reference, amountCents: refund.amountCents }, "refund made outside the site recorded");
      return ledger.insertRefund(trx, { paymentId: payment.id, amountCents: refund.amountCents, reason: refund.metadata.reason ?? "refunded through Stripe", requestKey: `stripe:${refund.id}`, providerRefundId: refund.id, sent: true });
    });
  }

  async function applyStripeRefund(refund: RefundSnapshot): Promise<void> {
    const row = await rowFor(refund);
    if (!row) {
      logger.warn({ refund: refund.id }, "refund of a payment this site did not create; ignored");
      return;
    }
    await applyOutcome(row.id, { status: refund.status, providerRefundId: refund.id, failureReason: refund.failureReason });
  }

  const job = createJobQueue({
    db,
    logger,
    table: "payment_refunds",
    name: "refund",
    statusColumn: "send_status",
    // A request made in a caller's transaction (a cancellation) waits for the next pass unless the caller wakes the job.
    intervalMs: opts.intervalMs ?? 5_000,
    describe: (row) => ({ refundId: row.id, paymentId: row.payment_id }),
    async run(row) {
      const refund = await ledger.findRefund(db, row.id);
      if (!refund || refund.status !== "requested") return;
      const payment = (await repo.findById(db, refund.paymentId))!;
      if (!payment.providerPaymentId) throw new Error(`payment ${payment.id} has no PaymentIntent to refund`);
      let answer: RefundSnapshot;
      try {
        // The key is kept with the row: a retry after a timeout (or a worker that died) gets Stripe's first refund back.
        const idempotencyKey = await ledger.idempotencyKeyOf(db, refund.id, payment.providerPaymentId);
        answer = await gateway.refundIntent(payment.providerPaymentId, { amountCents: refund.amountCents, idempotencyKey, reason: refund.reason, refundRequestId: refund.id });
      } catch (err) {
        const e = err as { statusCode?: number; rawType?: string; type?: string; message?: string };
        // A key Stripe already saw with other parameters never goes through however often it is sent: final, for an operator.
        const keyRefused = e.rawType === "idempotency_error" || e.type === "StripeIdempotencyError";
        if (!FINAL_HTTP_STATUSES.has(e.statusCode ?? 0) && !keyRefused) throw err;
        await applyOutcome(refund.id, { status: "failed", failureReason: `Stripe refused it${keyRefused ? " (idempotency_error: its key was used for another request)" : ""}: ${String(e.message).split("\n")[0]}` });
        return;
      }
      await applyOutcome(refund.id, { status: answer.status, providerRefundId: answer.id, failureReason: answer.failureReason });
    },
    async onFailure(row, error, final) {
      if (final) await applyOutcome(row.id, { status: "failed", failureReason: `not sent to Stripe: ${error}` });
    },
  });

  return {
    job,
    requestRefundLocked,
    async requestRefund(trx, payment, request) {
      await trx("payments").where({ id: payment.id }).forUpdate().first();
      return requestRefundLocked(trx, payment.id, request);
    },
    applyStripeRefund,
    async syncIntentRefunds(intentId) {
      for (const refund of await gateway.listRefunds(intentId)) await applyStripeRefund(refund);
    },
  };
}
