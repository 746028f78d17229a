import { setTimeout as sleep } from "node:timers/promises";
import express, { Router } from "express";
import type { Db } from "../db/knex.ts";
import type { Logger } from "../logger.ts";
import { AmountChangeInFlightError, type PaymentCore } from "./core.ts";
import { WebhookSignatureError } from "./gateway.ts";
import { markEventFailed, markEventProcessed, recordEvent } from "./repository.ts";
import { countWebhook } from "../metrics/hooks.ts";

/**
 * POST /api/stripe/webhook: mounted before the body parsers and the session (raw body, no CSRF).
 * Verified on the raw body, de-duplicated by event id, non-2xx when processing failed so Stripe retries.
 */
export function stripeWebhookRoutes(opts: { db: Db; paymentCore: PaymentCore; logger: Logger; waitMs?: number }): Router {
  const { db, paymentCore, logger, waitMs = 0 } = opts;
  const router = Router();

  /**
   * A card paid in the browser: the visitor's return (stripe-payment-success) settles it a moment later. The event
   * waits for that (up to waitMs, or until a settlement of it ends, in this process or announced by another);
   * settling both at once made one wait for the other's locks and ask Stripe again. Settled, the event is recorded as
   * processed in one statement (nothing recorded before: a crash during the wait leaves no answer, and Stripe
   * delivers it again). Otherwise (no return heard of: a closed tab, an off-session charge, Redis down) it is
   * recorded and settled as any other event: settle finds the payment paid with neither Stripe nor the locks, or
   * settles it.
   */
  async function waitForReturn(intentId: string): Promise<boolean> {
    const waited = new AbortController();
    const settled = await Promise.race([sleep(waitMs, false, { signal: waited.signal }).catch(() => false), paymentCore.settledSomewhere(intentId, waited.signal)]);
    waited.abort();
    return settled;
  }
  // Not the form kit: Stripe's signature is checked on the raw body, before any parser, session or CSRF check.
  router.post("/api/stripe/webhook", express.raw({ type: "*/*", limit: "1mb" }), async (req, res) => {
    const raw = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
    let event;
    try {
      event = paymentCore.gateway.verifyWebhook(raw, req.get("stripe-signature"));
    } catch (err) {
      if (err instanceof WebhookSignatureError) {
        countWebhook(db, "", "rejected");
        logger.warn({ reason: err.message }, "webhook signature rejected");
        res.status(400).json({ error: "Invalid signature" });
        return;
      }
      throw err;
    }

    const object = event.data.object as { id?: string; object?: string; payment_intent?: unknown };
    const intentId = object.object === "payment_intent" ? (object.id ?? null) : typeof object.payment_intent === "string" ? object.payment_intent : null;
    countWebhook(db, event.type, "received");
    try {
      if (event.type === "payment_intent.succeeded" && intentId && waitMs > 0) {
        if (await waitForReturn(intentId)) {
          const seen = await recordEvent(db, { eventId: event.id, type: event.type, intentId }, { processed: true });
          // Recorded by an earlier delivery that failed: the payment is settled, so is the event.
          if (!seen.processed) await markEventProcessed(db, event.id);
          res.json(seen.isNew ? { received: true } : { received: true, duplicate: true });
          return;
        }
      }
      const seen = await recordEvent(db, { eventId: event.id, type: event.type, intentId });
      if (seen.processed) {
        res.json({ received: true, duplicate: true });
        return;
      }
      await paymentCore.handleEvent(event);
      await markEventProcessed(db, event.id);
      res.json({ received: true });
    } catch (err) {
      if (err instanceof AmountChangeInFlightError) {
        // The payment's amount is being changed: answer non-2xx so Stripe delivers the event again later.
        logger.warn({ eventId: event.id, type: event.type }, "webhook waits for an amount change in flight; Stripe will retry");
        countWebhook(db, event.type, "failed");
        await markEventFailed(db, event.id, err.message).catch(() => undefined);
        res.status(503).json({ error: "Payment is being updated; retry later" });
        return;
      }
      countWebhook(db, event.type, "failed");
      logger.error({ err, eventId: event.id, type: event.type }, "webhook processing failed; Stripe will retry");
      await markEventFailed(db, event.id, String((err as Error).message ?? err)).catch(() => undefined);
      res.status(500).json({ error: "Webhook processing failed" });
    }
  });
  return router;
}
