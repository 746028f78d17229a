import type { Logger } from "../logger.ts";
import type { Redis } from "../redis.ts";
import { subscribe } from "../redisSubscription.ts";

/**
 * Settlements told across instances over Redis: a webhook for a card paid in the browser waits for the visitor's
 * return (webhook.ts), which a proxy sends to any instance. The instance whose settlement left a payment settled
 * publishes its PaymentIntent's id; every instance hears it and wakes its webhooks waiting for that intent. A message
 * lost (Redis down, a subscription being made again) costs only the wait: the webhook then settles as before.
 */
export const paymentsSettledChannel = (prefix: string) => `${prefix}payments-settled`;

/** What createPaymentCore's `announceSettled` sends: never awaited, a failure logged and otherwise ignored. */
export function settlementAnnouncer(redis: Redis, prefix: string, logger: Logger): (intentId: string) => void {
  return (intentId) => {
    redis.publish(paymentsSettledChannel(prefix), intentId).catch((err: Error) => logger.debug({ err: err.message }, "settlement not announced over redis; a webhook waiting elsewhere waits its whole time"));
  };
}

/** Hands every announced intent to `heard` (the payment core's `heardSettled`). */
export function hearSettlements(redis: Redis, prefix: string, heard: (intentId: string) => void): void {
  subscribe(redis, paymentsSettledChannel(prefix), heard);
}
