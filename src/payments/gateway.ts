import Stripe from "stripe";
import type { FakeStripe } from "./offline/fakeStripeServer.ts";

/** What is being paid for: the payment core is shared by shop orders and event registrations. */
export interface PaymentMetadata {
  kind: string;
  reference: string;
}

/** The part of a Stripe PaymentIntent the payment core reads. */
export interface IntentSnapshot {
  id: string;
  status: string;
  amountCents: number;
  currency: string;
  metadata: Record<string, string>;
  clientSecret: string | null;
  /** The provider's message for the last failed attempt (declined card, ...). */
  lastErrorMessage: string | null;
  description: string | null;
  receiptEmail: string | null;
  /** The card the intent was (last) confirmed with; after success, the saved card when the intent saved one. */
  paymentMethodId: string | null;
  customerId: string | null;
  /** `off_session` when a successful payment saves its card on the customer for later charges. */
  setupFutureUsage: string | null;
  /** The last failed attempt's codes (card_declined / insufficient_funds, authentication_required, ...). */
  lastErrorCode: string | null;
  lastDeclineCode: string | null;
}

/** The part of a Stripe Refund the payment core reads. */
export interface RefundSnapshot {
  id: string;
  paymentIntentId: string | null;
  amountCents: number;
  /** pending, requires_action, succeeded, failed or canceled. */
  status: string;
  failureReason: string | null;
  metadata: Record<string, string>;
}

export function refundSnapshot(r: Stripe.Refund): RefundSnapshot {
  return {
    id: r.id,
    paymentIntentId: typeof r.payment_intent === "string" ? r.payment_intent : (r.payment_intent?.id ?? null),
    amountCents: r.amount,
    status: r.status ?? "pending",
    failureReason: r.failure_reason ?? null,
    metadata: { ...(r.metadata ?? {}) },
  };
}

export interface RefundIntentInput {
  /** Omitted: whatever of the charge is not refunded yet. */
  amountCents?: number;
  idempotencyKey: string;
  reason: string;
  /** The site's refund row (payment_refunds.id), carried in the refund's metadata so its webhooks find the row. */
  refundRequestId?: number;
}

export interface CreateIntentInput {
  amountCents: number;
  currency: string;
  metadata: PaymentMetadata;
  idempotencyKey: string;
  description: string;
  receiptEmail?: string;
  /** The payment saves its card on this Stripe Customer for later off-session charges (setup_future_usage). */
  saveCard?: { customerId: string };
  /** The Stripe Customer the payment belongs to without saving its card (a balance paid with the card saved on it). */
  customerId?: string;
}

/** A card saved on a customer: what the site shows and checks (expiry before a due date). */
export interface CardDetails {
  brand: string;
  last4: string;
  expMonth: number;
  expYear: number;
}

export interface PaymentMethodSnapshot {
  id: string;
  customerId: string | null;
  card: CardDetails;
}

/** The part of a Stripe SetupIntent the payment core reads. */
export interface SetupSnapshot {
  id: string;
  status: string;
  customerId: string | null;
  clientSecret: string | null;
  paymentMethodId: string | null;
  lastErrorMessage: string | null;
}

/** A charge of a saved card without the customer (off_session), confirmed in the same call. */
export interface OffSessionChargeInput {
  customerId: string;
  paymentMethodId: string;
  amountCents: number;
  currency: string;
  metadata: PaymentMetadata & Record<string, string>;
  description: string;
  idempotencyKey: string;
}

/** Why Stripe refused a card (the error's code and decline_code, https://docs.stripe.com/declines/codes). */
export interface CardFailure {
  code: string;
  declineCode: string | null;
  message: string;
}

/** The intent after an off-session attempt; `failure` when Stripe answered with a card error (402). */
export interface OffSessionAttempt {
  intent: IntentSnapshot;
  failure: CardFailure | null;
}

export class WebhookSignatureError extends Error {}

/** The one payment gateway: Stripe through its SDK (live keys, or the offline fake on loopback). */
export interface PaymentGateway {
  readonly mode: "live" | "offline";
  readonly publishableKey: string;
  /** Offline test mode only: the in-process fake Stripe the SDK talks to. */
  readonly offline?: FakeStripe;
  createIntent(input: CreateIntentInput): Promise<IntentSnapshot>;
  retrieveIntent(id: string): Promise<IntentSnapshot>;
  /** A later amount change (a discount) updates the same PaymentIntent instead of making a second one. */
  updateIntentAmount(id: string, amountCents: number): Promise<IntentSnapshot>;
  /** What the receipt and Stripe's dashboard say (the description, the e-mail the receipt goes to) changed. */
  updateIntentDetails(id: string, details: { description: string; receiptEmail?: string }): Promise<IntentSnapshot>;
  cancelIntent(id: string): Promise<IntentSnapshot>;
  /** Refunds (part of) a succeeded PaymentIntent; the same idempotency key gives back the same refund. */
  refundIntent(id: string, input: RefundIntentInput): Promise<RefundSnapshot>;
  /** Every refund of a PaymentIntent (the site's and the dashboard's), newest first. */
  listRefunds(intentId: string): Promise<RefundSnapshot[]>;
  /** A Stripe Customer for a paid-for reference; the same reference, e-mail and name within 24 h give the same customer. */
  createCustomer(input: { reference: string; email: string; name: string; idempotencyKey: string }): Promise<{ id: string }>;
  /** Gives an open intent the customer and setup_future_usage (or takes them off: null), before it is confirmed. */
  updateIntentSaveCard(id: string, saveCard: { customerId: string } | null): Promise<IntentSnapshot>;
  /** Puts an open intent on a customer (it had none), so that a card saved on that customer can pay it. */
  updateIntentCustomer(id: string, customerId: string): Promise<IntentSnapshot>;
  /** Creates and confirms a PaymentIntent for a saved card, off_session, in one call with the caller's key. */
  chargeOffSession(input: OffSessionChargeInput): Promise<OffSessionAttempt>;
  /** Confirms an existing (declined earlier) PaymentIntent again, off_session, with a saved card. */
  confirmOffSession(intentId: string, input: { paymentMethodId: string; idempotencyKey: string }): Promise<OffSessionAttempt>;
  /** A SetupIntent (usage off_session) that saves a new card on the customer, confirmed by Stripe.js. */
  createSetupIntent(input: { customerId: string; idempotencyKey: string; metadata?: Record<string, string> }): Promise<SetupSnapshot>;
  retrieveSetupIntent(id: string): Promise<SetupSnapshot>;
  /** A customer's PaymentIntents, newest first (at most 100): finds the one an interrupted attempt made. */
  listCustomerIntents(customerId: string): Promise<IntentSnapshot[]>;
  retrievePaymentMethod(id: string): Promise<PaymentMethodSnapshot>;
  /** Verifies the Stripe-Signature header on the raw body; throws WebhookSignatureError when it does not match. */
  verifyWebhook(rawBody: Buffer, signature: string | undefined): Stripe.Event;
  /** Whether Stripe answers with these keys (one read of the balance, within the deadline), kept KEY_CHECK_CACHE_MS. */
  checkKeys(): Promise<KeyCheck>;
}

export type KeyCheck = { ok: true } | { ok: false; reason: string };

/** /readyz asks on every probe; Stripe is asked at most this often. */
export const KEY_CHECK_CACHE_MS = 30_000;

export function snapshot(pi: Stripe.PaymentIntent): IntentSnapshot {
  return {
    id: pi.id,
    status: pi.status,
    amountCents: pi.amount,
    currency: pi.currency,
    metadata: { ...(pi.metadata ?? {}) },
    clientSecret: pi.client_secret ?? null,
    lastErrorMessage: pi.last_payment_error?.message ?? null,
    description: pi.description ?? null,
    receiptEmail: pi.receipt_email ?? null,
    paymentMethodId: idOf(pi.payment_method),
    customerId: idOf(pi.customer),
    setupFutureUsage: pi.setup_future_usage ?? null,
    lastErrorCode: pi.last_payment_error?.code || null,
    lastDeclineCode: pi.last_payment_error?.decline_code || null,
  };
}

const idOf = (v: string | { id: string } | null | undefined): string | null => (typeof v === "string" ? v : (v?.id ?? null));

export function setupSnapshot(si: Stripe.SetupIntent): SetupSnapshot {
  return {
    id: si.id,
    status: si.status,
    customerId: idOf(si.customer),
    clientSecret: si.client_secret ?? null,
    paymentMethodId: idOf(si.payment_method),
    lastErrorMessage: si.last_setup_error?.message ?? null,
  };
}

export function paymentMethodSnapshot(pm: Stripe.PaymentMethod): PaymentMethodSnapshot {
  if (!pm.card) throw new Error(`Payment method ${pm.id} is not a card`);
  return { id: pm.id, customerId: idOf(pm.customer), card: { brand: pm.card.brand, last4: pm.card.last4, expMonth: pm.card.exp_month, expYear: pm.card.exp_year } };
}

/**
 * A card error (402) of an off-session attempt: Stripe sends the PaymentIntent with it, left requires_payment_method
 * (https://docs.stripe.com/payments/save-and-reuse#charge-saved-payment-method). Any other error is thrown on.
 */
function cardFailure(err: unknown): OffSessionAttempt | undefined {
  if (!(err instanceof Stripe.errors.StripeCardError)) return undefined;
  const pi = (err.raw as { payment_intent?: Stripe.PaymentIntent }).payment_intent;
  if (!pi) return undefined;
  return { intent: snapshot(pi), failure: { code: err.code ?? "card_declined", declineCode: err.decline_code || null, message: err.message } };
}

export interface StripeGatewayOptions {
  secretKey: string;
  publishableKey: string;
  webhookSecret: string;
  mode: "live" | "offline";
  offline?: FakeStripe;
  /** Only for the offline fake: where the SDK sends its requests. */
  api?: { host: string; port: number; protocol: "http" | "https" };
}

/**
 * One attempt of a Stripe call is given up after this long. Stripe answers the calls this site makes (create,
 * retrieve, update, cancel a PaymentIntent; create a refund) in a few hundred milliseconds and rarely above a
 * second; 2 s leaves room for a slow moment without keeping a visitor long on a hung connection.
 */
export const STRIPE_ATTEMPT_MS = 2_000;

/**
 * Stripe is still running an earlier request with the same idempotency key (a hung or slow first try of the same
 * form): a 409 idempotency_error. Nothing failed; the answer comes once that first request finishes.
 */
export function isRequestInFlight(err: unknown): boolean {
  const e = (err ?? {}) as { statusCode?: number; rawType?: string; type?: string };
  return e.statusCode === 409 && (e.rawType === "idempotency_error" || e.type === "StripeIdempotencyError");
}
/**
 * Stripe refused the request itself (400 or 404 invalid_request_error, or a 400 idempotency_error: a key reused with
 * other parameters): the same request sent again gets the same refusal. Not a card decline (402), not Stripe or the
 * network failing (5xx, a timeout, a lost connection), not a 401 or 429 that the operator or time can cure.
 */
export function isPermanentRefusal(err: unknown): boolean {
  const e = (err ?? {}) as { statusCode?: number; rawType?: string };
  if (e.statusCode === 400) return e.rawType === "invalid_request_error" || e.rawType === "idempotency_error";
  return e.statusCode === 404 && e.rawType === "invalid_request_error";
}

/**
 * The SDK's own retries: one more attempt after a lost connection, a timeout, a 409 (a request still in flight
 * with the same idempotency key), a 429 or a 5xx, after its backoff (0.5 s at most here). Every POST carries an
 * idempotency key (ours, or the SDK's for the retry), so a retry never charges, refunds or creates twice.
 */
export const STRIPE_RETRIES = 1;
/**
 * The longest one Stripe call keeps a visitor waiting when Stripe hangs: two attempts and the backoff between them.
 * The visitor then gets the spec's 'Payment system is temporarily unavailable' answer.
 */
export const STRIPE_DEADLINE_MS = (STRIPE_RETRIES + 1) * STRIPE_ATTEMPT_MS + 1_000;

export function createStripeGateway(opts: StripeGatewayOptions): PaymentGateway {
  const stripe = new Stripe(opts.secretKey, {
    maxNetworkRetries: STRIPE_RETRIES,
    timeout: STRIPE_ATTEMPT_MS,
    appInfo: { name: "wrestling-brand-site" },
    ...(opts.api ?? {}),
  });

  let keyCheck: { at: number; result: Promise<KeyCheck> } | undefined;
  const keyMode = (key: string) => /^(?:sk|rk|pk)_(live|test)_/.exec(key)?.[1];
  async function checkKeysNow(): Promise<KeyCheck> {
    const secretMode = keyMode(opts.secretKey);
    if (secretMode && keyMode(opts.publishableKey) && secretMode !== keyMode(opts.publishableKey)) {
      return { ok: false, reason: "STRIPE_SECRET_KEY and STRIPE_PUBLISHABLE_KEY belong to different modes (live and test)" };
    }
    try {
      // One attempt: /readyz answers within STRIPE_ATTEMPT_MS and asks again on the next probe.
      await stripe.balance.retrieve({}, { maxNetworkRetries: 0 });
      return { ok: true };
    } catch (err) {
      if (err instanceof Stripe.errors.StripeAuthenticationError) return { ok: false, reason: "Stripe refused STRIPE_SECRET_KEY" };
      if (err instanceof Stripe.errors.StripePermissionError) return { ok: false, reason: "STRIPE_SECRET_KEY may not read the account (a restricted key needs Balance: read)" };
      if (err instanceof Stripe.errors.StripeConnectionError) return { ok: false, reason: `Stripe did not answer within ${STRIPE_ATTEMPT_MS} ms` };
      return { ok: false, reason: `Stripe answered with an error: ${(err as Error).message.split("\n")[0]}` };
    }
  }

  return {
    mode: opts.mode,
    checkKeys() {
      const now = Date.now();
      if (!keyCheck || now - keyCheck.at >= KEY_CHECK_CACHE_MS) keyCheck = { at: now, result: checkKeysNow() };
      return keyCheck.result;
    },
    offline: opts.offline,
    publishableKey: opts.publishableKey,
    async createIntent(input) {
      const pi = await stripe.paymentIntents.create(
        {
          ...(input.saveCard ? { customer: input.saveCard.customerId, setup_future_usage: "off_session" as const } : input.customerId ? { customer: input.customerId } : {}),
          amount: input.amountCents,
          currency: input.currency,
          metadata: { kind: input.metadata.kind, reference: input.metadata.reference },
          description: input.description,
          receipt_email: input.receiptEmail,
          allowed_payment_method_types: ["card"],
        },
        { idempotencyKey: input.idempotencyKey },
      );
      return snapshot(pi);
    },
    async retrieveIntent(id) {
      return snapshot(await stripe.paymentIntents.retrieve(id));
    },
    async updateIntentAmount(id, amountCents) {
      return snapshot(await stripe.paymentIntents.update(id, { amount: amountCents }));
    },
    async updateIntentDetails(id, details) {
      return snapshot(await stripe.paymentIntents.update(id, { description: details.description, ...(details.receiptEmail ? { receipt_email: details.receiptEmail } : {}) }));
    },
    async cancelIntent(id) {
      return snapshot(await stripe.paymentIntents.cancel(id));
    },
    async refundIntent(id, input) {
      // Stripe's own `reason` takes three fixed values; ours (free text) travels in the metadata.
      const metadata: Record<string, string> = { reason: input.reason.slice(0, 500) };
      if (input.refundRequestId !== undefined) metadata.refund_request = String(input.refundRequestId);
      const refund = await stripe.refunds.create({ payment_intent: id, ...(input.amountCents !== undefined ? { amount: input.amountCents } : {}), metadata }, { idempotencyKey: input.idempotencyKey });
      return refundSnapshot(refund);
    },
    async listRefunds(intentId) {
      const page = await stripe.refunds.list({ payment_intent: intentId, limit: 100 });
      return page.data.map(refundSnapshot);
    },
    async createCustomer(input) {
      const customer = await stripe.customers.create({ email: input.email, name: input.name, metadata: { reference: input.reference } }, { idempotencyKey: input.idempotencyKey });
      return { id: customer.id };
    },
    async updateIntentSaveCard(id, saveCard) {
      // An empty string unsets setup_future_usage (https://docs.stripe.com/api/payment_intents/update); the customer stays.
      const params: Stripe.PaymentIntentUpdateParams = saveCard ? { customer: saveCard.customerId, setup_future_usage: "off_session" } : { setup_future_usage: "" };
      return snapshot(await stripe.paymentIntents.update(id, params));
    },
    async updateIntentCustomer(id, customerId) {
      return snapshot(await stripe.paymentIntents.update(id, { customer: customerId }));
    },
    async chargeOffSession(input) {
      try {
        const pi = await stripe.paymentIntents.create(
          {
            amount: input.amountCents,
            currency: input.currency,
            customer: input.customerId,
            payment_method: input.paymentMethodId,
            off_session: true,
            confirm: true,
            metadata: input.metadata,
            description: input.description,
            allowed_payment_method_types: ["card"],
          },
          { idempotencyKey: input.idempotencyKey },
        );
        return { intent: snapshot(pi), failure: null };
      } catch (err) {
        const failed = cardFailure(err);
        if (failed) return failed;
        throw err;
      }
    },
    async confirmOffSession(intentId, input) {
      try {
        const pi = await stripe.paymentIntents.confirm(intentId, { payment_method: input.paymentMethodId, off_session: true }, { idempotencyKey: input.idempotencyKey });
        return { intent: snapshot(pi), failure: null };
      } catch (err) {
        const failed = cardFailure(err);
        if (failed) return failed;
        throw err;
      }
    },
    async createSetupIntent(input) {
      const si = await stripe.setupIntents.create({ customer: input.customerId, usage: "off_session", allowed_payment_method_types: ["card"], metadata: input.metadata ?? {} }, { idempotencyKey: input.idempotencyKey });
      return setupSnapshot(si);
    },
    async listCustomerIntents(customerId) {
      const page = await stripe.paymentIntents.list({ customer: customerId, limit: 100 });
      return page.data.map(snapshot);
    },
    async retrieveSetupIntent(id) {
      return setupSnapshot(await stripe.setupIntents.retrieve(id));
    },
    async retrievePaymentMethod(id) {
      return paymentMethodSnapshot(await stripe.paymentMethods.retrieve(id));
    },
    verifyWebhook(rawBody, signature) {
      if (!signature) throw new WebhookSignatureError("No Stripe-Signature header");
      try {
        return stripe.webhooks.constructEvent(rawBody, signature, opts.webhookSecret);
      } catch (err) {
        throw new WebhookSignatureError((err as Error).message);
      }
    },
  };
}
