import express, { Router } from "express";
import type { Db } from "../db/knex.ts";
import type { Logger } from "../logger.ts";
import type { PaymentCore } from "./core.ts";
import { WebhookSignatureError } from "./gateway.ts";
import { markEventFailed, markEventProcessed, recordEvent } from "./repository.ts";

/**
 * POST /api/stripe/webhook: mounted before the body parsers and the session (raw body, no CSRF).
 * Verified on the raw body, de-duplicated by event id, non-2xx when processing failed so Stripe retries.
 */
export function stripeWebhookRoutes(opts: { db: Db; payments: PaymentCore; logger: Logger }): Router {
  const { db, payments, logger } = opts;
  const router = Router();
  router.post("/api/stripe/webhook", express.raw({ type: "*/*", limit: "1mb" }), async (req, res) => {
    const raw = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
    let event;
    try {
      event = payments.gateway.verifyWebhook(raw, req.get("stripe-signature"));
    } catch (err) {
      if (err instanceof WebhookSignatureError) {
        logger.warn({ reason: err.message }, "webhook signature rejected");
        res.status(400).json({ error: "Invalid signature" });
        return;
      }
      throw err;
    }

    const intentId = (event.data.object as { id?: string; object?: string }).object === "payment_intent"
      ? ((event.data.object as { id: string }).id)
      : null;
    try {
      const seen = await recordEvent(db, { eventId: event.id, type: event.type, intentId });
      if (seen.processed) {
        res.json({ received: true, duplicate: true });
        return;
      }
      await payments.handleEvent(event);
      await markEventProcessed(db, event.id);
      res.json({ received: true });
    } catch (err) {
      logger.error({ err, eventId: event.id, type: event.type }, "webhook processing failed; Stripe will retry");
      await markEventFailed(db, event.id, String((err as Error).message ?? err)).catch(() => undefined);
      res.status(500).json({ error: "Webhook processing failed" });
    }
  });
  return router;
}
