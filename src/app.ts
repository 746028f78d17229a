import express, { type Express } from "express";
import { pinoHttp } from "pino-http";
import type { Config } from "./config.ts";
import type { Db } from "./db/knex.ts";
import type { Redis } from "./redis.ts";
import { hashForLog, type Logger } from "./logger.ts";
import { buildSite } from "./site.ts";
import type { Outbox } from "./email/outbox.ts";
import type { CatalogueSource } from "./catalogue/source.ts";
import { loadAssets, publicDirectory } from "./http/assets.ts";
import { createSessionStore, sessionMiddleware } from "./http/session.ts";
import { csrfProtection, sameOriginOnly, securityHeaders } from "./http/security.ts";
import { healthRoutes } from "./http/health.ts";
import { pageContext } from "./http/pageContext.ts";
import { errorHandler, notFound, requireSessionForWrites } from "./http/errors.ts";
import { rateLimiterFactory } from "./http/rateLimit.ts";
import { homeRoutes } from "./home/routes.tsx";
import { messagesRoutes } from "./messages/routes.tsx";
import { eventRoutes } from "./events/routes.tsx";
import { testRoutes } from "./http/testRoutes.tsx";
import { shopRoutes } from "./catalogue/routes.tsx";
import type { PaymentGateway } from "./payments/gateway.ts";
import { createPaymentCore } from "./payments/core.ts";
import { stripeWebhookRoutes } from "./payments/webhook.ts";
import { offlineStripeRoutes } from "./payments/offline/routes.ts";
import { registerOrderPayments, type OrdersDeps } from "./orders/checkout.ts";
import { createShopifyOrderWriter } from "./orders/shopifyWriteBack.ts";
import { cartRoutes, paidCheckoutClearsCart } from "./cart/routes.tsx";

export interface AppDeps {
  config: Config;
  db: Db;
  redis: Redis | undefined;
  logger: Logger;
  outbox: Outbox;
  catalogue: CatalogueSource;
  /** Stripe (live keys) or the offline test mode's fake, through the same SDK code. */
  payments: PaymentGateway;
}

/** The whole middleware order, top to bottom. */
export function createApp(deps: AppDeps): Express {
  const { config, db, redis, logger } = deps;
  const site = buildSite(config.brandName);
  const assets = loadAssets();
  const rateLimiter = rateLimiterFactory(redis, config.redis?.prefix ?? "");
  // The payment core: shop orders register their kind here (event registrations will too).
  const payments = createPaymentCore({ db, gateway: deps.payments, logger });
  const orders: OrdersDeps = { db, payments, outbox: deps.outbox, logger, site, shopifyWriter: createShopifyOrderWriter(config.shopify) };
  registerOrderPayments(orders);
  const app = express();

  app.disable("x-powered-by");
  app.set("trust proxy", config.trustProxyHops);
  app.set("query parser", "extended");

  // 1. request logs (no cookies, hashed session ids)
  app.use(
    pinoHttp({
      logger,
      autoLogging: { ignore: (req) => req.url === "/healthz" || req.url?.startsWith("/build/") === true },
      serializers: {
        res: (res: { statusCode: number }) => ({ statusCode: res.statusCode }),
        req: (req: { method: string; url: string; raw?: { sessionID?: string } }) => ({
          method: req.method,
          url: req.url,
          session: req.raw?.sessionID ? hashForLog(req.raw.sessionID) : undefined,
        }),
      },
    }),
  );

  // 2. security headers, static files, health
  app.use(securityHeaders(config.isProduction));
  app.use("/build", express.static(`${publicDirectory}/build`, { immutable: true, maxAge: "1y", fallthrough: false }));
  app.use(express.static(publicDirectory, { maxAge: "1h", index: false }));
  app.use(healthRoutes(db, redis));

  // 3. raw-body routes that must not meet the session or CSRF (the Stripe webhook) go here
  app.use(stripeWebhookRoutes({ db, payments, logger }));
  if (deps.payments.offline) app.use(offlineStripeRoutes(deps.payments.offline));

  // 4. bodies, session, page context (the error page needs it), same-origin check, CSRF
  app.use(express.json({ limit: "100kb" }));
  app.use(express.urlencoded({ extended: true, limit: "100kb", parameterLimit: 500 }));
  app.use(sessionMiddleware(config, createSessionStore(redis, config.redis?.prefix ?? "", logger)));
  app.use(pageContext({ site, assets, publicUrl: config.publicUrl, testMode: !config.stripe }));
  app.use(sameOriginOnly(config.publicUrl));
  app.use(requireSessionForWrites);
  app.use(csrfProtection);
  app.use(paidCheckoutClearsCart(orders));

  // 5. features
  app.use(homeRoutes({ site, db }));
  app.use(messagesRoutes({ db, site, outbox: deps.outbox, brandInbox: config.mail.brandInbox, rateLimiter }));
  app.use(eventRoutes({ db, site, heroVideoUrl: config.eventsHeroVideoUrl }));
  app.use(shopRoutes({ catalogue: deps.catalogue, site, logger }));
  app.use(cartRoutes({ catalogue: deps.catalogue, orders, rateLimiter }));
  if (config.testRoutes) app.use("/__test", testRoutes({ rateLimiter }));

  // 6. not found, errors
  app.use(notFound());
  app.use(errorHandler(logger));
  return app;
}
