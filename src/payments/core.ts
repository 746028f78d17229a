import type { Knex } from "knex";
import type Stripe from "stripe";
import type { Db } from "../db/knex.ts";
import type { Logger } from "../logger.ts";
import type { PaymentGateway } from "./gateway.ts";
import { judgeIntent } from "./stateMachine.ts";
import * as repo from "./repository.ts";
import type { PaymentRow } from "./repository.ts";

/** What a feature (shop orders, event registrations) does when one of its payments settles. */
export interface PaymentKindHandler {
  /** Runs inside the transaction that marks the payment paid, exactly once: mark the row paid, queue its e-mail. */
  onPaid(trx: Knex.Transaction, payment: PaymentRow): Promise<void>;
  /** Runs after that transaction commits (wake the outbox, write-backs). Errors are logged, not thrown. */
  afterPaid?(payment: PaymentRow): Promise<void>;
}

export type SettleResult =
  | { status: "paid"; newlyPaid: boolean; payment: PaymentRow }
  | { status: "failed"; message: string; payment: PaymentRow }
  | { status: "pending"; intentStatus: string; payment: PaymentRow }
  | { status: "mismatch"; reason: string; payment: PaymentRow };

export class UnknownPaymentError extends Error {}

export interface StartPaymentInput {
  kind: string;
  reference: string;
  amountCents: number;
  currency?: string;
  idempotencyKey: string;
  description: string;
  email?: string;
}

export interface PaymentCore {
  readonly gateway: PaymentGateway;
  register(kind: string, handler: PaymentKindHandler): void;
  /** One PaymentIntent for a row already written as pending_payment; the same key gives back the same intent. */
  start(input: StartPaymentInput): Promise<{ payment: PaymentRow; clientSecret: string }>;
  /** The client secret of an existing payment (a retry after a declined card reuses its PaymentIntent). */
  clientSecret(payment: PaymentRow): Promise<string>;
  /** A later amount change (a discount): the same PaymentIntent, a new amount. */
  updateAmount(payment: PaymentRow, amountCents: number): Promise<void>;
  cancel(payment: PaymentRow): Promise<void>;
  /** Fetch the PaymentIntent from Stripe, check it, and mark the payment paid exactly once. */
  settle(intentId: string, via: "return" | "webhook"): Promise<SettleResult>;
  /** A verified webhook event; throws when processing failed (the route answers non-2xx so Stripe retries). */
  handleEvent(event: Stripe.Event): Promise<void>;
  latestFor(kind: string, reference: string): Promise<PaymentRow | undefined>;
}

const SETTLING_EVENTS = new Set(["payment_intent.succeeded", "payment_intent.payment_failed", "payment_intent.canceled", "payment_intent.processing"]);

export function createPaymentCore(opts: { db: Db; gateway: PaymentGateway; logger: Logger }): PaymentCore {
  const { db, gateway, logger } = opts;
  const handlers = new Map<string, PaymentKindHandler>();

  async function settle(intentId: string, via: "return" | "webhook"): Promise<SettleResult> {
    const payment = await repo.findByIntentId(db, intentId);
    if (!payment) throw new UnknownPaymentError(`No payment for ${intentId}`);
    const handler = handlers.get(payment.kind);
    if (!handler) throw new Error(`No payment handler registered for kind '${payment.kind}'`);
    const intent = await gateway.retrieveIntent(intentId);
    const verdict = judgeIntent(payment, intent);

    switch (verdict.outcome) {
      case "already_paid":
        return { status: "paid", newlyPaid: false, payment };
      case "mark_paid": {
        const newlyPaid = await db.transaction(async (trx) => {
          const won = await repo.markPaidOnce(trx, payment.id, via);
          if (won) await handler.onPaid(trx, payment);
          return won;
        });
        const fresh = (await repo.findByIntentId(db, intentId))!;
        if (newlyPaid) {
          logger.info({ kind: payment.kind, reference: payment.reference, via }, "payment confirmed");
          try {
            await handler.afterPaid?.(fresh);
          } catch (err) {
            logger.error({ err, kind: payment.kind, reference: payment.reference }, "after-payment step failed");
          }
        }
        return { status: "paid", newlyPaid, payment: fresh };
      }
      case "failed":
        await repo.setStatus(db, payment.id, "failed", verdict.message);
        return { status: "failed", message: verdict.message, payment };
      case "mismatch":
        logger.error({ kind: payment.kind, reference: payment.reference, reason: verdict.reason }, "PaymentIntent does not match its payment; not marked paid");
        return { status: "mismatch", reason: verdict.reason, payment };
      case "not_paid":
        if (verdict.intentStatus === "canceled") await repo.setStatus(db, payment.id, "canceled", null);
        return { status: "pending", intentStatus: verdict.intentStatus, payment };
    }
  }

  return {
    gateway,
    register(kind, handler) {
      handlers.set(kind, handler);
    },
    async start(input) {
      const currency = input.currency ?? "usd";
      const intent = await gateway.createIntent({
        amountCents: input.amountCents,
        currency,
        metadata: { kind: input.kind, reference: input.reference },
        idempotencyKey: input.idempotencyKey,
        description: input.description,
        receiptEmail: input.email,
      });
      let payment = await repo.findByIntentId(db, intent.id);
      if (!payment) {
        try {
          payment = await repo.insertPayment(db, {
            kind: input.kind,
            reference: input.reference,
            providerPaymentId: intent.id,
            idempotencyKey: input.idempotencyKey,
            amountCents: input.amountCents,
            currency,
          });
        } catch (err) {
          // The same idempotency key from two requests at once: Stripe gave both the same intent.
          payment = await repo.findByIntentId(db, intent.id);
          if (!payment) throw err;
        }
      }
      if (!intent.clientSecret) throw new Error("Stripe returned no client secret");
      return { payment, clientSecret: intent.clientSecret };
    },
    async clientSecret(payment) {
      const intent = await gateway.retrieveIntent(payment.providerPaymentId);
      if (!intent.clientSecret) throw new Error("Stripe returned no client secret");
      return intent.clientSecret;
    },
    async updateAmount(payment, amountCents) {
      if (payment.amountCents === amountCents) return;
      await gateway.updateIntentAmount(payment.providerPaymentId, amountCents);
      await repo.updateAmount(db, payment.id, amountCents);
    },
    async cancel(payment) {
      try {
        await gateway.cancelIntent(payment.providerPaymentId);
        await repo.setStatus(db, payment.id, "canceled", null);
      } catch (err) {
        // A PaymentIntent that already succeeded cannot be canceled: the webhook will mark it paid.
        logger.warn({ err: (err as Error).message, reference: payment.reference }, "could not cancel PaymentIntent");
      }
    },
    settle,
    async handleEvent(event) {
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
    latestFor: (kind, reference) => repo.findLatestFor(db, kind, reference),
  };
}
