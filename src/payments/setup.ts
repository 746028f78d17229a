import path from "node:path";
import type { Config } from "../config.ts";
import type { Logger } from "../logger.ts";
import { createStripeGateway, type PaymentGateway } from "./gateway.ts";
import { startFakeStripe } from "./offline/fakeStripeServer.ts";

/** Real Stripe.js for pages with a card form (loaded only there); the offline fake is served by the app. */
export const STRIPE_JS_URL = "https://js.stripe.com/endive/stripe.js";
export const OFFLINE_STRIPE_JS_PATH = "/__offline-stripe/stripe.js";

export function stripeScripts(gateway: PaymentGateway): string[] {
  return [gateway.mode === "offline" ? OFFLINE_STRIPE_JS_PATH : STRIPE_JS_URL];
}

export interface PaymentSetup {
  gateway: PaymentGateway;
  /** Stops the offline fake, if this process started one. */
  close(): Promise<void>;
}

/**
 * The payment gateway for this process: Stripe with the configured keys, or (no keys; config refuses
 * that in production) the offline test mode, where the same SDK code talks to an in-process fake.
 */

export async function setUpPayments(config: Config, logger: Logger): Promise<PaymentSetup> {
  if (config.stripe) {
    const { apiUrl, ...keys } = config.stripe;
    const api = apiUrl ? new URL(apiUrl) : undefined;
    const gateway = createStripeGateway({
      ...keys,
      mode: "live",
      ...(api ? { api: { host: api.hostname, port: Number(api.port || (api.protocol === "https:" ? 443 : 80)), protocol: api.protocol === "https:" ? ("https" as const) : ("http" as const) } } : {}),
    });
    return { gateway, close: async () => {} };
  }
  if (config.isProduction) throw new Error("Offline Stripe test mode is refused in production");
  // Development: the fake keeps its state in var/ and retries webhooks on Stripe's real schedule, so a restart or an
  // outage behaves as with Stripe; tests get a fresh fake with the schedule compressed.
  const development = config.env === "development";
  const fake = await startFakeStripe({ logger, ...(development ? { stateFile: path.join("var", "offline-stripe.json"), webhookRetryScale: 1 } : {}) });
  logger.warn("STRIPE_SECRET_KEY is not set: payments run in offline test mode (no real card is charged)");
  const gateway = createStripeGateway({
    secretKey: fake.secretKey,
    publishableKey: fake.publishableKey,
    webhookSecret: fake.webhookSecret,
    mode: "offline",
    offline: fake,
    api: { host: fake.host, port: fake.port, protocol: "http" },
  });
  return { gateway, close: () => fake.close() };
}
