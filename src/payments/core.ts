import { createHash } from "node:crypto";
import type { Knex } from "knex";
import type Stripe from "stripe";
import type { Db } from "../db/knex.ts";
import { lockForUpdate } from "../db/locks.ts";
import { lockingTransaction } from "../db/transaction.ts";
import { beginsInServer, type ServerBegin } from "../db/serverBegins.ts";
import { queuedLockingTransaction } from "../db/rowQueue.ts";
import type { Logger } from "../logger.ts";
import type { JobQueue } from "../db/jobQueue.ts";
import { refundSnapshot, type IntentSnapshot, type PaymentGateway } from "./gateway.ts";
import { judgeIntent, OPEN_STATUSES } from "./transitions.ts";
import { deferWrites } from "../db/deferredWrites.ts";
import * as repo from "./repository.ts";
import type { PaymentRow } from "./repository.ts";
import { createRefunds, type RefundRequest } from "./refunds.ts";
import { createSavedCards, type SavedCards } from "./savedCards.ts";
import { COUNTED_REFUND_STATUSES, listFailedRefunds, refundsOfPayment, type RefundRow } from "./refundLedger.ts";

export { RefundExceedsBalanceError, RefundNotAllowedError, type RefundRequest } from "./refunds.ts";
export type { RefundRow, RefundStatus } from "./refundLedger.ts";
export { keptPaymentIds, lockPayments, moneyOf, refundAcross, type GroupMoney, type GroupPayment } from "./groups.ts";
export {
  CardUpdateNotFinishedError,
  HARD_DECLINES,
  isHardDecline,
  SavedCardChargeError,
  type CardUpdate,
  type ChargeOutcome,
  type ChargeSavedCardInput,
  type SavedCard,
  type SavedCards,
} from "./savedCards.ts";

/**
 * What the kind says when one of its payments is paid: `accepted` (its row is now paid), `duplicate`
 * (its row was already paid: nothing done), or `reject` (it cannot take the money, e.g. the place is
 * gone): the core then records a full refund request in the same transaction (the payment is `refund_pending`), the
 * refund job sends it, and the payment ends `refunded` when Stripe says the refund succeeded.
 */
export type PaidOutcome = "accepted" | "duplicate" | "reject" | { reject: string };

/** What the paid-for row says is due now: its amount, and (registrations) the version of what it registers. */
export interface KindExpectation {
  amountCents: number;
  version?: number;
}

/** A refund that succeeded (the site's or one made in Stripe's dashboard): the total refunded so far, and whether that is the whole payment. */
export interface RefundFacts {
  amountRefundedCents: number;
  full: boolean;
  /** The refund that succeeded (its requestKey says what asked for it: REJECTED_REFUND_KEY_PREFIX for a rejection). */
  refund?: RefundRow;
}

/** The request key of the full refund the core asks for when a kind rejects a payment (then the payment's id). */
export const REJECTED_REFUND_KEY_PREFIX = "rejected:payment:";

/** What a feature (shop orders, event registrations) does when one of its payments settles. */
export interface PaymentKindHandler {
  /**
   * Inside the transaction that marks the payment paid, once per payment (again on each retry of that transaction).
   * `context`: what the visitor's own request asked of the kind (SettleVisit), absent otherwise. No network calls here.
   */
  onPaid(trx: Knex.Transaction, payment: PaymentRow, context?: unknown): Promise<PaidOutcome>;
  /**
   * What the kind's own row says is due, checked against the PaymentIntent as well as the payment row (null: no
   * opinion). Called first in the settling transaction, after the payment's lock: a kind that decides on its row
   * locks it here (in its own lock order), and onPaid / onReview then read it under that lock.
   */
  expected?(trx: Knex.Transaction, reference: string): Promise<KindExpectation | null>;
  /**
   * The row whose lock `expected` will wait for (src/db/rowQueue.ts), read before the transaction: the settling
   * transaction then queues in this process behind the kind's own transactions on that row instead of holding a
   * pooled connection while it waits.
   */
  queueKey?(db: Db, reference: string): Promise<string | undefined>;
  /**
   * Stripe is still confirming the payment (`processing`; the webhook decides): the kind keeps what it holds meanwhile.
   * Called in the settling transaction (after `expected`'s locks) each time the processing state is seen. No network calls.
   */
  onProcessing?(trx: Knex.Transaction, payment: PaymentRow): Promise<void>;
  /** Money arrived that does not match (needs_review): the kind keeps what it holds for the operator. No network calls. */
  onReview?(trx: Knex.Transaction, payment: PaymentRow, reason: string): Promise<void>;
  /** A refund SUCCEEDED (full or partial), once per refund; `refund` carries the total refunded so far. No network calls. */
  onRefunded?(trx: Knex.Transaction, payment: PaymentRow, refund: RefundFacts): Promise<void>;
  /** A refund failed (Stripe refused it, or reversed it after it succeeded): the money is with the merchant. No network calls. */
  onRefundFailed?(trx: Knex.Transaction, payment: PaymentRow, refund: RefundRow): Promise<void>;
  /** After that transaction commits, only when accepted (wake the outbox, write-backs). Errors are logged, not thrown. */
  afterPaid?(payment: PaymentRow): Promise<void>;
  /** After a transaction that called onReview, onRefunded or onRefundFailed commits (wake the outbox). Errors are logged, not thrown. */
  afterChange?(payment: PaymentRow): Promise<void>;
}

export type SettleResult =
  | { status: "paid"; newlyPaid: boolean; payment: PaymentRow }
  | { status: "failed"; message: string; payment: PaymentRow }
  | { status: "pending"; intentStatus: string; payment: PaymentRow }
  /** needsReview: the money was taken and the payment waits for an operator (status needs_review). */
  | { status: "mismatch"; reason: string; needsReview: boolean; payment: PaymentRow }
  /** The kind rejected the payment: refund_pending while the refund job and Stripe have not finished, then refunded. */
  | { status: "refunded"; reason: string; payment: PaymentRow };

/** What the request of the visitor who paid (the return) knows already and asks of the settlement. */
export interface SettleVisit {
  /** The kind's queue (PaymentKindHandler.queueKey) as the caller read it with the payment: not asked of the kind again. */
  queueKey?: string;
  /** Handed to the kind's onPaid as it is. */
  context?: unknown;
}

export interface EnsureIntentInput {
  kind: string;
  reference: string;
  /** The registration or order whose money it is (src/payments/groups.ts); omitted: the payment's own reference. */
  group?: string;
  amountCents: number;
  description: string;
  email?: string;
  currency?: string;
  /** The version of the paid-for row this amount is for; settlement compares it with the row's version then. */
  version?: number;
  /** The payment saves its card on this Stripe Customer for later off-session charges (savedCards.ts). */
  saveCard?: { customerId: string };
  /**
   * The payment is made on this Stripe Customer without saving its card: a card saved on that Customer can pay it,
   * on session or off (a balance: the job may charge the saved card on the page's intent).
   */
  customerId?: string;
  /** The payment claimed for this row in the transaction that wrote it (PaymentCore.claimIn): neither looked up nor claimed again. */
  claimed?: PaymentRow;
}

/**
 * A change of amount decided with the paid-for rows in one transaction (a code applied on the payment step): begun
 * inside it, pushed to Stripe after its commit, and either applied or abandoned (see PaymentCore.beginAmountChange).
 */
export interface AmountChange {
  paymentId: number;
  intentId: string;
  amountCents: number;
  /** The payment's amount before the change. */
  fromCents: number;
  version: number;
  /** false: the PaymentIntent already asks for this amount, and the payment was tied to `version` at once. */
  pending: boolean;
}

/** The live payment locked for a change of amount; `to` marks it once the caller has decided the amount. */
export interface AmountChangeStart {
  to(amountCents: number, version: number): Promise<AmountChange>;
}

export class UnknownPaymentError extends Error {}
/** An operator's accept changed nothing: the payment is not in review, or its kind cannot take the money (refund it). */
export class ReviewNotAcceptedError extends Error {}
/** An amount change is between its two writes: try again shortly (the webhook answers 503 so Stripe retries). */
export class AmountChangeInFlightError extends Error {}
/** The live payment can no longer take a card (paid, in review, refunded...). */
export class PaymentNotOpenError extends Error {
  constructor(readonly payment: PaymentRow) {
    super(`Payment ${payment.kind}:${payment.reference} is ${payment.status}`);
  }
}

export interface PaymentCore extends SavedCards {
  readonly gateway: PaymentGateway;
  register(kind: string, handler: PaymentKindHandler): void;
  /**
   * The one live PaymentIntent of (kind, reference): created, reused, or given the new amount. Concurrent
   * calls get the same intent (a unique index on the live payment). Throws PaymentNotOpenError when the
   * live payment is already paid (or in review, or being refunded).
   */
  ensureIntent(input: EnsureIntentInput): Promise<{ payment: PaymentRow; clientSecret: string }>;
  /**
   * Claims the live payment of a paid-for row written in the caller's transaction (a new registration), so that
   * ensureIntent, given it as `claimed` after the commit, only creates its PaymentIntent. No Stripe call here.
   */
  claimIn(trx: Knex.Transaction, input: Pick<EnsureIntentInput, "kind" | "reference" | "group" | "amountCents" | "currency" | "version">): Promise<PaymentRow>;
  /**
   * A change of the paid-for row and of its PaymentIntent's amount that must agree whatever the card does meanwhile
   * (another tab confirms it). `live` is the live payment read before the transaction (liveFor). Inside the caller's
   * transaction, its first statement and first in the lock order: the payment's row is
   * locked; once the caller knows the amount (`to`), when Stripe must be asked for another one the change is marked in flight (a settlement waits until
   * it is applied or abandoned); when the amount is already Stripe's, the payment is tied to `version` at once.
   * Throws PaymentNotOpenError (confirmed or being confirmed already: change nothing) and AmountChangeInFlightError.
   * Undefined when there is no PaymentIntent yet (the next ensureIntent makes it at the new amount).
   */
  beginAmountChange(trx: Knex.Transaction, live: PaymentRow | undefined): Promise<AmountChangeStart | undefined>;
  /**
   * After the caller's commit: Stripe is asked for the amount. `applied`: it holds it, and the payment covers the new
   * version (with the PaymentIntent's client secret); a change to $0 cancels the PaymentIntent instead. Otherwise Stripe's PaymentIntent as it is (confirmed meanwhile,
   * or Stripe refused): the caller undoes its change and calls abandonAmountChange in that transaction. Throws when
   * Stripe cannot even say what it holds (the payment keeps its amount; the caller keeps its change, and the next
   * ensureIntent gives the PaymentIntent the new amount).
   */
  pushAmountChange(change: AmountChange): Promise<{ applied: true; clientSecret: string | null } | { applied: false; intent: IntentSnapshot }>;
  /** Inside the caller's undoing transaction (the payment's row locked first): the payment keeps Stripe's amount, tied to `version`. */
  abandonAmountChange(trx: Knex.Transaction, change: AmountChange, stripeCents: number, version: number): Promise<void>;
  /** Cancels the PaymentIntent; `already_succeeded` when Stripe had taken the money (the payment is then settled). */
  cancel(payment: PaymentRow): Promise<"canceled" | "already_succeeded">;
  /** A free settlement in the caller's transaction: provider `none`, status paid, amount 0, no Stripe call. `group` as for ensureIntent. */
  recordFree(trx: Knex.Transaction, kind: string, reference: string, group?: string): Promise<PaymentRow>;
  /**
   * Records a refund request INSIDE the caller's transaction (atomic with e.g. the cancellation that releases the
   * places); no network call. Idempotent on `key` (the first row is returned); the amount defaults to what is left
   * unrefunded. Throws RefundExceedsBalanceError (more than is left) or RefundNotAllowedError (not paid).
   * The refund job sends it after the commit; onRefunded / onRefundFailed run when Stripe decides.
   */
  requestRefund(trx: Knex.Transaction, payment: PaymentRow, request: RefundRequest): Promise<RefundRow>;
  /** requestRefund in its own transaction, then the refund job is woken. Returns the refund row (status `requested`). */
  refund(payment: PaymentRow, request: RefundRequest): Promise<RefundRow>;
  /** A payment's refund rows, oldest first. */
  refundsOf(paymentId: number): Promise<RefundRow[]>;
  /** Refunds that failed (Stripe refused or reversed them): the money is still with the merchant; for the operator. */
  failedRefunds(): Promise<RefundRow[]>;
  /** Sends requested refunds to Stripe (every instance runs it; each refund is sent by one). server.ts starts it. */
  readonly refundJobs: JobQueue;
  /**
   * Fetches the PaymentIntent from Stripe, checks it, and marks the payment paid exactly once. `known`: the payment
   * as the caller just read it (not looked up again; read again under its lock); `visit`: see SettleVisit.
   */
  settle(intentId: string, via: "return" | "webhook" | "off_session", known?: PaymentRow, visit?: SettleVisit): Promise<SettleResult>;
  /**
   * Resolves when a settlement of this PaymentIntent ends: true when it left the payment settled (settledAlready), in
   * this process or, heard over Redis (`heardSettled`), on another instance; false when one here left it open or
   * failed, or when `signal` aborts. The webhook's wait for the visitor's return (webhook.ts) ends as soon as the
   * return is done, or at once when the return settled it already.
   */
  settledSomewhere(intentId: string, signal: AbortSignal): Promise<boolean>;
  /** Another instance announced that its settlement of this PaymentIntent left the payment settled. */
  heardSettled(intentId: string): void;
  /** A verified webhook event; throws when processing failed or must wait (the route answers non-2xx so Stripe retries). */
  handleEvent(event: Stripe.Event): Promise<void>;
  /** The live payment of (kind, reference), if any. */
  liveFor(kind: string, reference: string): Promise<PaymentRow | undefined>;
  /** The newest payment of (kind, reference), live or not. */
  latestFor(kind: string, reference: string): Promise<PaymentRow | undefined>;
  /** Payments an operator must look at. */
  needsReview(): Promise<PaymentRow[]>;
  /**
   * An operator keeps the money of a needs_review payment: it becomes paid (paid_via `operator`) and its kind is told
   * through onPaid, under the same locks as settle. Anything but `accepted` from the kind rolls it all back and throws
   * ReviewNotAcceptedError (then refund it). No network call.
   */
  acceptReview(paymentId: number): Promise<PaymentRow>;
}

/**
 * A payment a settlement leaves as it is (paid, refunded, in review, ...: a settled status never goes back to open),
 * answered with neither Stripe nor the locks.
 */
export const settledAlready = (p: PaymentRow): boolean => !OPEN_STATUSES.includes(p.status) && p.status !== "canceled" && p.expectedAmountCents === null;

const SETTLING_EVENTS = new Set(["payment_intent.succeeded", "payment_intent.payment_failed", "payment_intent.canceled", "payment_intent.processing", "payment_intent.requires_action"]);
const REFUND_EVENTS = new Set(["refund.created", "refund.updated", "refund.failed"]);
/** Review reasons of a PaymentIntent whose amount, currency or metadata are not its payment's (transitions.ts mismatch). */
const CHARGED_OTHERWISE = /^(metadata |currency |amount \d+ is not the payment's )/;
/** How many settled intents an instance remembers for the webhooks that come after their return (about 1 MB). */
const RECENTLY_SETTLED = 10_000;
/** An amount change older than this died between its two writes (a crash): what Stripe holds decides. */
const AMOUNT_CHANGE_GRACE_MS = 60_000;

/**
 * `announceSettled`: tells the other instances (over Redis) that a settlement here left an intent's payment settled,
 * so that a webhook waiting there for the visitor's return stops waiting (their `heardSettled`).
 */
export function createPaymentCore(opts: { db: Db; gateway: PaymentGateway; logger: Logger; refundIntervalMs?: number; announceSettled?: (intentId: string) => void }): PaymentCore {
  const { db, gateway, logger } = opts;
  const handlers = new Map<string, PaymentKindHandler>();
  const refunds = createRefunds({
    db,
    gateway,
    logger,
    intervalMs: opts.refundIntervalMs,
    hooks: {
      onRefunded: async (trx, payment, facts) => handlerFor(payment.kind).onRefunded?.(trx, payment, facts),
      onRefundFailed: async (trx, payment, refund) => handlerFor(payment.kind).onRefundFailed?.(trx, payment, refund),
      afterChange: (payment) => afterChange(handlerFor(payment.kind), payment),
      inKindQueue: (payment, work) => inKindQueue(handlerFor(payment.kind), payment.reference, undefined, work),
    },
  });

  function handlerFor(kind: string): PaymentKindHandler {
    const handler = handlers.get(kind);
    if (!handler) throw new Error(`No payment handler registered for kind '${kind}'`);
    return handler;
  }

  const fresh = async (id: number) => (await repo.findById(db, id))!;
  const logFields = (p: PaymentRow) => ({ kind: p.kind, reference: p.reference, intentId: p.providerPaymentId });

  /** Who waits for a settlement of an intent to end (settledSomewhere). */
  const settleWaiters = new Map<string, Set<(settled: boolean) => void>>();
  /**
   * Intents whose payment a settlement left settled, here or announced, the newest RECENTLY_SETTLED of them: a
   * settled payment never opens again, so a webhook that comes after its return need not wait for anything.
   */
  const recentlySettled = new Set<string>();
  function settledSomewhere(intentId: string, signal: AbortSignal): Promise<boolean> {
    return new Promise((resolve) => {
      if (recentlySettled.has(intentId)) return resolve(true);
      if (signal.aborted) return resolve(false);
      const waiters = settleWaiters.get(intentId) ?? new Set();
      settleWaiters.set(intentId, waiters);
      const aborted = () => done(false);
      const done = (settled: boolean) => {
        waiters.delete(done);
        if (waiters.size === 0 && settleWaiters.get(intentId) === waiters) settleWaiters.delete(intentId);
        signal.removeEventListener("abort", aborted);
        resolve(settled);
      };
      waiters.add(done);
      signal.addEventListener("abort", aborted, { once: true });
    });
  }
  const wake = (intentId: string, settled: boolean) => {
    if (settled) {
      recentlySettled.add(intentId);
      if (recentlySettled.size > RECENTLY_SETTLED) recentlySettled.delete(recentlySettled.values().next().value!);
    }
    for (const done of [...(settleWaiters.get(intentId) ?? [])]) done(settled);
  };

  async function settle(intentId: string, via: "return" | "webhook" | "off_session", known?: PaymentRow, visit?: SettleVisit): Promise<SettleResult> {
    let settled = false;
    try {
      const result = await settleOnce(intentId, via, known, visit);
      settled = settledAlready(result.payment);
      return result;
    } finally {
      wake(intentId, settled);
      if (settled) opts.announceSettled?.(intentId);
    }
  }

  async function settleOnce(intentId: string, via: "return" | "webhook" | "off_session", known?: PaymentRow, visit?: SettleVisit): Promise<SettleResult> {
    const found = known?.providerPaymentId === intentId ? known : await repo.findByIntentId(db, intentId);
    if (!found) throw new UnknownPaymentError(`No payment for ${intentId}`);
    const handler = handlerFor(found.kind);
    // Settled already: the return and the webhook both come.
    if (settledAlready(found)) {
      if (found.status === "refund_pending") refunds.job.wake();
      return current(found);
    }
    const intent = await gateway.retrieveIntent(intentId);

    type Step = { result: SettleResult; accepted: boolean; changed?: boolean };
    // On MySQL the transaction's BEGIN and the payment's lock are one round trip (begin_payment_lock).
    const begin: ServerBegin | undefined = beginsInServer(db) ? { sql: "call begin_payment_lock(?)", bindings: [found.id] } : undefined;
    const step = await inKindQueue(handler, found.reference, visit?.queueKey, async (trx): Promise<Step> => {
      // Writes nothing here reads back (a manage link) go with the COMMIT (src/db/deferredWrites.ts).
      deferWrites(trx);
      // The payment as locked (the lock's statement reads the row).
      let payment = repo.paymentOf((begin ? begin.rows?.[0] : await lockForUpdate(trx, "payments", found.id))!);
      if (payment.expectedAmountCents !== null) {
        if (Date.now() - (payment.amountChangeStartedAt?.getTime() ?? 0) < AMOUNT_CHANGE_GRACE_MS) {
          throw new AmountChangeInFlightError(`An amount change of ${payment.kind}:${payment.reference} is in flight`);
        }
        const amount = intent.amountCents === payment.expectedAmountCents ? payment.expectedAmountCents : payment.amountCents;
        await repo.finishAmountChange(trx, payment.id, amount);
        payment = { ...payment, amountCents: amount, expectedAmountCents: null, amountChangeStartedAt: null };
      }
      // Settled already: nothing to decide, and the kind's rows are not locked (a refund request locks them first).
      if (!OPEN_STATUSES.includes(payment.status) && payment.status !== "canceled") return { result: current(payment), accepted: false };
      const expected = handler.expected ? await handler.expected(trx, payment.reference) : null;
      const verdict = judgeIntent(payment, intent, expected);
      const now = async () => (await repo.findById(trx, payment.id))!;

      switch (verdict.outcome) {
        case "pay": {
          const paid = await repo.markPaidOnce(trx, payment, via);
          if (!paid) return { result: current(await now()), accepted: false };
          const outcome = await handler.onPaid(trx, paid, visit?.context);
          if (outcome === "reject" || typeof outcome === "object") {
            const reason = typeof outcome === "object" ? outcome.reject : `rejected by the ${payment.kind}`;
            await repo.transition(trx, payment.id, "requestRefund", { refund_reason: reason });
            await refunds.requestRefundLocked(trx, payment.id, { reason, key: `${REJECTED_REFUND_KEY_PREFIX}${payment.id}` });
            logger.warn({ ...logFields(payment), reason }, "payment rejected by its kind; refund requested");
            return { result: { status: "refunded", reason, payment: await now() }, accepted: false, changed: true };
          }
          if (outcome === "duplicate") logger.warn(logFields(payment), "payment settled a row that was already paid");
          // A kind's onPaid writes its own rows, never the payment's: the payment is as marked paid.
          return { result: { status: "paid", newlyPaid: true, payment: paid }, accepted: outcome === "accepted" };
        }
        case "review":
          await repo.transition(trx, payment.id, "flagForReview", { review_reason: verdict.reason, amount_received_cents: intent.amountCents === payment.amountCents ? null : intent.amountCents });
          await handler.onReview?.(trx, await now(), verdict.reason);
          logger.error({ ...logFields(payment), reason: verdict.reason }, "succeeded PaymentIntent does not match its payment: needs_review");
          return { result: { status: "mismatch", reason: verdict.reason, needsReview: true, payment: await now() }, accepted: false, changed: true };
        case "mismatch":
          logger.warn({ ...logFields(payment), reason: verdict.reason }, "open PaymentIntent does not match its payment");
          return { result: { status: "mismatch", reason: verdict.reason, needsReview: false, payment }, accepted: false };
        case "decline":
          await repo.transition(trx, payment.id, "decline", { last_error: verdict.message.slice(0, 2000) });
          return { result: { status: "failed", message: verdict.message, payment: await now() }, accepted: false };
        case "cancel":
          await repo.transition(trx, payment.id, "cancel");
          return { result: { status: "pending", intentStatus: "canceled", payment: await now() }, accepted: false };
        case "open":
          if (verdict.intentStatus === "processing") await handler.onProcessing?.(trx, payment);
          return { result: { status: "pending", intentStatus: verdict.intentStatus, payment }, accepted: false };
        case "settled":
          return { result: current(payment), accepted: false };
      }
    }, begin);

    if (step.accepted) {
      logger.info({ ...logFields(step.result.payment), via }, "payment confirmed");
      try {
        await handler.afterPaid?.(step.result.payment);
      } catch (err) {
        logger.error({ err, kind: found.kind, reference: found.reference }, "after-payment step failed");
      }
    }
    if (step.changed) await afterChange(handler, step.result.payment);
    // A rejected payment's refund was requested in that transaction: send it now rather than at the next pass.
    if (step.result.payment.status === "refund_pending") refunds.job.wake();
    return step.result;
  }

  /** A transaction that locks a payment, queued behind the kind's own transactions on the row its handler will lock next. */
  async function inKindQueue<T>(handler: PaymentKindHandler, reference: string, knownKey: string | undefined, work: (trx: Knex.Transaction) => Promise<T>, beginWith?: ServerBegin): Promise<T> {
    const key = knownKey ?? (await handler.queueKey?.(db, reference));
    return key ? queuedLockingTransaction(db, key, work, { beginWith }) : lockingTransaction(db, work, beginWith && { beginWith });
  }

  async function afterChange(handler: PaymentKindHandler, payment: PaymentRow): Promise<void> {
    try {
      await handler.afterChange?.(payment);
    } catch (err) {
      logger.error({ err, kind: payment.kind, reference: payment.reference }, "after-change step failed");
    }
  }

  function current(payment: PaymentRow): SettleResult {
    switch (payment.status) {
      case "paid":
        return { status: "paid", newlyPaid: false, payment };
      case "needs_review":
        return { status: "mismatch", reason: payment.reviewReason ?? "", needsReview: true, payment };
      case "refund_pending":
      case "refunded":
        return { status: "refunded", reason: payment.refundReason ?? "", payment };
      case "failed":
        return { status: "failed", message: payment.lastError ?? "", payment };
      default:
        return { status: "pending", intentStatus: payment.status, payment };
    }
  }

  /**
   * Creates the PaymentIntent of a claimed row. Two callers on one row with the same details use one idempotency
   * key: one intent. The row fixes the amount, currency and metadata; the key also carries a digest of the
   * description and e-mail, so a retry after a timeout whose details changed meanwhile is a new request, not
   * Stripe's permanent 400 idempotency_error (the first intent, if Stripe made it, was never shown to anyone).
   */
  function intentKeyFor(payment: PaymentRow, input: EnsureIntentInput): string {
    const details = createHash("sha256").update(`${input.description}\n${input.email ?? ""}\n${input.saveCard?.customerId ?? ""}${input.customerId ? `\n${input.customerId}` : ""}`).digest("base64url").slice(0, 16);
    return `payment-${payment.kind}-${payment.reference}-${payment.id}-${details}`;
  }

  async function createIntentFor(payment: PaymentRow, input: EnsureIntentInput): Promise<IntentSnapshot> {
    const idempotencyKey = intentKeyFor(payment, input);
    try {
      const intent = await gateway.createIntent({
        amountCents: payment.amountCents,
        currency: payment.currency,
        metadata: { kind: payment.kind, reference: payment.reference },
        idempotencyKey,
        description: input.description,
        receiptEmail: input.email,
        saveCard: input.saveCard,
        customerId: input.customerId,
      });
      await repo.setIntent(db, payment.id, intent.id, idempotencyKey);
      return intent;
    } catch (err) {
      // Only a request still in flight with the same key (409) means another caller will record the intent: wait for
      // it. Any other failure (Stripe down, refused, or a 400 idempotency_error: the key was used with other
      // parameters and can never succeed) is answered at once, and the row without an intent gives up its live slot
      // (no orphan pending payment; the next attempt claims a new row with a new key).
      if (!isRequestInFlight(err)) {
        await repo.transition(db, payment.id, "cancel", { last_error: "the PaymentIntent could not be created" }).catch(() => undefined);
        throw err;
      }
      for (let i = 0; i < 20; i++) {
        await new Promise((r) => setTimeout(r, 100));
        const row = await repo.findById(db, payment.id);
        if (row?.providerPaymentId) return gateway.retrieveIntent(row.providerPaymentId);
      }
      throw err;
    }
  }

  /** Writes the new amount under the row lock before Stripe is asked, so a webhook between the two writes waits. */
  async function changeAmount(payment: PaymentRow, amountCents: number): Promise<IntentSnapshot> {
    await lockingTransaction(db, async (trx) => {
      await lockForUpdate(trx, "payments", payment.id);
      const row = (await repo.findById(trx, payment.id))!;
      if (!OPEN_STATUSES.includes(row.status)) throw new PaymentNotOpenError(row);
      if (row.expectedAmountCents !== null && Date.now() - (row.amountChangeStartedAt?.getTime() ?? 0) < AMOUNT_CHANGE_GRACE_MS) {
        throw new AmountChangeInFlightError(`An amount change of ${row.kind}:${row.reference} is in flight`);
      }
      await repo.startAmountChange(trx, row.id, amountCents);
    });
    const intentId = payment.providerPaymentId!;
    try {
      const intent = await gateway.updateIntentAmount(intentId, amountCents);
      await repo.finishAmountChange(db, payment.id, intent.amountCents);
      return intent;
    } catch (err) {
      // Whether Stripe applied the change is unknown: the amount it now holds is the payment's amount.
      const now = await gateway.retrieveIntent(intentId).catch(() => undefined);
      if (now) await repo.finishAmountChange(db, payment.id, now.amountCents);
      throw err;
    }
  }

  async function beginAmountChange(trx: Knex.Transaction, live: PaymentRow | undefined): Promise<AmountChangeStart | undefined> {
    if (!live?.providerPaymentId) return undefined;
    await lockForUpdate(trx, "payments", live.id);
    const row = (await repo.findById(trx, live.id))!;
    if (row.status === "canceled") return undefined;
    if (!OPEN_STATUSES.includes(row.status)) throw new PaymentNotOpenError(row);
    if (row.expectedAmountCents !== null && Date.now() - (row.amountChangeStartedAt?.getTime() ?? 0) < AMOUNT_CHANGE_GRACE_MS) {
      throw new AmountChangeInFlightError(`An amount change of ${row.kind}:${row.reference} is in flight`);
    }
    return {
      async to(amountCents, version) {
        const pending = row.amountCents !== amountCents;
        if (pending) await repo.startAmountChange(trx, row.id, amountCents);
        else await repo.setCoversVersion(trx, row.id, version);
        return { paymentId: row.id, intentId: row.providerPaymentId!, amountCents, fromCents: row.amountCents, version, pending };
      },
    };
  }

  async function pushAmountChange(change: AmountChange): Promise<{ applied: true; clientSecret: string | null } | { applied: false; intent: IntentSnapshot }> {
    const applied = async (intent: IntentSnapshot) => {
      await lockingTransaction(db, async (trx) => {
        await lockForUpdate(trx, "payments", change.paymentId);
        await repo.finishAmountChange(trx, change.paymentId, change.amountCents);
        await repo.setCoversVersion(trx, change.paymentId, change.version);
      });
      return { applied: true as const, clientSecret: intent.clientSecret ?? null };
    };
    if (!change.pending) return { applied: true, clientSecret: null };
    if (change.amountCents === 0) return cancelForFree(change);
    let updateError: Error;
    try {
      return await applied(await gateway.updateIntentAmount(change.intentId, change.amountCents));
    } catch (err) {
      updateError = err as Error;
    }
    // Stripe refuses a new amount once the card is confirmed; or it failed, and whether it applied it is unknown.
    const intent = await gateway.retrieveIntent(change.intentId).catch(async () => {
      // Stripe cannot say what it holds: the payment keeps its amount (the next ensureIntent asks again), the caller its change.
      await repo.finishAmountChange(db, change.paymentId, change.fromCents);
      throw updateError;
    });
    if (intent.amountCents === change.amountCents) return applied(intent);
    logger.warn({ paymentId: change.paymentId, intentId: change.intentId, status: intent.status, err: updateError.message }, "PaymentIntent's amount not changed: the change is undone");
    return { applied: false, intent };
  }

  /** No PaymentIntent asks for $0: a change to free cancels it, which Stripe refuses once the card is confirmed. */
  async function cancelForFree(change: AmountChange): Promise<{ applied: true; clientSecret: null } | { applied: false; intent: IntentSnapshot }> {
    const intent = await gateway.cancelIntent(change.intentId).catch(async (err: Error) => {
      const now = await gateway.retrieveIntent(change.intentId).catch(async () => {
        await repo.finishAmountChange(db, change.paymentId, change.fromCents);
        throw err;
      });
      return now;
    });
    if (intent.status !== "canceled") return { applied: false, intent };
    await lockingTransaction(db, async (trx) => {
      await lockForUpdate(trx, "payments", change.paymentId);
      await repo.finishAmountChange(trx, change.paymentId, change.fromCents);
      await repo.transition(trx, change.paymentId, "cancel");
    });
    return { applied: true, clientSecret: null };
  }

  async function abandonAmountChange(trx: Knex.Transaction, change: AmountChange, stripeCents: number, version: number): Promise<void> {
    await lockForUpdate(trx, "payments", change.paymentId);
    await repo.finishAmountChange(trx, change.paymentId, stripeCents);
    await repo.setCoversVersion(trx, change.paymentId, version);
  }

  async function ensureIntent(input: EnsureIntentInput): Promise<{ payment: PaymentRow; clientSecret: string }> {
    const currency = input.currency ?? "usd";
    for (let attempt = 0; attempt < 3; attempt++) {
      // Claimed by this call (or by the caller's transaction): the row is as written, so it is not read again below.
      let payment = attempt === 0 ? input.claimed : undefined;
      let claimedNow = payment !== undefined;
      payment ??= await repo.findLive(db, input.kind, input.reference);
      if (!payment) {
        payment = await repo.claimLive(db, { kind: input.kind, reference: input.reference, group: input.group ?? input.reference, amountCents: input.amountCents, currency, coversVersion: input.version });
        claimedNow = true;
      }
      if (!payment) continue; // the slot changed hands between the two statements: look again
      if (!OPEN_STATUSES.includes(payment.status)) throw new PaymentNotOpenError(payment);
      let intent = payment.providerPaymentId ? await gateway.retrieveIntent(payment.providerPaymentId) : await createIntentFor(payment, input);
      if (intent.status === "canceled") {
        await repo.transition(db, payment.id, "cancel");
        continue;
      }
      if (intent.status === "succeeded" || intent.status === "processing") {
        const settled = await settle(intent.id, "return");
        throw new PaymentNotOpenError(settled.payment);
      }
      const stored = claimedNow && !payment.providerPaymentId && intent.id ? { ...payment, providerPaymentId: intent.id, idempotencyKey: intentKeyFor(payment, input) } : await fresh(payment.id);
      let changed = false;
      if (intent.amountCents !== input.amountCents || stored.amountCents !== input.amountCents) {
        intent = await changeAmount(stored, input.amountCents);
        changed = true;
      }
      if (intent.description !== input.description || (input.email && intent.receiptEmail !== input.email)) {
        // The receipt goes to the e-mail given now; not worth failing the visitor's payment over.
        intent = await gateway.updateIntentDetails(intent.id, { description: input.description, receiptEmail: input.email }).catch((err: Error) => {
          logger.warn({ ...logFields(stored), err: err.message }, "could not update the PaymentIntent's description or receipt e-mail");
          return intent;
        });
      }
      const savesOn = intent.setupFutureUsage === "off_session" ? intent.customerId : null;
      if ((input.saveCard?.customerId ?? null) !== savesOn) {
        // Pay in full after a deposit was chosen (or the other way): the same PaymentIntent saves the card or not.
        intent = await gateway.updateIntentSaveCard(intent.id, input.saveCard ?? null);
      }
      if (input.customerId && !intent.customerId) {
        // An intent made before it was asked for on the Customer: a saved card could not pay it.
        intent = await gateway.updateIntentCustomer(intent.id, input.customerId);
      }
      if (!intent.clientSecret) throw new Error("Stripe returned no client secret");
      // An amount change leaves the version alone: `stored` tells it; the row is read again only when it changed.
      if (input.version !== undefined && stored.coversVersion !== input.version) {
        await repo.setCoversVersion(db, payment.id, input.version);
        changed = true;
      }
      return { payment: changed ? await fresh(payment.id) : stored, clientSecret: intent.clientSecret };
    }
    throw new Error(`Could not obtain a live PaymentIntent for ${input.kind}:${input.reference}`);
  }

  async function cancel(payment: PaymentRow): Promise<"canceled" | "already_succeeded"> {
    const row = await fresh(payment.id);
    if (row.status === "canceled") return "canceled";
    if (!OPEN_STATUSES.includes(row.status)) return "already_succeeded";
    if (row.providerPaymentId) {
      try {
        await gateway.cancelIntent(row.providerPaymentId);
      } catch (err) {
        const intent = await gateway.retrieveIntent(row.providerPaymentId);
        if (intent.status === "succeeded") {
          await settle(row.providerPaymentId, "return");
          return "already_succeeded";
        }
        if (intent.status !== "canceled") throw err;
      }
    }
    if (!(await repo.transition(db, row.id, "cancel"))) {
      return (await fresh(row.id)).status === "canceled" ? "canceled" : "already_succeeded";
    }
    return "canceled";
  }

  /** A refund made anywhere (the site, Stripe's dashboard): every refund of the PaymentIntent is brought up to date. */
  async function handleChargeRefunded(event: Stripe.Event): Promise<void> {
    const charge = event.data.object as Stripe.Charge;
    const intentId = typeof charge.payment_intent === "string" ? charge.payment_intent : charge.payment_intent?.id;
    if (!intentId || !(await repo.findByIntentId(db, intentId))) {
      logger.warn({ type: event.type }, "refund of a charge this site did not create; ignored");
      return;
    }
    await refunds.syncIntentRefunds(intentId);
  }

  async function acceptReview(paymentId: number): Promise<PaymentRow> {
    const found = await repo.findById(db, paymentId);
    if (!found) throw new UnknownPaymentError(`There is no payment ${paymentId}.`);
    const handler = handlerFor(found.kind);
    const payment = await inKindQueue(handler, found.reference, undefined, async (trx) => {
      await lockForUpdate(trx, "payments", found.id);
      await handler.expected?.(trx, found.reference);
      const locked = (await repo.findById(trx, found.id))!;
      if (locked.status !== "needs_review") throw new ReviewNotAcceptedError(`Payment ${found.id} is ${locked.status}, not needs_review: nothing changed.`);
      // What Stripe took is not the payment's own amount (or currency, or it was made for another row): the row cannot
      // say what was kept. These reasons are judgeIntent's (transitions.ts).
      if (CHARGED_OTHERWISE.test(locked.reviewReason ?? "")) {
        throw new ReviewNotAcceptedError(`Payment ${found.id} cannot be accepted (${locked.reviewReason}): Stripe took what the payment does not record; refund it instead.`);
      }
      if ((await refundsOfPayment(trx, found.id)).some((r) => COUNTED_REFUND_STATUSES.includes(r.status))) {
        throw new ReviewNotAcceptedError(`Payment ${found.id} has a refund asked for or made: nothing changed.`);
      }
      await repo.transition(trx, found.id, "acceptReview", { paid_via: "operator", paid_at: new Date(), last_error: null });
      const outcome = await handler.onPaid(trx, (await repo.findById(trx, found.id))!);
      if (outcome !== "accepted") {
        const why = outcome === "duplicate" ? `the ${found.kind} is already paid` : typeof outcome === "object" ? outcome.reject : `the ${found.kind} refused it`;
        throw new ReviewNotAcceptedError(`The ${found.kind} ${found.reference} cannot take this payment (${why}): nothing changed; refund it instead.`);
      }
      return (await repo.findById(trx, found.id))!;
    });
    logger.warn(logFields(payment), "needs_review payment accepted by an operator");
    try {
      await handler.afterPaid?.(payment);
    } catch (err) {
      logger.error({ err, kind: payment.kind, reference: payment.reference }, "after-payment step failed");
    }
    return payment;
  }

  const savedCards = createSavedCards({ db, gateway, logger, settle, changeAmount });

  return {
    ...savedCards,
    gateway,
    register(kind, handler) {
      handlers.set(kind, handler);
    },
    ensureIntent,
    beginAmountChange,
    pushAmountChange,
    abandonAmountChange,
    cancel,
    async claimIn(trx, input) {
      const claimed = await repo.claimLive(trx, { kind: input.kind, reference: input.reference, group: input.group ?? input.reference, amountCents: input.amountCents, currency: input.currency ?? "usd", coversVersion: input.version });
      if (!claimed) throw new Error(`The live payment of ${input.kind}:${input.reference} is claimed already`);
      return claimed;
    },
    async recordFree(trx, kind, reference, group = reference) {
      const live = await repo.findLive(trx, kind, reference);
      if (live?.provider === "none" && live.status === "paid") return live;
      if (live) throw new PaymentNotOpenError(live);
      return repo.insertFree(trx, { kind, reference, group, currency: "usd" });
    },
    requestRefund: (trx, payment, request) => refunds.requestRefund(trx, payment, request),
    async refund(payment, request) {
      const row = await lockingTransaction(db, async (trx) => {
        await lockForUpdate(trx, "payments", payment.id);
        return refunds.requestRefundLocked(trx, payment.id, request);
      });
      refunds.job.wake();
      return row;
    },
    refundsOf: (paymentId) => refundsOfPayment(db, paymentId),
    failedRefunds: () => listFailedRefunds(db),
    refundJobs: refunds.job,
    settle,
    settledSomewhere,
    heardSettled: (intentId) => wake(intentId, true),
    async handleEvent(event) {
      if (event.type === "charge.refunded") return handleChargeRefunded(event);
      if (REFUND_EVENTS.has(event.type)) return refunds.applyStripeRefund(refundSnapshot(event.data.object as Stripe.Refund));
      if (!SETTLING_EVENTS.has(event.type)) return;
      const intentId = (event.data.object as { id?: string }).id;
      if (!intentId) return;
      try {
        await settle(intentId, "webhook");
      } catch (err) {
        if (err instanceof UnknownPaymentError) {
          logger.warn({ type: event.type }, "webhook for a PaymentIntent this site did not create; ignored");
          return;
        }
        throw err;
      }
    },
    liveFor: (kind, reference) => repo.findLive(db, kind, reference),
    latestFor: (kind, reference) => repo.findLatestFor(db, kind, reference),
    needsReview: () => repo.listNeedsReview(db),
    acceptReview,
  };
}

/** Stripe's answer to a second request with a key whose first request is still running (409; a 400 with the same type is final). */
function isRequestInFlight(err: unknown): boolean {
  return (err as { statusCode?: number }).statusCode === 409;
}
