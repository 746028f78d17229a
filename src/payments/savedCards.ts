import { createHash, randomUUID } from "node:crypto";
import type { Db } from "../db/knex.ts";
import type { Logger } from "../logger.ts";
import type { CardDetails, CardFailure, IntentSnapshot, OffSessionAttempt, PaymentGateway } from "./gateway.ts";
import { OPEN_STATUSES } from "./transitions.ts";
import * as repo from "./repository.ts";
import type { PaymentRow } from "./repository.ts";

/**
 * Saved cards: a Stripe Customer per paid-for reference, the card a payment saves on it (setup_future_usage), later
 * charges of that card without the customer (off_session), and a new card saved with a SetupIntent. Every Stripe call
 * goes through the gateway; these functions are the payment core's (src/payments/core.ts re-exports them).
 */

/**
 * Declines that another try of the same card cannot fix (https://docs.stripe.com/declines/codes): the card is gone,
 * blocked, expired or wrong. Every other decline (insufficient_funds, generic_decline, do_not_honor, processing
 * errors...) is soft: the same card may go through on a later day.
 */
export const HARD_DECLINES: ReadonlySet<string> = new Set([
  "lost_card",
  "stolen_card",
  "pickup_card",
  "fraudulent",
  "restricted_card",
  "expired_card",
  "incorrect_number",
  "invalid_account",
  "card_not_supported",
]);

/** Whether a card error is a hard decline: its decline_code, or its code when Stripe gives no decline_code (expired_card). */
export function isHardDecline(code: string, declineCode: string | null): boolean {
  return HARD_DECLINES.has(declineCode ?? "") || HARD_DECLINES.has(code);
}

/** Stripe wants the customer to authenticate (3-D Secure): bring them back on session to pay the same PaymentIntent. */
export function needsAuthentication(code: string, declineCode: string | null): boolean {
  return code === "authentication_required" || declineCode === "authentication_required";
}

export interface ChargeSavedCardInput {
  /** The payment kind (its handler settles the row), e.g. `registration_balance`. */
  kind: string;
  reference: string;
  /** The payment group (a registration's reference) the row belongs to. */
  group: string;
  customerId: string;
  paymentMethodId: string;
  amountCents: number;
  description: string;
  /** One per attempt, made by the caller (a crash mid-call is retried with the same key: one charge). At most 150 characters. */
  idempotencyKey: string;
  /** Carried in the PaymentIntent's metadata beside kind and reference. */
  metadata?: Record<string, string>;
  currency?: string;
}

export type ChargeOutcome =
  /** Charged: the payment row is paid (its kind's onPaid ran), exactly once with the webhook. */
  | { outcome: "succeeded"; payment: PaymentRow }
  /**
   * The bank wants the customer to authenticate: no money taken, the row is `failed` and its PaymentIntent waits
   * (requires_payment_method). `ensureIntent` with the same kind and reference gives its client secret to pay on session.
   */
  | { outcome: "authentication_required"; payment: PaymentRow }
  /** Declined: no money taken; `hard` when retrying the same card cannot help (HARD_DECLINES). */
  | { outcome: "declined"; code: string; declineCode: string | null; hard: boolean; message: string; payment: PaymentRow }
  /** Stripe is still confirming (rare for cards): the webhook settles the row later. */
  | { outcome: "processing"; payment: PaymentRow }
  /** The money was taken but the kind did not keep it (refund requested) or it does not match (needs_review). */
  | { outcome: "not_kept"; reason: string; payment: PaymentRow };

export interface CardUpdate {
  setupIntentId: string;
  clientSecret: string;
}

/** The SetupIntent has not saved a card (yet): its status and Stripe's message for the last failed attempt. */
export class CardUpdateNotFinishedError extends Error {
  constructor(
    readonly status: string,
    readonly lastError: string | null,
  ) {
    super(`The new card is not saved (SetupIntent ${status})${lastError ? `: ${lastError}` : ""}`);
  }
}

export class SavedCardChargeError extends Error {}

export interface SavedCards {
  /** A Stripe Customer for a reference; the same reference, e-mail and name within Stripe's 24 h key window give the same one. Store its id. */
  ensureCustomer(input: { reference: string; email: string; name: string }): Promise<{ customerId: string }>;
  /**
   * Charges a saved card off_session (network call: never inside a transaction). The payments row of (kind,
   * reference) is claimed first, with the attempt's key, then Stripe is asked, then the outcome is settled like any
   * payment. A second call with the same key repeats the same request (Stripe answers it again: one charge); a call
   * with a new key after a decline confirms the same PaymentIntent again.
   */
  chargeSavedCard(input: ChargeSavedCardInput): Promise<ChargeOutcome>;
  /** A SetupIntent (usage off_session) for "Use another card"; Stripe.js confirms it with its client secret. */
  startCardUpdate(input: { customerId: string }): Promise<CardUpdate>;
  /** The card a succeeded SetupIntent saved. Throws CardUpdateNotFinishedError when it has not succeeded. */
  finishCardUpdate(setupIntentId: string): Promise<{ paymentMethodId: string; customerId: string | null; card: CardDetails }>;
  /** What a saved card is (brand, last 4 digits, expiry). */
  savedCard(paymentMethodId: string): Promise<CardDetails>;
  /**
   * The card a paid payment saved (ensureIntent with saveCard), for the kind to keep after the payment settled
   * (afterPaid: a network call, outside its transaction); null when the payment saved none.
   */
  cardSavedBy(payment: PaymentRow): Promise<SavedCard | null>;
}

export interface SavedCard {
  customerId: string;
  paymentMethodId: string;
  card: CardDetails;
}

/** What the core lends these functions: its settlement (exactly once, under the locks) and its amount change. */
export interface SavedCardsContext {
  db: Db;
  gateway: PaymentGateway;
  logger: Logger;
  settle(intentId: string, via: "off_session"): Promise<SettledAs>;
  changeAmount(payment: PaymentRow, amountCents: number): Promise<IntentSnapshot>;
}

/** The part of the core's SettleResult these functions read. */
export type SettledAs = { status: string; payment: PaymentRow; reason?: string };

const MAX_KEY_LENGTH = 150;
/** On the row, the key of an attempt that confirmed the PaymentIntent again (not the one that created it). */
const CONFIRM_KEY_PREFIX = "confirm:";

/** The caller's key of the off-session attempt a payment row last sent (its own, or its confirmation's), if any. */
export const attemptKeyOf = (payment: Pick<PaymentRow, "idempotencyKey">): string | null =>
  payment.idempotencyKey?.startsWith(CONFIRM_KEY_PREFIX) ? payment.idempotencyKey.slice(CONFIRM_KEY_PREFIX.length) : payment.idempotencyKey;

export function createSavedCards(ctx: SavedCardsContext): SavedCards {
  const { db, gateway, logger } = ctx;

  /** The live payment of (kind, reference); `claimed` when this call made it (no earlier attempt can have reached Stripe). */
  async function claimRow(input: ChargeSavedCardInput, currency: string): Promise<{ payment: PaymentRow; claimed: boolean }> {
    for (let i = 0; i < 3; i++) {
      const live = await repo.findLive(db, input.kind, input.reference);
      if (live) return { payment: live, claimed: false };
      const claimed = await repo.claimLive(db, { kind: input.kind, reference: input.reference, group: input.group, amountCents: input.amountCents, currency, idempotencyKey: input.idempotencyKey });
      if (claimed) return { payment: claimed, claimed: true };
    }
    throw new SavedCardChargeError(`Could not claim the payment of ${input.kind}:${input.reference}`);
  }

  /**
   * Sends the attempt: the row's first PaymentIntent (created and confirmed at once, with the caller's key), or its
   * PaymentIntent confirmed again (a later attempt after a decline). The row keeps the key of the latest attempt,
   * written before the call (`confirm:` in front for a confirmation; Stripe takes a key for one endpoint only), so the
   * same attempt repeated after a crash sends the same request again and Stripe answers it once.
   */
  async function attempt(payment: PaymentRow, claimed: boolean, input: ChargeSavedCardInput): Promise<OffSessionAttempt> {
    const metadata = { ...(input.metadata ?? {}), kind: payment.kind, reference: payment.reference, payment: String(payment.id) };
    if (!payment.providerPaymentId && !claimed) {
      // An earlier attempt died between Stripe's answer and our write, maybe more than the 24 h Stripe keeps a key:
      // the PaymentIntent it made carries this row's id.
      const made = (await gateway.listCustomerIntents(input.customerId)).find((pi) => pi.metadata.payment === String(payment.id) && pi.metadata.kind === payment.kind);
      if (made) {
        await repo.setIntent(db, payment.id, made.id, payment.idempotencyKey ?? input.idempotencyKey);
        payment = await fresh(payment.id);
      }
    }
    if (!payment.providerPaymentId) {
      // An earlier attempt may have died between Stripe's answer and our write: its key, sent again, gets that answer.
      const key = payment.idempotencyKey ?? input.idempotencyKey;
      const first = await gateway.chargeOffSession({
        customerId: input.customerId,
        paymentMethodId: input.paymentMethodId,
        amountCents: payment.amountCents,
        currency: payment.currency,
        metadata,
        description: input.description,
        idempotencyKey: key,
      });
      await repo.setIntent(db, payment.id, first.intent.id, key);
      if (key === input.idempotencyKey || first.intent.status !== "requires_payment_method") return first;
      return confirmAgain(payment, first.intent, input);
    }
    const intent = await gateway.retrieveIntent(payment.providerPaymentId);
    // This attempt created the PaymentIntent (and confirmed it in the same call): it has run; nothing is sent again.
    if (payment.idempotencyKey === input.idempotencyKey) return { intent, failure: failureOf(intent) };
    if (intent.status !== "requires_payment_method" && intent.status !== "requires_confirmation") return { intent, failure: failureOf(intent) };
    return confirmAgain(payment, intent, input);
  }

  async function confirmAgain(payment: PaymentRow, intent: IntentSnapshot, input: ChargeSavedCardInput): Promise<OffSessionAttempt> {
    if (intent.amountCents !== input.amountCents) intent = await ctx.changeAmount(await fresh(payment.id), input.amountCents);
    // An intent made on session without a Customer (before balances were made on it): Stripe refuses a saved card on
    // it, so it is put on the card's Customer first. An intent on another Customer is left as it is: Stripe refuses
    // it, a refusal no retry cures (the caller's decline path).
    if (!intent.customerId) intent = await gateway.updateIntentCustomer(intent.id, input.customerId);
    await repo.setAttemptKey(db, payment.id, `${CONFIRM_KEY_PREFIX}${input.idempotencyKey}`);
    return gateway.confirmOffSession(intent.id, { paymentMethodId: input.paymentMethodId, idempotencyKey: input.idempotencyKey });
  }

  const fresh = async (id: number) => (await repo.findById(db, id))!;

  async function chargeSavedCard(input: ChargeSavedCardInput): Promise<ChargeOutcome> {
    if (!input.idempotencyKey || input.idempotencyKey.length > MAX_KEY_LENGTH) throw new SavedCardChargeError(`An idempotency key of 1 to ${MAX_KEY_LENGTH} characters is needed`);
    if (!Number.isInteger(input.amountCents) || input.amountCents < 50) throw new SavedCardChargeError("A saved card is charged at least 50 cents");
    const { payment, claimed } = await claimRow(input, input.currency ?? "usd");
    if (payment.status === "paid") return { outcome: "succeeded", payment };
    if (!OPEN_STATUSES.includes(payment.status)) return { outcome: "not_kept", reason: `the payment is ${payment.status}`, payment };

    const sent = await attempt(payment, claimed, input);
    const settled = await ctx.settle(sent.intent.id, "off_session");
    const failure = sent.failure ?? failureOf(sent.intent);
    const fields = { kind: input.kind, reference: input.reference, intentId: sent.intent.id };
    switch (settled.status) {
      case "paid":
        logger.info(fields, "saved card charged off session");
        return { outcome: "succeeded", payment: settled.payment };
      case "pending":
        if (!failure) return { outcome: "processing", payment: settled.payment };
        break;
      case "failed":
        break;
      default:
        return { outcome: "not_kept", reason: settled.reason ?? settled.status, payment: settled.payment };
    }
    if (!failure) throw new SavedCardChargeError(`Stripe gave no outcome for ${sent.intent.id} (${sent.intent.status})`);
    if (needsAuthentication(failure.code, failure.declineCode)) {
      logger.info(fields, "saved card needs the customer to authenticate");
      return { outcome: "authentication_required", payment: settled.payment };
    }
    const hard = isHardDecline(failure.code, failure.declineCode);
    logger.info({ ...fields, code: failure.code, declineCode: failure.declineCode, hard }, "saved card declined off session");
    return { outcome: "declined", code: failure.code, declineCode: failure.declineCode, hard, message: failure.message, payment: settled.payment };
  }

  return {
    async ensureCustomer({ reference, email, name }) {
      const details = createHash("sha256").update(`${email}\n${name}`).digest("base64url").slice(0, 16);
      const customer = await gateway.createCustomer({ reference, email, name, idempotencyKey: `customer-${reference}-${details}` });
      return { customerId: customer.id };
    },
    chargeSavedCard,
    async startCardUpdate({ customerId }) {
      const si = await gateway.createSetupIntent({ customerId, idempotencyKey: `setup-${customerId}-${randomUUID()}` });
      if (!si.clientSecret) throw new Error("Stripe returned no client secret for the SetupIntent");
      return { setupIntentId: si.id, clientSecret: si.clientSecret };
    },
    async finishCardUpdate(setupIntentId) {
      const si = await gateway.retrieveSetupIntent(setupIntentId);
      if (si.status !== "succeeded" || !si.paymentMethodId) throw new CardUpdateNotFinishedError(si.status, si.lastErrorMessage);
      const pm = await gateway.retrievePaymentMethod(si.paymentMethodId);
      return { paymentMethodId: pm.id, customerId: si.customerId, card: pm.card };
    },
    async savedCard(paymentMethodId) {
      return (await gateway.retrievePaymentMethod(paymentMethodId)).card;
    },
    async cardSavedBy(payment) {
      if (!payment.providerPaymentId) return null;
      const intent = await gateway.retrieveIntent(payment.providerPaymentId);
      if (intent.status !== "succeeded" || intent.setupFutureUsage !== "off_session" || !intent.customerId || !intent.paymentMethodId) return null;
      const pm = await gateway.retrievePaymentMethod(intent.paymentMethodId);
      return { customerId: intent.customerId, paymentMethodId: pm.id, card: pm.card };
    },
  };
}

/** The failure a PaymentIntent records of its last attempt (when no 402 came back with it: a replay, a retrieve). */
function failureOf(intent: IntentSnapshot): CardFailure | null {
  if (intent.status !== "requires_payment_method" || !intent.lastErrorCode) return null;
  return { code: intent.lastErrorCode, declineCode: intent.lastDeclineCode, message: intent.lastErrorMessage ?? "Your card was declined." };
}
