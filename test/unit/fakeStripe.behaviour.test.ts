import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import Stripe from "stripe";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { startFakeStripe, WEBHOOK_RETRY_SCHEDULE_MS, type FakeStripe } from "../../src/payments/offline/fakeStripeServer.ts";

/**
 * The offline fake does what Stripe does where this site depends on it, spoken to by the real SDK. Each test names
 * the page of Stripe's documentation it follows.
 */
let fake: FakeStripe;
let stripe: Stripe;

beforeAll(async () => {
  fake = await startFakeStripe();
  stripe = new Stripe(fake.secretKey, { host: fake.host, port: fake.port, protocol: "http", maxNetworkRetries: 0 });
});
afterAll(async () => {
  await fake?.close();
});
beforeEach(() => {
  fake.autoDeliver = false;
  fake.confirmProcessing = false;
  fake.processingOutcome = "succeeded";
  fake.processingSettleMs = null;
  fake.refundBehaviour = "immediate";
  fake.refundSettleMs = null;
  fake.latencyMs = 0;
  fake.idempotencyTtlMs = 24 * 60 * 60_000;
});

let n = 0;
/** A new intent; with a key, the same key's requests carry the same parameters (the reference is the key's). */
const create = (amount = 5000, key?: string) =>
  stripe.paymentIntents.create({ amount, currency: "usd", metadata: { kind: "test", reference: key ?? `R${++n}` }, allowed_payment_method_types: ["card"] }, key ? { idempotencyKey: key } : undefined);
const typesFor = (intentId: string) => fake.events.filter((e) => (e.data.object as { id?: string; payment_intent?: string }).id === intentId || (e.data.object as { payment_intent?: string }).payment_intent === intentId).map((e) => e.type);

describe("3-D Secure (https://docs.stripe.com/testing#authentication-and-setup, https://docs.stripe.com/payments/3d-secure)", () => {
  it("4000 0025 0000 3155 reaches requires_action with a next action; completing the challenge succeeds", async () => {
    const pi = await create();
    const confirmed = fake.confirm(pi.id, { number: "4000002500003155" });
    expect(confirmed.status).toBe(200);
    expect(confirmed.body).toMatchObject({ status: "requires_action", next_action: { type: "use_stripe_sdk" } });
    // The amount may still change while the customer is in the challenge (https://docs.stripe.com/api/payment_intents/update).
    expect((await stripe.paymentIntents.update(pi.id, { amount: 4500 })).amount).toBe(4500);
    expect(fake.challenge(pi.id, "complete").body).toMatchObject({ status: "succeeded", amount_received: 4500 });
    expect(typesFor(pi.id)).toEqual(["payment_intent.requires_action", "payment_intent.succeeded"]);
  });

  it("failing the challenge leaves the intent requires_payment_method with payment_intent_authentication_failure", async () => {
    const pi = await create();
    fake.confirm(pi.id, { number: "4000 0025 0000 3155" });
    const failed = fake.challenge(pi.id, "fail");
    expect(failed.body).toMatchObject({ status: "requires_payment_method", last_payment_error: { code: "payment_intent_authentication_failure" } });
    expect(typesFor(pi.id)).toEqual(["payment_intent.requires_action", "payment_intent.payment_failed"]);
    // Another card may be tried on the same intent.
    expect(fake.confirm(pi.id, { number: "4242424242424242" }).body).toMatchObject({ status: "succeeded" });
  });
});

describe("processing (https://docs.stripe.com/payments/paymentintents/lifecycle)", () => {
  it("under the switch a confirmation answers processing and the payment settles later by payment_intent.succeeded", async () => {
    fake.confirmProcessing = true;
    const pi = await create();
    expect(fake.confirm(pi.id, { number: "4242424242424242" }).body).toMatchObject({ status: "processing" });
    expect((await stripe.paymentIntents.retrieve(pi.id)).status).toBe("processing");
    // Nor can it be confirmed again while processing.
    expect(fake.confirm(pi.id, { number: "4242424242424242" }).body).toMatchObject({ error: { code: "payment_intent_unexpected_state" } });
    fake.settleProcessing();
    expect((await stripe.paymentIntents.retrieve(pi.id)).status).toBe("succeeded");
    expect(typesFor(pi.id)).toEqual(["payment_intent.processing", "payment_intent.succeeded"]);
  });

  it("a processing payment that fails goes back to requires_payment_method with payment_intent.payment_failed", async () => {
    fake.confirmProcessing = true;
    fake.processingOutcome = "failed";
    const pi = await create();
    fake.confirm(pi.id, { number: "4242424242424242" });
    fake.settleProcessing();
    const now = await stripe.paymentIntents.retrieve(pi.id);
    expect(now).toMatchObject({ status: "requires_payment_method", last_payment_error: { code: "card_declined" } });
    expect(typesFor(pi.id)).toEqual(["payment_intent.processing", "payment_intent.payment_failed"]);
  });
});

describe("refunds (https://docs.stripe.com/testing#refunds, https://docs.stripe.com/refunds#failed-refunds)", () => {
  async function paidWith(card: string) {
    const pi = await create();
    fake.confirm(pi.id, { number: card });
    return pi.id;
  }

  it("4000 0000 0000 7726: the refund begins pending, then succeeds with refund.updated", async () => {
    const id = await paidWith("4000000000007726");
    const refund = await stripe.refunds.create({ payment_intent: id });
    expect(refund.status).toBe("pending");
    fake.settleRefunds();
    expect((await stripe.refunds.list({ payment_intent: id })).data[0]).toMatchObject({ id: refund.id, status: "succeeded" });
    expect(typesFor(id).filter((t) => t.startsWith("refund.") || t.startsWith("charge."))).toEqual(["refund.created", "charge.refunded", "refund.updated"]);
  });

  it("4000 0000 0000 5126: the refund begins succeeded, then fails with refund.failed, and the money can be refunded again", async () => {
    const id = await paidWith("4000000000005126");
    const refund = await stripe.refunds.create({ payment_intent: id, amount: 2000 });
    expect(refund.status).toBe("succeeded");
    fake.settleRefunds();
    expect((await stripe.refunds.list({ payment_intent: id })).data[0]).toMatchObject({ status: "failed", failure_reason: "expired_or_canceled_card" });
    expect(typesFor(id)).toContain("refund.failed");
    expect((await stripe.refunds.create({ payment_intent: id })).amount).toBe(5000);
  });

  it("the switch makes refunds of other cards pending, then failed", async () => {
    fake.refundBehaviour = "pending_then_failed";
    const id = await paidWith("4242424242424242");
    expect((await stripe.refunds.create({ payment_intent: id })).status).toBe("pending");
    fake.settleRefunds();
    expect((await stripe.refunds.list({ payment_intent: id })).data[0]!.status).toBe("failed");
  });
});

describe("idempotency (https://docs.stripe.com/api/idempotent_requests)", () => {
  it("the same key and parameters get the first response back, even after the object changed", async () => {
    const first = await create(5000, "key-same");
    await stripe.paymentIntents.update(first.id, { amount: 6000 });
    const again = await create(5000, "key-same");
    expect(again.id).toBe(first.id);
    expect(again.amount).toBe(5000);
    expect(again.lastResponse.headers["idempotent-replayed"]).toBe("true");
  });

  it("the same key with other parameters is a 400 idempotency_error, for good", async () => {
    await create(5000, "key-other");
    const err = await create(5100, "key-other").catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Stripe.errors.StripeIdempotencyError);
    expect(err).toMatchObject({ statusCode: 400, type: "StripeIdempotencyError" });
  });

  it("a second request while the first with its key is still running is a 409", async () => {
    fake.latencyMs = 300;
    const [a, b] = await Promise.allSettled([create(5000, "key-flight"), new Promise((r) => setTimeout(r, 50)).then(() => create(5000, "key-flight"))]);
    expect(a.status).toBe("fulfilled");
    expect(b.status).toBe("rejected");
    expect((b as PromiseRejectedResult).reason).toMatchObject({ statusCode: 409 });
  });

  it("a request refused for its parameters saves nothing, and keys are forgotten after 24 hours", async () => {
    await expect(create(10, "key-invalid")).rejects.toMatchObject({ statusCode: 400, code: "amount_too_small" });
    expect((await create(5000, "key-invalid")).amount).toBe(5000);
    const first = await create(5000, "key-expires");
    fake.idempotencyTtlMs = 0;
    await new Promise((r) => setTimeout(r, 5));
    expect((await create(5000, "key-expires")).id).not.toBe(first.id);
  });
});

describe("amount updates (https://docs.stripe.com/api/payment_intents/update)", () => {
  it("refuses a new amount once the intent is processing or succeeded, with payment_intent_unexpected_state", async () => {
    fake.confirmProcessing = true;
    const pi = await create();
    fake.confirm(pi.id, { number: "4242424242424242" });
    const whileProcessing = await stripe.paymentIntents.update(pi.id, { amount: 4000 }).catch((e: unknown) => e);
    expect(whileProcessing).toMatchObject({ statusCode: 400, code: "payment_intent_unexpected_state" });
    fake.settleProcessing();
    await expect(stripe.paymentIntents.update(pi.id, { amount: 4000 })).rejects.toMatchObject({ code: "payment_intent_unexpected_state" });
    expect((await stripe.paymentIntents.retrieve(pi.id)).amount).toBe(5000);
  });
});

describe("errors (https://docs.stripe.com/api/errors)", () => {
  it("have Stripe's shape: type, code, decline_code, message, doc_url, and the SDK's error classes", async () => {
    const pi = await create();
    const declined = fake.confirm(pi.id, { number: "4000000000009995" });
    expect(declined.status).toBe(402);
    expect(declined.body.error).toMatchObject({ type: "card_error", code: "card_declined", decline_code: "insufficient_funds", doc_url: "https://stripe.com/docs/error-codes/card-declined" });
    const missing = await stripe.paymentIntents.retrieve("pi_missing").catch((e: unknown) => e);
    expect(missing).toBeInstanceOf(Stripe.errors.StripeInvalidRequestError);
    expect(missing).toMatchObject({ statusCode: 404, code: "resource_missing" });
  });
});

describe("webhook retries and a restart (https://docs.stripe.com/webhooks#retries)", () => {
  /** A webhook endpoint answering `statuses` in turn (then 200), recording when each delivery came. */
  async function endpoint(statuses: number[]) {
    const times: number[] = [];
    const server = http.createServer((req, res) => {
      req.resume();
      req.on("end", () => {
        times.push(Date.now());
        res.writeHead(statuses.shift() ?? 200).end();
      });
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, times, close: () => new Promise((r) => server.close(r)) };
  }

  it("an event that is not answered 2xx is sent again on Stripe's schedule, compressed by the scale", async () => {
    const own = await startFakeStripe({ webhookRetryScale: 1 / 6_000 });
    const hook = await endpoint([500, 503, 500]);
    try {
      own.setWebhookUrl(hook.url);
      const sdk = new Stripe(own.secretKey, { host: own.host, port: own.port, protocol: "http", maxNetworkRetries: 0 });
      const pi = await sdk.paymentIntents.create({ amount: 5000, currency: "usd" });
      own.confirm(pi.id, { number: "4242424242424242" });
      await own.idle();
      expect(hook.times).toHaveLength(4);
      const gaps = hook.times.slice(1).map((t, i) => t - hook.times[i]!);
      // 1 min, 5 min and 30 min divided by 6,000: 10 ms, 50 ms, 300 ms.
      expect(gaps[0]).toBeGreaterThanOrEqual(9);
      expect(gaps[1]).toBeGreaterThanOrEqual(45);
      expect(gaps[2]).toBeGreaterThanOrEqual(290);
      expect(WEBHOOK_RETRY_SCHEDULE_MS.reduce((a, b) => a + b, 0) / 3_600_000).toBeGreaterThanOrEqual(72);
    } finally {
      await own.close();
      await hook.close();
    }
  });

  it("with a state file, intents, replayed keys and undelivered events survive a restart; the event is delivered after it", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "offline-stripe-"));
    const stateFile = path.join(dir, "state.json");
    const first = await startFakeStripe({ stateFile, webhookRetryScale: 1 });
    const down = await endpoint([500]);
    first.setWebhookUrl(down.url);
    const sdk = (f: FakeStripe) => new Stripe(f.secretKey, { host: f.host, port: f.port, protocol: "http", maxNetworkRetries: 0 });
    const pi = await sdk(first).paymentIntents.create({ amount: 5000, currency: "usd", metadata: { kind: "order", reference: "KEEP" } }, { idempotencyKey: "keep-key" });
    first.confirm(pi.id, { number: "4242424242424242" });
    await new Promise((r) => setTimeout(r, 100));
    expect(down.times).toHaveLength(1); // refused; the next try is a minute away when the app "dies"
    await first.close();
    await down.close();

    const second = await startFakeStripe({ stateFile, webhookRetryScale: 1 / 60_000 });
    try {
      expect(second.secretKey).toBe(first.secretKey);
      expect((await sdk(second).paymentIntents.retrieve(pi.id)).status).toBe("succeeded");
      const again = await sdk(second).paymentIntents.create({ amount: 5000, currency: "usd", metadata: { kind: "order", reference: "KEEP" } }, { idempotencyKey: "keep-key" });
      expect(again.id).toBe(pi.id);
      const up = await endpoint([]);
      second.setWebhookUrl(up.url);
      await second.idle();
      expect(up.times).toHaveLength(1);
      await up.close();
    } finally {
      await second.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("the standalone fake's webhooks to several instances (npm run stripe:fake)", () => {
  it("sends each event, signed, to the next webhook URL in turn, as a load balancer in front of two instances would", async () => {
    const received: { at: string; type: string; signed: boolean }[] = [];
    const instance = (name: string) =>
      http.createServer((req, res) => {
        let body = "";
        req.on("data", (c: Buffer) => (body += c.toString()));
        req.on("end", () => {
          const signed = (() => {
            try {
              stripe.webhooks.constructEvent(body, String(req.headers["stripe-signature"]), fake.webhookSecret);
              return true;
            } catch {
              return false;
            }
          })();
          received.push({ at: name, type: (JSON.parse(body) as { type: string }).type, signed });
          res.end("{}");
        });
      });
    const servers = [instance("a"), instance("b")];
    await Promise.all(servers.map((s) => new Promise<void>((r) => s.listen(0, "127.0.0.1", r))));
    try {
      fake.setWebhookUrls(servers.map((s) => `http://127.0.0.1:${(s.address() as AddressInfo).port}/api/stripe/webhook`));
      fake.autoDeliver = true;
      for (let i = 0; i < 2; i++) expect(fake.confirm((await create()).id, { number: "4242424242424242" }).status).toBe(200);
      await fake.idle();
      const succeeded = received.filter((r) => r.type === "payment_intent.succeeded");
      expect(succeeded).toHaveLength(2);
      expect(received.every((r) => r.signed)).toBe(true);
      expect(new Set(received.map((r) => r.at))).toEqual(new Set(["a", "b"]));
    } finally {
      fake.setWebhookUrl(undefined);
      await Promise.all(servers.map((s) => new Promise((r) => s.close(r))));
    }
  });
});
