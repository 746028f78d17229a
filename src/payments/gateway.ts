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
  };
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
