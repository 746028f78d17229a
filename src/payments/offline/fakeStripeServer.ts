import http from "node:http";
import type { AddressInfo } from "node:net";
import { createHash, createHmac, randomBytes } from "node:crypto";
import type { Logger } from "../../logger.ts";
import { authenticationOf, cardBrand, digitsOnly, setupOutcome, testCardOutcome, testPaymentMethodCard, type CardDecline } from "./testCards.ts";
import { readState, writeState, type SavedState } from "./fakeState.ts";
import type { FakeCharge, FakeCustomer, FakeEvent, FakePaymentIntent, FakePaymentMethod, FakeRefund, FakeSetupIntent } from "./fakeObjects.ts";
import { toText } from "../../shared/toText.ts";
import { now as appNow } from "../../clock.ts";

/**
 * Offline test mode: an in-process stand-in for the few Stripe API calls this site makes, on loopback,
 * spoken to by the real stripe SDK (`new Stripe(key, { host, port, protocol: "http" })`) and by the fake
 * Stripe.js (confirm). Like Stripe, it signs and delivers payment_intent.* and charge.refunded events to the webhook URL.
 */

type Json = Record<string, unknown>;

/**
 * How the fake's next refunds go (a test switch beside Stripe's own refund test cards, which win):
 * `immediate` succeeds at once (every other card in Stripe's test mode); `pending_then_succeeded` is Stripe's
 * 4000 0000 0000 7726; `succeeded_then_failed` is 4000 0000 0000 5126; `pending_then_failed` is a refund the
 * card's bank refuses (https://docs.stripe.com/refunds#failed-refunds).
 */
export type RefundBehaviour = "immediate" | "pending_then_succeeded" | "succeeded_then_failed" | "pending_then_failed";

export interface Delivery {
  eventId: string;
  type: string;
  status: number | null;
  error?: string;
}

export interface FakeStripe {
  host: string;
  port: number;
  secretKey: string;
  publishableKey: string;
  webhookSecret: string;
  intents: Map<string, FakePaymentIntent>;
  refunds: Map<string, FakeRefund>;
  customers: Map<string, FakeCustomer>;
  paymentMethods: Map<string, FakePaymentMethod>;
  setupIntents: Map<string, FakeSetupIntent>;
  events: FakeEvent[];
  deliveries: Delivery[];
  /** Where events go; until it is set, events are only recorded. */
  setWebhookUrl(url: string | undefined): void;
  /** Several webhook URLs, each event sent to the next in turn (its retries too). */
  setWebhookUrls(urls: string[]): void;
  /** false: events are recorded but not sent (tests deliver them by hand, in any order, any number of times). */
  autoDeliver: boolean;
  /** Sends one event now, signed (or with a given Stripe-Signature header); resolves with the HTTP status. */
  deliver(event: FakeEvent, signature?: string): Promise<number>;
  sign(payload: string, timestamp?: number): string;
  /** Resolves when every delivery under way (with its retries) has finished. */
  idle(): Promise<void>;
  /**
   * Confirms an intent as Stripe.js would (for tests that drive the server without a browser): a typed card (its
   * expiry 12/2034 unless given), or a saved payment method on session.
   */
  confirm(intentId: string, card: { number: string; expMonth?: number; expYear?: number } | { paymentMethod: string }): { status: number; body: Json };
  /** Confirms a SetupIntent with a typed card as Stripe.js's confirmCardSetup would. */
  confirmSetup(setupIntentId: string, card: { number: string; expMonth?: number; expYear?: number }): { status: number; body: Json };
  /** The test switch for refunds of cards that are not Stripe's refund test cards. */
  refundBehaviour: RefundBehaviour;
  /** A refund that changes later does so after this long; null: only when settleRefunds() is called. */
  refundSettleMs: number | null;
  /** Moves every refund waiting for its later status on now (refund.updated / refund.failed). */
  settleRefunds(): void;
  /**
   * A test switch: confirmations of cards that succeed answer `processing` instead, and the payment settles later
   * (payment_intent.succeeded, or payment_failed when `processingOutcome` is "failed") after `processingSettleMs`
   * (null: only when settleProcessing() is called). https://docs.stripe.com/payments/paymentintents/lifecycle
   */
  confirmProcessing: boolean;
  processingOutcome: "succeeded" | "failed";
  processingSettleMs: number | null;
  settleProcessing(): void;
  /** The 3-D Secure challenge's answer, as the fake Stripe.js posts it (tests call it directly): a PaymentIntent or a SetupIntent (seti_). */
  challenge(intentId: string, outcome: "complete" | "fail"): { status: number; body: Json };
  /** Stripe's webhook retry schedule is multiplied by this (1 in development, compressed in tests). */
  webhookRetryScale: number;
  /** How long each API request takes (the idempotency key is "in flight" meanwhile: a second request with it gets 409). */
  latencyMs: number;
  /**
   * Idempotency keys are forgotten after this long (Stripe: at least 24 hours), in real time: a demo's moved clock
   * (src/clock.ts) is the business's time, not Stripe's key store.
   */
  idempotencyTtlMs: number;
  close(): Promise<void>;
}

const API_VERSION = "2026-10-28.endive";
/**
 * Stripe retries an undelivered event for up to three days with an exponential back-off
 * (https://docs.stripe.com/webhooks#retries): here after 1 min, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h, 24 h and
 * 24 h (about 3 days), multiplied by `webhookRetryScale`.
 */
export const WEBHOOK_RETRY_SCHEDULE_MS = [60_000, 5 * 60_000, 30 * 60_000, 2 * 3_600_000, 5 * 3_600_000, 10 * 3_600_000, 10 * 3_600_000, 24 * 3_600_000, 24 * 3_600_000];
/** Tests: the whole three days in about 15 s (the first retry after a few milliseconds). */
export const TEST_WEBHOOK_RETRY_SCALE = 1 / 18_000;

/** Stripe's test cards whose refunds change after they are made (https://docs.stripe.com/testing#refunds). */
const REFUND_TEST_CARDS: Record<string, RefundBehaviour> = {
  "4000000000007726": "pending_then_succeeded",
  "4000000000005126": "succeeded_then_failed",
};

/**
 * Stripe's card error for an off-session payment the bank wants authenticated
 * (https://docs.stripe.com/payments/save-and-reuse#charge-saved-payment-method): 402, the PaymentIntent left
 * requires_payment_method; the customer is brought back to confirm it on session.
 */
const AUTHENTICATION_REQUIRED: CardDecline = { code: "authentication_required", declineCode: "authentication_required", message: "Your card was declined. This transaction requires authentication." };
const EXPIRED: CardDecline = { code: "expired_card", message: "Your card has expired." };

/** https://docs.stripe.com/api/payment_intents/update (amount). */
const AMOUNT_UPDATABLE = new Set<FakePaymentIntent["status"]>(["requires_payment_method", "requires_confirmation", "requires_action"]);

/** A request's idempotency key: what it was first used for, and Stripe's saved answer once the request ran. */
type IdempotencyEntry = { hash: string; at: number; endpoint?: string; response?: { status: number; body: Json } };

const randomId = (prefix: string, n = 24) => `${prefix}_${randomBytes(n).toString("base64url").replace(/[-_]/g, "").slice(0, n)}`;

class ApiFailure extends Error {
  constructor(
    readonly status: number,
    readonly error: Json,
  ) {
    super(String(error.message));
  }
}

/** Stripe's error objects link the code's page (https://docs.stripe.com/api/errors: type, code, message, param, doc_url). */
const docUrl = (code: string) => `https://stripe.com/docs/error-codes/${code.replace(/_/g, "-")}`;
const invalid = (message: string, extra: Json = {}) =>
  new ApiFailure(400, { type: "invalid_request_error", message, ...(typeof extra.code === "string" ? { doc_url: docUrl(extra.code) } : {}), ...extra });

/** Keys that would reach Object.prototype (or a constructor) if they were written as plain properties. */
const FORBIDDEN_KEYS = new Set(["__proto__", "constructor", "prototype"]);

/**
 * Parses Stripe's form encoding (`metadata[kind]=order`, `payment_method_types[0]=card`) into nested objects.
 * Every key is checked before anything is written, and every object has a null prototype, so no parameter
 * can reach Object.prototype; a forbidden key refuses the whole request.
 */
export function parseStripeForm(body: string): Json {
  const entries = [...new URLSearchParams(body)].map(([rawKey, value]) => ({
    parts: rawKey.split(/\[|\]\[|\]/).filter((p, i) => p !== "" || i === 0),
    value,
  }));
  for (const { parts } of entries) {
    const bad = parts.find((p) => FORBIDDEN_KEYS.has(p));
    if (bad !== undefined) throw invalid(`Invalid parameter name: ${bad}`, { param: bad });
  }
  const out: Json = Object.create(null) as Json;
  for (const { parts, value } of entries) {
    let node = out;
    parts.forEach((part, i) => {
      if (i === parts.length - 1) {
        node[part] = value;
        return;
      }
      const child = Object.hasOwn(node, part) ? node[part] : undefined;
      if (child !== null && typeof child === "object") node = child as Json;
      else node = node[part] = Object.create(null) as Json;
    });
  }
  return out;
}

const listOf = (v: unknown): string[] => (v && typeof v === "object" ? Object.values(v as Json).map(String) : typeof v === "string" ? [v] : []);

export interface FakeStripeOptions {
  logger?: Logger;
  /** The fake's business time (created, card expiry, idempotency keys' 24 h): the app's clock unless given. */
  clock?: () => Date;
  webhookSecret?: string;
  /** The standalone fake (`npm run stripe:fake`) takes the keys it is given, so the app's configuration can name them. */
  secretKey?: string;
  publishableKey?: string;
  /** Where it listens (default: a free port on 127.0.0.1). */
  port?: number;
  /** Development: the fake's state is kept in this file (under var/), so it survives a restart of the app. */
  stateFile?: string;
  /** Stripe's webhook retry schedule times this (1: real time; default: TEST_WEBHOOK_RETRY_SCALE). */
  webhookRetryScale?: number;
}

export async function startFakeStripe(opts: FakeStripeOptions = {}): Promise<FakeStripe> {
  const saved = readState(opts.stateFile, opts.logger);
  const secretKey = saved?.secretKey ?? opts.secretKey ?? `sk_test_offline_${randomBytes(12).toString("hex")}`;
  const publishableKey = saved?.publishableKey ?? opts.publishableKey ?? `pk_test_offline_${randomBytes(12).toString("hex")}`;
  const webhookSecret = saved?.webhookSecret ?? opts.webhookSecret ?? `whsec_offline_${randomBytes(16).toString("hex")}`;
  const intents = new Map<string, FakePaymentIntent>();
  const refunds = new Map<string, FakeRefund>();
  const customers = new Map<string, FakeCustomer>();
  const paymentMethods = new Map<string, FakePaymentMethod>();
  const setupIntents = new Map<string, FakeSetupIntent>();
  /** The card number behind each payment method (Stripe keeps it; the API never shows it). */
  const pmCards = new Map<string, string>();
  /** Payment methods set up for off-session use (a SetupIntent, or a payment with setup_future_usage). */
  const setUpOffSession = new Set<string>();
  /**
   * The fake's "now", moved with the app's clock (src/clock.ts): objects' `created`, card expiry. Webhook signatures
   * (the SDK checks them against the real time) and idempotency keys' 24 h keep the real time.
   */
  const clockNow = () => (opts.clock ?? appNow)().getTime();
  const nowSeconds = () => Math.floor(clockNow() / 1000);
  /** Idempotency keys: the first response, or the request still running with it. */
  const idempotency = new Map<string, IdempotencyEntry>();
  const events: FakeEvent[] = [];
  const deliveries: Delivery[] = [];
  /** The card each intent was paid with (digits), for the refund test cards. */
  const cardOf = new Map<string, string>();
  /** Intents in `processing`, settled later. */
  const laterPayments = new Map<string, NodeJS.Timeout | undefined>();
  /** Refunds whose status changes later, with where they go. */
  const laterRefunds = new Map<string, { to: "succeeded" | "failed"; timer?: NodeJS.Timeout }>();
  const inFlight = new Set<Promise<unknown>>();
  /** Where events go: one URL, or several taking turns (a load balancer in front of several instances). */
  let webhookUrls: string[] = [];
  let nextUrl = 0;
  let closed = false;

  function sign(payload: string, timestamp = Math.floor(Date.now() / 1000)): string {
    const v1 = createHmac("sha256", webhookSecret).update(`${timestamp}.${payload}`).digest("hex");
    return `t=${timestamp},v1=${v1}`;
  }

  async function deliver(event: FakeEvent, signature?: string): Promise<number> {
    if (webhookUrls.length === 0) throw new Error("fake Stripe has no webhook URL");
    const webhookUrl = webhookUrls[nextUrl++ % webhookUrls.length]!;
    const payload = JSON.stringify(event, null, 2);
    const res = await fetch(webhookUrl, {
      method: "POST",
      headers: { "content-type": "application/json; charset=utf-8", "stripe-signature": signature ?? sign(payload), "user-agent": "Stripe/1.0 (+https://stripe.com/docs/webhooks)" },
      body: payload,
      signal: AbortSignal.timeout(10_000),
    });
    await res.arrayBuffer();
    deliveries.push({ eventId: event.id, type: event.type, status: res.status });
    return res.status;
  }

  /** Events not delivered yet (the next attempt and when), kept in the state file. */
  const pending = new Map<string, { event: FakeEvent; attempt: number; dueAt: number }>();
  /** Undelivered events from the state file, sent once the app gives its webhook URL. */
  const resumable = [...(saved?.pending ?? [])];

  /** Stripe retries a webhook that did not get a 2xx on its schedule (WEBHOOK_RETRY_SCHEDULE_MS, scaled). */
  async function deliverWithRetries(event: FakeEvent, firstAttempt = 0, firstDelayMs = 0): Promise<void> {
    let delay = firstDelayMs;
    for (let attempt = firstAttempt; !closed; attempt++) {
      pending.set(event.id, { event, attempt, dueAt: Date.now() + delay });
      save();
      if (delay > 0) await new Promise((r) => setTimeout(r, delay).unref());
      if (closed) return;
      try {
        const status = await deliver(event);
        if (status >= 200 && status < 300) {
          pending.delete(event.id);
          save();
          return;
        }
      } catch (err) {
        deliveries.push({ eventId: event.id, type: event.type, status: null, error: (err as Error).message });
      }
      const next = WEBHOOK_RETRY_SCHEDULE_MS[attempt];
      if (next === undefined) break;
      delay = Math.round(next * fake.webhookRetryScale);
    }
    if (closed) return;
    pending.delete(event.id);
    save();
    opts.logger?.warn({ eventId: event.id }, "fake Stripe gave up delivering a webhook");
  }

  /** Development: everything a restart must not forget, written after each change (small, and only on this machine). */
  function save(): void {
    if (!opts.stateFile || closed) return;
    const state: SavedState = {
      version: 1,
      secretKey,
      publishableKey,
      webhookSecret,
      intents: [...intents.values()],
      refunds: [...refunds.values()],
      cardOf: [...cardOf],
      idempotency: [...idempotency].filter(([, v]) => v.response && Date.now() - v.at < fake.idempotencyTtlMs),
      customers: [...customers.values()],
      paymentMethods: [...paymentMethods.values()],
      setupIntents: [...setupIntents.values()],
      pmCards: [...pmCards],
      setUpOffSession: [...setUpOffSession],
      pending: [...pending.values()],
      laterPayments: [...laterPayments.keys()],
      laterRefunds: [...laterRefunds].map(([id, later]) => [id, later.to]),
    };
    writeState(opts.stateFile, state);
  }

  const fake: FakeStripe = {
    host: "127.0.0.1",
    port: 0,
    secretKey,
    publishableKey,
    webhookSecret,
    intents,
    refunds,
    customers,
    paymentMethods,
    setupIntents,
    events,
    deliveries,
    autoDeliver: true,
    setWebhookUrl: (url) => fake.setWebhookUrls(url ? [url] : []),
    setWebhookUrls: (urls) => {
      webhookUrls = [...urls];
      const url = urls[0];
      // Events a restart interrupted go out again on their schedule, as Stripe's retries would reach the new process.
      if (!url) return;
      for (const { event, attempt, dueAt } of [...resumable]) {
        // Due when it was due, or sooner when this process runs a faster schedule.
        const scheduled = attempt > 0 ? WEBHOOK_RETRY_SCHEDULE_MS[attempt - 1]! * fake.webhookRetryScale : 0;
        track(deliverWithRetries(event, attempt, Math.max(0, Math.min(dueAt - Date.now(), scheduled))));
      }
      resumable.length = 0;
    },
    deliver,
    sign,
    async idle() {
      while (inFlight.size > 0) await Promise.allSettled([...inFlight]);
    },
    refundBehaviour: "immediate",
    refundSettleMs: 2_000,
    confirmProcessing: false,
    processingOutcome: "succeeded",
    processingSettleMs: 3_000,
    settleProcessing() {
      for (const id of [...laterPayments.keys()]) settleProcessing(id);
    },
    challenge: (intentId, outcome) => {
      try {
        return { status: 200, body: (intentId.startsWith("seti_") ? answerSetupChallenge(intentId, outcome) : answerChallenge(intentId, outcome)) as unknown as Json };
      } catch (err) {
        if (err instanceof ApiFailure) return { status: err.status, body: { error: err.error } };
        throw err;
      }
    },
    latencyMs: 0,
    idempotencyTtlMs: 24 * 60 * 60_000,
    webhookRetryScale: opts.webhookRetryScale ?? TEST_WEBHOOK_RETRY_SCALE,
    settleRefunds() {
      for (const id of [...laterRefunds.keys()]) settleRefund(id);
    },
    confirm: (intentId, card) => {
      const params: Json = "paymentMethod" in card ? { payment_method: card.paymentMethod } : { payment_method_data: typedCard(card) };
      return asAnswer(() => confirmIntent(intentId, params));
    },
    confirmSetup: (setupIntentId, card) => asAnswer(() => confirmSetupIntent(setupIntentId, { payment_method_data: typedCard(card) })),
    close: async () => {
      closed = true;
      for (const later of laterRefunds.values()) clearTimeout(later.timer);
      for (const timer of laterPayments.values()) clearTimeout(timer);
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };

  function asAnswer(work: () => object): { status: number; body: Json } {
    try {
      return { status: 200, body: structuredClone(work()) as Json };
    } catch (err) {
      if (err instanceof ApiFailure) return { status: err.status, body: { error: err.error } };
      throw err;
    }
  }

  const typedCard = (card: { number: string; expMonth?: number; expYear?: number }): Json => ({
    type: "card",
    card: { number: card.number, exp_month: String(card.expMonth ?? 12), exp_year: String(card.expYear ?? 2034), cvc: "123" },
  });

  function emit(type: string, object: FakePaymentIntent | FakeCharge | FakeRefund | FakeSetupIntent): void {
    const event: FakeEvent = {
      id: randomId("evt"),
      object: "event",
      api_version: API_VERSION,
      created: nowSeconds(),
      type,
      livemode: false,
      pending_webhooks: 1,
      request: { id: randomId("req", 14), idempotency_key: null },
      data: { object: structuredClone(object) },
    };
    events.push(event);
    if (!fake.autoDeliver || webhookUrls.length === 0) return;
    track(deliverWithRetries(event));
  }

  function track(delivery: Promise<void>): void {
    const p = delivery.finally(() => inFlight.delete(p));
    inFlight.add(p);
  }

  function findIntent(id: string): FakePaymentIntent {
    const pi = intents.get(id);
    if (!pi) throw new ApiFailure(404, { type: "invalid_request_error", code: "resource_missing", param: "intent", message: `No such payment_intent: '${id}'` });
    return pi;
  }

  function createIntent(p: Json): FakePaymentIntent {
    const amount = Number(p.amount);
    if (!Number.isInteger(amount)) throw invalid("Missing required param: amount.", { param: "amount" });
    if (typeof p.currency !== "string") throw invalid("Missing required param: currency.", { param: "currency" });
    if (amount < 50) throw invalid("Amount must be at least $0.50 usd", { code: "amount_too_small", param: "amount" });
    const customer = typeof p.customer === "string" ? findCustomer(p.customer).id : null;
    const setupFutureUsage = p.setup_future_usage === "off_session" || p.setup_future_usage === "on_session" ? p.setup_future_usage : null;
    if (setupFutureUsage && !customer) throw invalid("You must provide a customer when setup_future_usage is set (or attach the payment method to a customer later).", { param: "customer" });
    const id = randomId("pi");
    const pi: FakePaymentIntent = {
      id,
      object: "payment_intent",
      amount,
      amount_received: 0,
      currency: p.currency.toLowerCase(),
      status: "requires_payment_method",
      client_secret: `${id}_secret_${randomBytes(12).toString("hex")}`,
      customer,
      setup_future_usage: setupFutureUsage,
      metadata: Object.fromEntries(Object.entries((p.metadata as Json) ?? {}).map(([k, v]) => [k, String(v)])),
      description: typeof p.description === "string" ? p.description : null,
      receipt_email: typeof p.receipt_email === "string" ? p.receipt_email : null,
      payment_method_types: listOf(p.allowed_payment_method_types ?? p.payment_method_types).length ? listOf(p.allowed_payment_method_types ?? p.payment_method_types) : ["card"],
      payment_method: null,
      latest_charge: null,
      last_payment_error: null,
      next_action: null,
      canceled_at: null,
      created: nowSeconds(),
      livemode: false,
    };
    intents.set(id, pi);
    // confirm=true: created and confirmed in one call (a card error is still a 402 with this intent in it).
    if (p.confirm === "true") return confirmIntent(id, p);
    return pi;
  }

  /**
   * https://docs.stripe.com/api/payment_intents/update: the amount can change only while the intent waits for a
   * payment method, a confirmation or an action; otherwise payment_intent_unexpected_state (and nothing changes).
   */
  function updateIntent(id: string, p: Json): FakePaymentIntent {
    const pi = findIntent(id);
    if (p.amount !== undefined && !AMOUNT_UPDATABLE.has(pi.status)) {
      throw invalid(`This PaymentIntent's amount could not be updated because it has a status of ${pi.status}. You may only update the amount of a PaymentIntent with one of the following statuses: requires_payment_method, requires_confirmation, requires_action.`, {
        code: "payment_intent_unexpected_state",
        param: "amount",
        payment_intent: structuredClone(pi),
      });
    }
    if (pi.status === "succeeded" || pi.status === "canceled") {
      throw invalid(`This PaymentIntent could not be updated because it has a status of ${pi.status}.`, { code: "payment_intent_unexpected_state", payment_intent: structuredClone(pi) });
    }
    if (typeof p.receipt_email === "string") pi.receipt_email = p.receipt_email;
    if (typeof p.customer === "string") pi.customer = findCustomer(p.customer).id;
    if (p.setup_future_usage === "") pi.setup_future_usage = null;
    else if (p.setup_future_usage === "off_session" || p.setup_future_usage === "on_session") {
      if (!pi.customer) throw invalid("You must provide a customer when setup_future_usage is set.", { param: "customer" });
      pi.setup_future_usage = p.setup_future_usage;
    }
    if (p.amount !== undefined) {
      const amount = Number(p.amount);
      if (!Number.isInteger(amount) || amount < 50) throw invalid("Amount must be at least $0.50 usd", { code: "amount_too_small", param: "amount" });
      pi.amount = amount;
    }
    if (p.metadata && typeof p.metadata === "object") {
      for (const [k, v] of Object.entries(p.metadata as Json)) pi.metadata[k] = String(v);
    }
    if (typeof p.description === "string") pi.description = p.description;
    return pi;
  }

  function cancelIntent(id: string): FakePaymentIntent {
    const pi = findIntent(id);
    if (pi.status === "succeeded") {
      throw invalid("You cannot cancel this PaymentIntent because it has a status of succeeded.", { code: "payment_intent_unexpected_state" });
    }
    pi.status = "canceled";
    pi.canceled_at = nowSeconds();
    emit("payment_intent.canceled", pi);
    return pi;
  }

  function findCustomer(id: string): FakeCustomer {
    const customer = customers.get(id);
    if (!customer) throw new ApiFailure(404, { type: "invalid_request_error", code: "resource_missing", param: "customer", message: `No such customer: '${id}'` });
    return customer;
  }

  function findPaymentMethod(id: string, param = "payment_method"): FakePaymentMethod {
    const pm = paymentMethods.get(id);
    if (!pm) throw new ApiFailure(404, { type: "invalid_request_error", code: "resource_missing", param, message: `No such PaymentMethod: '${id}'` });
    return pm;
  }

  function createCustomer(p: Json): FakeCustomer {
    const customer: FakeCustomer = {
      id: randomId("cus", 14),
      object: "customer",
      email: typeof p.email === "string" ? p.email : null,
      name: typeof p.name === "string" ? p.name : null,
      metadata: Object.fromEntries(Object.entries((p.metadata as Json) ?? {}).map(([k, v]) => [k, String(v)])),
      created: nowSeconds(),
      livemode: false,
    };
    customers.set(customer.id, customer);
    return customer;
  }

  /** A PaymentMethod for a typed card (Stripe.js's payment_method_data), not attached to anyone yet. */
  function paymentMethodFor(card: Json): FakePaymentMethod {
    const number = digitsOnly(toText(card.number ?? ""));
    const pm: FakePaymentMethod = {
      id: randomId("pm"),
      object: "payment_method",
      type: "card",
      card: { brand: cardBrand(number), last4: number.slice(-4), exp_month: Number(card.exp_month ?? 12), exp_year: Number(card.exp_year ?? 2034), country: "US", funding: "credit" },
      customer: null,
      created: nowSeconds(),
      livemode: false,
    };
    paymentMethods.set(pm.id, pm);
    pmCards.set(pm.id, number);
    return pm;
  }

  /**
   * POST /v1/payment_methods/{id}/attach. Stripe's test payment methods (pm_card_visa, pm_card_authenticationRequired,
   * pm_card_chargeCustomerFail, pm_card_chargeDeclinedInsufficientFunds; https://docs.stripe.com/testing) attach a
   * new copy of their card, as in Stripe's test mode.
   */
  function attachPaymentMethod(id: string, p: Json): FakePaymentMethod {
    if (typeof p.customer !== "string") throw invalid("Missing required param: customer.", { param: "customer" });
    const customer = findCustomer(p.customer);
    const testCard = testPaymentMethodCard(id);
    const pm = testCard ? paymentMethodFor({ number: testCard, exp_month: 12, exp_year: 2034 }) : findPaymentMethod(id);
    if (pm.customer && pm.customer !== customer.id) throw invalid("The payment method you provided has already been attached to a customer.", { code: "payment_method_unexpected_state" });
    pm.customer = customer.id;
    return pm;
  }

  /** The card's expiry has passed by the fake's clock (moved with the app's): Stripe declines it expired_card. */
  function expired(pm: FakePaymentMethod): boolean {
    const at = new Date(clockNow());
    return pm.card.exp_year < at.getUTCFullYear() || (pm.card.exp_year === at.getUTCFullYear() && pm.card.exp_month < at.getUTCMonth() + 1);
  }

  /** A card error: the intent goes back to requires_payment_method with it, payment_failed, and the 402 carries the intent. */
  function decline(pi: FakePaymentIntent, pm: FakePaymentMethod, d: CardDecline): never {
    pi.status = "requires_payment_method";
    pi.next_action = null;
    pi.payment_method = null;
    pi.last_payment_error = { type: "card_error", code: d.code, decline_code: d.declineCode, message: d.message, doc_url: docUrl(d.code), payment_method: structuredClone(pm) };
    emit("payment_intent.payment_failed", pi);
    throw new ApiFailure(402, { ...pi.last_payment_error, payment_intent: structuredClone(pi) });
  }

  /**
   * Confirms with a typed card (payment_method_data: Stripe.js on session) or a saved payment method (payment_method;
   * off_session=true for a charge without the customer). Stripe's test cards decide
   * (https://docs.stripe.com/testing#authentication-and-setup): 4000 0027 6000 3184 asks for 3-D Secure on every
   * payment, so on session it needs the challenge and off session it fails authentication_required;
   * 4000 0025 0000 3155 only until it was set up for off-session use; 4000 0000 0000 0341 attaches but every charge is
   * declined. A payment with setup_future_usage attaches its card to the intent's customer once it succeeds.
   */
  function confirmIntent(id: string, p: Json): FakePaymentIntent {
    const pi = findIntent(id);
    if (pi.status === "succeeded" || pi.status === "canceled" || pi.status === "processing") {
      throw invalid(`You cannot confirm this PaymentIntent because it has a status of ${pi.status}.`, { code: "payment_intent_unexpected_state", payment_intent: pi });
    }
    const offSession = p.off_session === "true";
    let pm: FakePaymentMethod;
    if (typeof p.payment_method === "string") {
      pm = findPaymentMethod(p.payment_method);
      if (pm.customer && pm.customer !== pi.customer) {
        throw invalid("The provided PaymentMethod belongs to another Customer; give the PaymentIntent that customer.", { code: "payment_method_unexpected_state", param: "payment_method" });
      }
    } else {
      const card = ((p.payment_method_data as Json | undefined)?.card ?? {}) as Json;
      if (!toText(card.number ?? "")) throw invalid("You must provide a card or payment method to confirm this PaymentIntent.", { param: "payment_method_data" });
      pm = paymentMethodFor(card);
    }
    if (offSession && !pm.customer) throw invalid("A PaymentMethod must be attached to a customer to be used off_session.", { code: "payment_method_unexpected_state", param: "payment_method" });
    const number = pmCards.get(pm.id) ?? "";
    const refusal = testCardOutcome(number) ?? (expired(pm) ? EXPIRED : null);
    if (refusal) decline(pi, pm, refusal);
    const authentication = authenticationOf(number);
    const needsAuthentication = authentication === "always" || (authentication === "unless_set_up" && !setUpOffSession.has(pm.id));
    cardOf.set(pi.id, number);
    if (needsAuthentication && offSession) decline(pi, pm, AUTHENTICATION_REQUIRED);
    pi.payment_method = pm.id;
    pi.last_payment_error = null;
    if (needsAuthentication) {
      // The card asks for 3-D Secure; Stripe.js shows it.
      pi.status = "requires_action";
      pi.next_action = { type: "use_stripe_sdk", use_stripe_sdk: { type: "three_d_secure_redirect", stripe_js: `/__offline-stripe/challenge/${pi.id}` } };
      emit("payment_intent.requires_action", pi);
      return pi;
    }
    if (fake.confirmProcessing) {
      pi.status = "processing";
      emit("payment_intent.processing", pi);
      laterPayments.set(pi.id, fake.processingSettleMs === null ? undefined : setTimeout(() => settleProcessing(pi.id), fake.processingSettleMs).unref());
      return pi;
    }
    return succeed(pi);
  }

  /** The card of a payment that saves it (setup_future_usage) is attached to the customer, set up for later charges. */
  function saveCardOf(pi: FakePaymentIntent): void {
    if (!pi.setup_future_usage || !pi.customer || !pi.payment_method) return;
    const pm = paymentMethods.get(pi.payment_method);
    if (!pm) return;
    pm.customer = pi.customer;
    if (pi.setup_future_usage === "off_session") setUpOffSession.add(pm.id);
  }

  function createSetupIntent(p: Json): FakeSetupIntent {
    const customer = typeof p.customer === "string" ? findCustomer(p.customer).id : null;
    const id = randomId("seti");
    const si: FakeSetupIntent = {
      id,
      object: "setup_intent",
      status: "requires_payment_method",
      client_secret: `${id}_secret_${randomBytes(12).toString("hex")}`,
      customer,
      usage: p.usage === "on_session" ? "on_session" : "off_session",
      payment_method: null,
      payment_method_types: listOf(p.allowed_payment_method_types ?? p.payment_method_types).length ? listOf(p.allowed_payment_method_types ?? p.payment_method_types) : ["card"],
      last_setup_error: null,
      next_action: null,
      metadata: Object.fromEntries(Object.entries((p.metadata as Json) ?? {}).map(([k, v]) => [k, String(v)])),
      created: nowSeconds(),
      livemode: false,
    };
    setupIntents.set(id, si);
    return si;
  }

  function findSetupIntent(id: string): FakeSetupIntent {
    const si = setupIntents.get(id);
    if (!si) throw new ApiFailure(404, { type: "invalid_request_error", code: "resource_missing", param: "intent", message: `No such setupintent: '${id}'` });
    return si;
  }

  /**
   * https://docs.stripe.com/api/setup_intents/confirm with a typed card: a card that declines every attempt fails
   * (setup_intent.setup_failed, 402 with last_setup_error); 4000 0000 0000 0341 and 9995 attach (a zero-amount check
   * takes no money); a card that asks for 3-D Secure waits for the challenge (requires_action). Succeeded: the card
   * is attached to the customer and set up for off-session use.
   */
  function confirmSetupIntent(id: string, p: Json): FakeSetupIntent {
    const si = findSetupIntent(id);
    if (si.status === "succeeded" || si.status === "canceled") {
      throw invalid(`You cannot confirm this SetupIntent because it has a status of ${si.status}.`, { code: "setup_intent_unexpected_state", setup_intent: si });
    }
    const card = ((p.payment_method_data as Json | undefined)?.card ?? {}) as Json;
    if (!toText(card.number ?? "")) throw invalid("You must provide a card to confirm this SetupIntent.", { param: "payment_method_data" });
    const pm = paymentMethodFor(card);
    const refusal = setupOutcome(pmCards.get(pm.id)!) ?? (expired(pm) ? EXPIRED : null);
    if (refusal) {
      si.status = "requires_payment_method";
      si.payment_method = null;
      si.last_setup_error = { type: "card_error", code: refusal.code, decline_code: refusal.declineCode, message: refusal.message, doc_url: docUrl(refusal.code), payment_method: structuredClone(pm) };
      emit("setup_intent.setup_failed", si);
      throw new ApiFailure(402, { ...si.last_setup_error, setup_intent: structuredClone(si) });
    }
    si.payment_method = pm.id;
    si.last_setup_error = null;
    if (authenticationOf(pmCards.get(pm.id)!) !== "none") {
      si.status = "requires_action";
      si.next_action = { type: "use_stripe_sdk", use_stripe_sdk: { type: "three_d_secure_redirect", stripe_js: `/__offline-stripe/challenge/${si.id}` } };
      emit("setup_intent.requires_action", si);
      return si;
    }
    return setupSucceeded(si);
  }

  function setupSucceeded(si: FakeSetupIntent): FakeSetupIntent {
    const pm = paymentMethods.get(si.payment_method!)!;
    if (si.customer) pm.customer = si.customer;
    if (si.usage === "off_session") setUpOffSession.add(pm.id);
    si.status = "succeeded";
    si.next_action = null;
    emit("setup_intent.succeeded", si);
    return si;
  }

  function answerSetupChallenge(id: string, outcome: "complete" | "fail"): FakeSetupIntent {
    const si = findSetupIntent(id);
    if (si.status !== "requires_action") {
      throw invalid(`This SetupIntent has a status of ${si.status}; it is not waiting for authentication.`, { code: "setup_intent_unexpected_state", setup_intent: structuredClone(si) });
    }
    if (outcome === "complete") return setupSucceeded(si);
    const pm = paymentMethods.get(si.payment_method!);
    si.status = "requires_payment_method";
    si.next_action = null;
    si.payment_method = null;
    si.last_setup_error = {
      type: "invalid_request_error",
      code: "setup_intent_authentication_failure",
      message: "The latest attempt to set up the payment method has failed because authentication failed.",
      doc_url: docUrl("setup_intent_authentication_failure"),
      payment_method: pm ? structuredClone(pm) : null,
    };
    emit("setup_intent.setup_failed", si);
    return si;
  }

  function succeed(pi: FakePaymentIntent): FakePaymentIntent {
    saveCardOf(pi);
    pi.status = "succeeded";
    pi.amount_received = pi.amount;
    pi.latest_charge = randomId("ch");
    pi.last_payment_error = null;
    pi.next_action = null;
    emit("payment_intent.succeeded", pi);
    return pi;
  }

  /** The card could not be charged after all: back to requires_payment_method, with the error, and payment_failed. */
  function fail(pi: FakePaymentIntent, error: Json): FakePaymentIntent {
    pi.status = "requires_payment_method";
    pi.next_action = null;
    pi.last_payment_error = { ...error, payment_method: { id: pi.payment_method, type: "card" } };
    pi.payment_method = null;
    emit("payment_intent.payment_failed", pi);
    return pi;
  }

  /** A `processing` payment's outcome (https://docs.stripe.com/payments/paymentintents/lifecycle). */
  function settleProcessing(id: string): void {
    clearTimeout(laterPayments.get(id));
    laterPayments.delete(id);
    const pi = intents.get(id);
    if (!pi || pi.status !== "processing" || closed) return;
    if (fake.processingOutcome === "succeeded") succeed(pi);
    else fail(pi, { type: "card_error", code: "card_declined", decline_code: "generic_decline", message: "Your card was declined.", doc_url: docUrl("card_declined") });
    save();
  }

  /**
   * The 3-D Secure challenge's answer (https://docs.stripe.com/payments/3d-secure): completed, the payment goes
   * on (succeeded, or processing under the switch); failed, the intent goes back to requires_payment_method with
   * payment_intent_authentication_failure, and the customer may try another card.
   */
  function answerChallenge(id: string, outcome: "complete" | "fail"): FakePaymentIntent {
    const pi = findIntent(id);
    if (pi.status !== "requires_action") {
      throw invalid(`This PaymentIntent has a status of ${pi.status}; it is not waiting for authentication.`, { code: "payment_intent_unexpected_state", payment_intent: structuredClone(pi) });
    }
    if (outcome === "fail") {
      return fail(pi, {
        type: "invalid_request_error",
        code: "payment_intent_authentication_failure",
        message: "We are unable to authenticate your payment method. Please choose a different payment method and try again.",
        doc_url: docUrl("payment_intent_authentication_failure"),
      });
    }
    pi.next_action = null;
    if (fake.confirmProcessing) {
      pi.status = "processing";
      emit("payment_intent.processing", pi);
      laterPayments.set(pi.id, fake.processingSettleMs === null ? undefined : setTimeout(() => settleProcessing(pi.id), fake.processingSettleMs).unref());
      return pi;
    }
    return succeed(pi);
  }

  /** What has been refunded of an intent, or is being: failed and canceled refunds gave their money back. */
  const refundedOf = (intentId: string) =>
    [...refunds.values()].filter((r) => r.payment_intent === intentId && (r.status === "pending" || r.status === "succeeded")).reduce((sum, r) => sum + r.amount, 0);

  function chargeOf(pi: FakePaymentIntent): FakeCharge {
    const amountRefunded = refundedOf(pi.id);
    return {
      id: pi.latest_charge!,
      object: "charge",
      amount: pi.amount_received,
      amount_refunded: amountRefunded,
      currency: pi.currency,
      payment_intent: pi.id,
      refunded: amountRefunded >= pi.amount_received,
      status: "succeeded",
      metadata: { ...pi.metadata },
    };
  }

  /**
   * Like Stripe (https://docs.stripe.com/api/refunds/create): part or the whole remaining amount of a succeeded
   * PaymentIntent's charge; refund.created and charge.refunded follow. Stripe's refund test cards (and the
   * `refundBehaviour` switch) make it pending or failing later (https://docs.stripe.com/testing#refunds).
   */
  function createRefund(p: Json): FakeRefund {
    if (typeof p.payment_intent !== "string") throw invalid("Missing required param: payment_intent.", { param: "payment_intent" });
    const pi = findIntent(p.payment_intent);
    if (pi.status !== "succeeded" || !pi.latest_charge) {
      throw invalid(`This PaymentIntent (${pi.id}) does not have a successful charge to refund.`, { code: "charge_not_refundable" });
    }
    const refunded = refundedOf(pi.id);
    const amount = p.amount === undefined ? pi.amount_received - refunded : Number(p.amount);
    if (refunded >= pi.amount_received) throw invalid(`Charge ${pi.latest_charge} has already been refunded.`, { code: "charge_already_refunded" });
    if (!Number.isInteger(amount) || amount < 1 || amount > pi.amount_received - refunded) {
      throw invalid(`Refund amount ($${(amount / 100).toFixed(2)}) is greater than unrefunded amount on charge.`, { param: "amount" });
    }
    const reason = typeof p.reason === "string" ? p.reason : null;
    if (reason !== null && !["duplicate", "fraudulent", "requested_by_customer"].includes(reason)) throw invalid("Invalid reason.", { param: "reason" });
    const behaviour = REFUND_TEST_CARDS[cardOf.get(pi.id) ?? ""] ?? fake.refundBehaviour;
    const refund: FakeRefund = {
      id: randomId("re"),
      object: "refund",
      amount,
      charge: pi.latest_charge,
      payment_intent: pi.id,
      currency: pi.currency,
      status: behaviour === "pending_then_succeeded" || behaviour === "pending_then_failed" ? "pending" : "succeeded",
      failure_reason: null,
      reason,
      metadata: Object.fromEntries(Object.entries((p.metadata as Json) ?? {}).map(([k, v]) => [k, String(v)])),
      created: nowSeconds(),
    };
    refunds.set(refund.id, refund);
    emit("refund.created", refund);
    emit("charge.refunded", chargeOf(pi));
    if (behaviour !== "immediate") {
      const later: { to: "succeeded" | "failed"; timer?: NodeJS.Timeout } = { to: behaviour === "pending_then_succeeded" ? "succeeded" : "failed" };
      if (fake.refundSettleMs !== null) later.timer = setTimeout(() => settleRefund(refund.id), fake.refundSettleMs).unref();
      laterRefunds.set(refund.id, later);
    }
    return refund;
  }

  /** A refund's later status: refund.updated, and refund.failed when it failed (its money is back with the merchant). */
  function settleRefund(id: string): void {
    const later = laterRefunds.get(id);
    const refund = refunds.get(id);
    laterRefunds.delete(id);
    if (!later || !refund || closed) return;
    clearTimeout(later.timer);
    refund.status = later.to;
    if (later.to === "failed") refund.failure_reason = "expired_or_canceled_card";
    emit("refund.updated", refund);
    if (later.to === "failed") emit("refund.failed", refund);
    save();
  }

  /** GET /v1/refunds?payment_intent=...: newest first, like Stripe's lists. */
  function listRefunds(params: Json): Json {
    const intentId = typeof params.payment_intent === "string" ? params.payment_intent : undefined;
    const data = [...refunds.values()].filter((r) => intentId === undefined || r.payment_intent === intentId).reverse();
    return { object: "list", url: "/v1/refunds", has_more: false, data: structuredClone(data) };
  }

  /** Publishable-key calls (Stripe.js) must carry the intent's client secret; secret-key calls carry the key. */
  function authorize(req: http.IncomingMessage, params: Json, intentId?: string): void {
    const auth = req.headers.authorization ?? "";
    if (auth === `Bearer ${secretKey}`) return;
    if (intentId && params.key === publishableKey) {
      const secret = intentId.startsWith("seti_") ? findSetupIntent(intentId).client_secret : findIntent(intentId).client_secret;
      if (params.client_secret === secret) return;
    }
    throw new ApiFailure(401, { type: "invalid_request_error", message: "Invalid API Key provided" });
  }

  /** Customers, payment methods and SetupIntents (null: not one of theirs). */
  function routeSavedCards(req: http.IncomingMessage, path: string, params: Json): { status: number; body: Json } | null {
    const ok = (body: object) => ({ status: 200, body: structuredClone(body) as Json });
    let m = /^\/v1\/customers(?:\/([A-Za-z0-9_]+))?$/.exec(path);
    if (m) {
      authorize(req, params);
      if (!m[1] && req.method === "POST") return ok(createCustomer(params));
      if (m[1] && req.method === "GET") return ok(findCustomer(m[1]));
      return null;
    }
    m = /^\/v1\/payment_methods\/([A-Za-z0-9_]+)(\/attach)?$/.exec(path);
    if (m) {
      authorize(req, params);
      if (!m[2] && req.method === "GET") return ok(findPaymentMethod(m[1]!, "id"));
      if (m[2] && req.method === "POST") return ok(attachPaymentMethod(m[1]!, params));
      return null;
    }
    m = /^\/v1\/setup_intents(?:\/([A-Za-z0-9_]+))?(?:\/(confirm|challenge))?$/.exec(path);
    if (!m) return null;
    const [, id, action] = m;
    authorize(req, params, id);
    if (!id && req.method === "POST") return ok(createSetupIntent(params));
    if (id && req.method === "GET" && !action) return ok(findSetupIntent(id));
    if (id && req.method === "POST" && action === "confirm") return ok(confirmSetupIntent(id, params));
    if (id && req.method === "POST" && action === "challenge") {
      if (params.outcome !== "complete" && params.outcome !== "fail") throw invalid("outcome must be complete or fail.", { param: "outcome" });
      return ok(answerSetupChallenge(id, params.outcome));
    }
    return null;
  }

  function route(req: http.IncomingMessage, body: string): { status: number; body: Json } {
    const url = new URL(req.url ?? "/", "http://fake-stripe");
    const params = req.method === "GET" ? parseStripeForm(url.searchParams.toString()) : parseStripeForm(body);
    if (url.pathname === "/v1/balance" && req.method === "GET") {
      authorize(req, params);
      return { status: 200, body: { object: "balance", available: [{ amount: 0, currency: "usd" }], pending: [], livemode: false } };
    }
    if (url.pathname === "/v1/refunds" && req.method === "GET") {
      authorize(req, params);
      return { status: 200, body: listRefunds(params) };
    }
    if (url.pathname === "/v1/refunds" && req.method === "POST") {
      authorize(req, params);
      return { status: 200, body: structuredClone(createRefund(params)) as unknown as Json };
    }
    const cardAnswer = routeSavedCards(req, url.pathname, params);
    if (cardAnswer) return cardAnswer;
    const m = /^\/v1\/payment_intents(?:\/([A-Za-z0-9_]+))?(?:\/(confirm|cancel|challenge))?$/.exec(url.pathname);
    if (!m) throw new ApiFailure(404, { type: "invalid_request_error", message: `Unrecognized request URL (${req.method}: ${url.pathname}).` });
    const [, id, action] = m;
    authorize(req, params, id);

    if (!id && req.method === "POST") return { status: 200, body: structuredClone(createIntent(params)) as unknown as Json };
    if (!id && req.method === "GET") {
      // https://docs.stripe.com/api/payment_intents/list: newest first, optionally one customer's.
      const customer = typeof params.customer === "string" ? params.customer : undefined;
      const data = [...intents.values()].filter((pi) => customer === undefined || pi.customer === customer).reverse().slice(0, 100);
      return { status: 200, body: { object: "list", url: "/v1/payment_intents", has_more: false, data: structuredClone(data) } };
    }
    if (id && req.method === "GET" && !action) return { status: 200, body: structuredClone(findIntent(id)) as unknown as Json };
    if (id && req.method === "POST" && !action) return { status: 200, body: structuredClone(updateIntent(id, params)) as unknown as Json };
    if (id && req.method === "POST" && action === "confirm") return { status: 200, body: structuredClone(confirmIntent(id, params)) as unknown as Json };
    if (id && req.method === "POST" && action === "challenge") {
      // The fake's stand-in for the bank's 3-D Secure page, which Stripe.js shows (publishable key + client secret).
      if (params.outcome !== "complete" && params.outcome !== "fail") throw invalid("outcome must be complete or fail.", { param: "outcome" });
      return { status: 200, body: structuredClone(answerChallenge(id, params.outcome)) as unknown as Json };
    }
    if (id && req.method === "POST" && action === "cancel") return { status: 200, body: structuredClone(cancelIntent(id)) as unknown as Json };
    throw new ApiFailure(404, { type: "invalid_request_error", message: `Unrecognized request URL (${req.method}: ${url.pathname}).` });
  }

  /** One request: its answer, or Stripe's error object for it. */
  function answer(req: http.IncomingMessage, body: string): { status: number; body: Json } {
    try {
      return route(req, body);
    } catch (err) {
      if (err instanceof ApiFailure) return { status: err.status, body: { error: { ...err.error, request_log_url: null } } };
      opts.logger?.error({ err }, "fake Stripe failed");
      return { status: 500, body: { error: { type: "api_error", message: "An unknown error occurred in the offline Stripe fake." } } };
    }
  }

  /**
   * Stripe's idempotency (https://docs.stripe.com/api/idempotent_requests): the status and body of the first request
   * with a key are saved once the endpoint runs, and every later request with the key gets them back (errors too);
   * other parameters with the same key are a 400 idempotency_error; a request while the first is still running is a
   * 409; a request refused before it ran (bad parameters, 401, 404) saves nothing; keys are forgotten after 24 h.
   */
  async function idempotent(req: http.IncomingMessage, body: string): Promise<{ status: number; body: Json; replayed?: boolean }> {
    const key = req.headers["idempotency-key"];
    const pause = () => (fake.latencyMs > 0 ? new Promise((r) => setTimeout(r, fake.latencyMs)) : Promise.resolve());
    if (req.method !== "POST" || typeof key !== "string") {
      await pause();
      const result = answer(req, body);
      if (req.method === "POST") save();
      return result;
    }
    // A key belongs to the whole account: used again on another endpoint, Stripe refuses it.
    const scope = key;
    const endpoint = new URL(req.url ?? "/", "http://fake-stripe").pathname;
    const hash = createHash("sha256").update(body).digest("hex");
    let seen = idempotency.get(scope);
    if (seen && Date.now() - seen.at > fake.idempotencyTtlMs) {
      idempotency.delete(scope);
      seen = undefined;
    }
    if (seen?.endpoint !== undefined && seen.endpoint !== endpoint) {
      return {
        status: 400,
        body: { error: { type: "idempotency_error", message: `Keys for idempotent requests can only be used for the same endpoint they were first used for ('${seen.endpoint}' vs '${endpoint}'). Try using a key other than '${key}' if you meant to execute a different request.`, request_log_url: null } },
      };
    }
    if (seen && seen.hash !== hash) {
      return {
        status: 400,
        body: { error: { type: "idempotency_error", message: `Keys for idempotent requests can only be used with the same parameters they were first used with. Try using a key other than '${key}' if you meant to execute a different request.`, request_log_url: null } },
      };
    }
    if (seen && !seen.response) {
      return {
        status: 409,
        body: { error: { type: "idempotency_error", message: `There is currently another in-progress request using this Idempotent Key (that probably means you submitted twice, and the other request is still going through): ${key}. Please try again later.`, request_log_url: null } },
      };
    }
    if (seen?.response) return { ...structuredClone(seen.response), replayed: true };
    const entry: IdempotencyEntry = { hash, at: Date.now(), endpoint };
    idempotency.set(scope, entry);
    await pause();
    const result = answer(req, body);
    if ([400, 401, 404].includes(result.status) && (result.body.error as Json | undefined)?.type !== "card_error") idempotency.delete(scope);
    else entry.response = structuredClone(result);
    save();
    return result;
  }

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      void idempotent(req, Buffer.concat(chunks).toString("utf8")).then(({ status, body, replayed }) => {
        const headers: Record<string, string> = { "content-type": "application/json", "request-id": randomId("req", 14), "stripe-version": API_VERSION };
        if (replayed) headers["idempotent-replayed"] = "true";
        res.writeHead(status, headers);
        res.end(JSON.stringify(body));
      });
    });
  });
  if (saved) {
    for (const pi of saved.intents) intents.set(pi.id, pi);
    for (const refund of saved.refunds) refunds.set(refund.id, refund);
    for (const [id, card] of saved.cardOf) cardOf.set(id, card);
    for (const [key, value] of saved.idempotency) idempotency.set(key, value);
    for (const customer of saved.customers ?? []) customers.set(customer.id, customer);
    for (const pm of saved.paymentMethods ?? []) paymentMethods.set(pm.id, pm);
    for (const si of saved.setupIntents ?? []) setupIntents.set(si.id, si);
    for (const [id, number] of saved.pmCards ?? []) pmCards.set(id, number);
    for (const id of saved.setUpOffSession ?? []) setUpOffSession.add(id);
    for (const { event } of saved.pending) {
      events.push(event);
      pending.set(event.id, saved.pending.find((p) => p.event.id === event.id)!);
    }
    for (const id of saved.laterPayments) laterPayments.set(id, fake.processingSettleMs === null ? undefined : setTimeout(() => settleProcessing(id), fake.processingSettleMs).unref());
    for (const [id, to] of saved.laterRefunds) {
      laterRefunds.set(id, { to, ...(fake.refundSettleMs === null ? {} : { timer: setTimeout(() => settleRefund(id), fake.refundSettleMs).unref() }) });
    }
    opts.logger?.info({ intents: intents.size, undelivered: pending.size }, "offline Stripe: state restored from its file");
  }
  await new Promise<void>((resolve) => server.listen(opts.port ?? 0, "127.0.0.1", resolve));
  fake.port = (server.address() as AddressInfo).port;
  // The keys are kept from the first start: a page opened before a restart still talks to the same "account".
  save();
  return fake;
}
