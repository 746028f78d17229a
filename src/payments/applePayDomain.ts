import fs from "node:fs";
import { Router } from "express";

export const APPLE_PAY_DOMAIN_PATH = "/.well-known/apple-developer-merchantid-domain-association";

/**
 * Apple Pay's domain association file, which Stripe asks for when a domain is registered for Apple Pay
 * (https://docs.stripe.com/payments/payment-methods/pmd-registration): read once at start, so a missing file stops
 * the start instead of failing Apple's check later. Mounted only with the setting (src/app.ts: a router in the
 * stack costs every request a pass through it); without it the path answers 404.
 */
export function applePayDomainRoutes(file: string): Router {
  const router = Router();
  let body: Buffer;
  try {
    body = fs.readFileSync(file);
  } catch (err) {
    throw new Error(`APPLE_PAY_DOMAIN_FILE cannot be read (${file}): ${(err as Error).message}`);
  }
  router.get(APPLE_PAY_DOMAIN_PATH, (_req, res) => {
    res.set("cache-control", "public, max-age=3600").type("text/plain").send(body);
  });
  return router;
}
