/**
 * `npm run stripe:fake`: the offline fake Stripe as a process of its own, on loopback, for an app run with keys
 * (NODE_ENV=production included) and STRIPE_API_URL pointing here: the benchmark's instances use it, and a
 * developer can too. Like Stripe, it delivers signed payment_intent.* events to STRIPE_FAKE_WEBHOOK_URL (several
 * URLs, comma-separated, take turns, as a load balancer in front of several instances would).
 *
 *   STRIPE_FAKE_PORT (default 12111), STRIPE_FAKE_WEBHOOK_URL (default http://127.0.0.1:3000/api/stripe/webhook),
 *   STRIPE_SECRET_KEY, STRIPE_PUBLISHABLE_KEY, STRIPE_WEBHOOK_SECRET (default: made up and printed)
 *
 * It prints one line, `fake Stripe listening on http://127.0.0.1:PORT`, then the variables the app needs.
 * Its business time follows `npm run clock` (var/clock.json), like the app's instances started in the same directory.
 * Nothing is kept: a restart forgets every PaymentIntent. A card is confirmed as Stripe.js would, by a POST to
 * /v1/payment_intents/{id}/confirm with the publishable key and the client secret.
 */
import * as z from "zod";
import { createLogger } from "../../logger.ts";
import { startFakeStripe } from "./fakeStripeServer.ts";
import { clockFileToFollow, followClockFile } from "../../clock.ts";

const optional = z
  .string()
  .trim()
  .transform((v) => (v === "" ? undefined : v))
  .optional();
const Env = z.object({
  STRIPE_FAKE_PORT: z.coerce.number().int().min(1).max(65535).default(12111),
  STRIPE_FAKE_WEBHOOK_URL: z.string().default("http://127.0.0.1:3000/api/stripe/webhook"),
  STRIPE_SECRET_KEY: optional.pipe(z.string().startsWith("sk_test_").optional()),
  STRIPE_PUBLISHABLE_KEY: optional.pipe(z.string().startsWith("pk_test_").optional()),
  STRIPE_WEBHOOK_SECRET: optional.pipe(z.string().startsWith("whsec_").optional()),
  LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
});

const parsed = Env.safeParse(process.env);
if (!parsed.success) {
  console.error(`fake Stripe: ${parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ")}`);
  process.exit(2);
}
const env = parsed.data;
const webhookUrls = env.STRIPE_FAKE_WEBHOOK_URL.split(",").map((u) => u.trim()).filter(Boolean);
if (webhookUrls.some((u) => !URL.canParse(u))) {
  console.error("fake Stripe: STRIPE_FAKE_WEBHOOK_URL must be one or more http(s) URLs, comma-separated");
  process.exit(2);
}

const logger = createLogger(env.LOG_LEVEL);
// Its clock is the app's: the offset `npm run clock` writes (CLOCK_FILE, else var/clock.json in the directory it was started from).
const clockFile = clockFileToFollow(process.env.CLOCK_FILE, process.env.NODE_ENV);
if (process.env.NODE_ENV !== "production" && clockFile) followClockFile(clockFile);
const fake = await startFakeStripe({
  logger,
  port: env.STRIPE_FAKE_PORT,
  secretKey: env.STRIPE_SECRET_KEY,
  publishableKey: env.STRIPE_PUBLISHABLE_KEY,
  webhookSecret: env.STRIPE_WEBHOOK_SECRET,
  // Stripe's real retry schedule: an app that is down gets its events again minutes later, as with Stripe.
  webhookRetryScale: 1,
});
fake.setWebhookUrls(webhookUrls);

const origin = `http://127.0.0.1:${fake.port}`;
console.log(`fake Stripe listening on ${origin}`);
console.log(`STRIPE_API_URL=${origin}`);
console.log(`STRIPE_SECRET_KEY=${fake.secretKey}`);
console.log(`STRIPE_PUBLISHABLE_KEY=${fake.publishableKey}`);
console.log(`STRIPE_WEBHOOK_SECRET=${fake.webhookSecret}`);
console.log(`webhooks to ${webhookUrls.join(", ")}`);

async function stop(): Promise<void> {
  await fake.close();
  process.exit(0);
}
process.on("SIGTERM", () => void stop());
process.on("SIGINT", () => void stop());
