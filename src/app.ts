import express, { type Express } from "express";
import { pinoHttp } from "pino-http";
import compression from "compression";
import type { Config } from "./config.ts";
import type { Db } from "./db/knex.ts";
import type { Redis } from "./redis.ts";
import { hashForLog, urlForLog, type Logger } from "./logger.ts";
import { countRequestQueries, queryLog } from "./db/queryLog.ts";
import { buildSite } from "./shared/site.ts";
import type { Outbox } from "./email/outbox.ts";
import type { JobQueue } from "./db/jobQueue.ts";
import type { CatalogueSource } from "./catalogue/source.ts";
import { loadAssets } from "./http/assets.ts";
import { staticFiles } from "./http/staticFiles.ts";
import { createSessionStore, DEVELOPMENT_SECRET, SESSION_COOKIE, sessionMiddleware, sessionStoreReady, storedSessionReader } from "./http/session.ts";
import { sameOriginOnly, securityHeaders } from "./http/security.ts";
import { createCsrf } from "./http/csrf.ts";
import { healthRoutes } from "./http/health.ts";
import { applePayDomainRoutes } from "./payments/applePayDomain.ts";
import { crawlerRoutes } from "./crawlers/routes.ts";
import { noCookieOnPublicResponses } from "./http/publicCache.ts";
import { pageContext, type PageContextOptions } from "./http/pageContext.ts";
import { createPageCache } from "./http/pageCache.ts";
import { onCommittedWrites } from "./db/committedWrites.ts";
import { EVENT_TABLES, eventCaches } from "./events/cache.ts";
import { announceEventsChanges, eventsChangedChannel, watchEventsVersion } from "./events/version.ts";
import { errorHandler, notFound, requireSessionForWrites } from "./http/errors.ts";
import { PAYMENT_CREATION_LIMIT, rateLimiterFactory } from "./http/rateLimit.ts";
import { homeRoutes } from "./home/routes.tsx";
import { customApparelRoutes } from "./customApparel/routes.tsx";
import { contactRoutes, messageForms } from "./inbox/routes.tsx";
import { policyRoutes } from "./policies/routes.tsx";
import { eventRoutes } from "./events/routes.tsx";
import { eventApiRoutes } from "./events/apiRoute.ts";
import { testRoutes } from "./http/testRoutes.tsx";
import { shopRoutes } from "./catalogue/routes.tsx";
import type { PaymentGateway } from "./payments/gateway.ts";
import { createPaymentCore } from "./payments/core.ts";
import { hearSettlements, settlementAnnouncer } from "./payments/settledAnnouncements.ts";
import { now } from "./clock.ts";
import { stripeWebhookRoutes } from "./payments/webhook.ts";
import { reconcileOpenPayments } from "./payments/reconcile.ts";
import { offlineStripeRoutes } from "./payments/offline/routes.ts";
import type { RegistrationDeps } from "./registrations/core/deps.ts";
import { registerRegistrationWingPayments } from "./registrations/payments.ts";
import { sweepLapsedHolds } from "./registrations/booking/sweep.ts";
import { sendFreezeReminders } from "./registrations/changes/reminders.ts";
import { runBalanceJob } from "./registrations/balances/job.ts";
import { registrationRoutes } from "./registrations/routes.ts";
import { askForDueRounds, createOfferQueue } from "./registrations/waitlist/offerQueue.ts";
import type { WaitingListDeps } from "./registrations/waitlist/deps.ts";
import { registerOrderPayments, type OrdersDeps } from "./orders/checkout.ts";
import { cartRoutes } from "./cart/routes.tsx";
import { keptCartPage } from "./cart/keptCartPage.ts";
import type { CartPageDeps } from "./cart/page.tsx";
import { checkoutRoutes } from "./orders/checkoutRoutes.ts";
import { settlePaidCheckout } from "./orders/settlement.ts";
import { coachRequestRoutes } from "./collegeCoachRequests/routes.tsx";
import { justPaidPanel, orderRoutes } from "./orders/routes.tsx";
import { httpMetrics, instrument } from "./metrics/index.ts";
import { recordedJob } from "./metrics/hooks.ts";

export interface AppDeps {
  config: Config;
  db: Db;
  redis: Redis | undefined;
  logger: Logger;
  outbox: Outbox;
  catalogue: CatalogueSource;
  /** Stripe (live keys) or the offline test mode's fake, through the same SDK code. */
  gateway: PaymentGateway;
  /** Paid shop orders to create in Shopify (createShopifyWriteBacks); undefined without an Admin API token. */
  shopifyWriteBacks: JobQueue | undefined;
}

/** The whole middleware order, top to bottom. */
export function createApp(deps: AppDeps): Express {
  const { config, db, redis, logger } = deps;
  const redisPrefix = config.redis?.prefix ?? "";
  const site = buildSite(config.brandName, { shipsStarting: config.shipsStartingDate });
  const assets = loadAssets();
  const csrf = createCsrf(config.sessionSecret ?? DEVELOPMENT_SECRET, config.https);
  const pageCache = createPageCache({ ttlMs: config.pageCacheMs, csrf });
  // Kept pages show events and places left. An operator's change of events this process commits is shown at once;
  // places taken or given back (holds, payments, lapses, the waiting list) show within PAGE_CACHE_MS, as another
  // instance's do: in a rush every hold emptied the kept pages, and most families' pages were rendered again.
  onCommittedWrites(db, EVENT_TABLES, () => pageCache.clear());
  // A change of events this process bumps the version for is announced to the other instances.
  if (redis) announceEventsChanges(db, () => redis.publish(eventsChangedChannel(redisPrefix), "1"), logger);

  const rateLimiter = rateLimiterFactory(redis, redisPrefix);
  // One per-session counter for every route that creates an order, a registration or a PaymentIntent.
  const paymentLimit = rateLimiter(PAYMENT_CREATION_LIMIT);
  // The payment core: shop orders and event registrations register their kinds here.
  const paymentCore = createPaymentCore({
    db, gateway: deps.gateway, logger, refundIntervalMs: config.refundJobIntervalMs,
    announceSettled: redis && settlementAnnouncer(redis, redisPrefix, logger),
  });
  if (redis) hearSettlements(redis, redisPrefix, (intentId) => paymentCore.heardSettled(intentId));
  const orders: OrdersDeps = {
    db, paymentCore, outbox: deps.outbox, logger, site, shopifyWriteBacks: deps.shopifyWriteBacks,
    shippingFlatRateCents: config.shippingFlatRateCents,
    // E-mails are written without a request at hand (the webhook may confirm the payment): PUBLIC_URL names the site.
    publicUrl: config.publicUrl ?? `http://localhost:${config.port}`,
  };
  registerOrderPayments(orders);
  const settleCart = settlePaidCheckout(orders);
  const pages: PageContextOptions = { site, assets, publicUrl: config.publicUrl, testMode: !config.stripe, csrf, pageCache, settleCart };
  const registrations: RegistrationDeps = {
    db, paymentCore, outbox: deps.outbox, logger, site, limits: config.registrationLimits, clock: now, publicUrl: orders.publicUrl,
  };
  registerRegistrationWingPayments(registrations);
  const waitingList: WaitingListDeps = { ...registrations, offerHours: config.waitingListOfferHours, publicUrl: orders.publicUrl };
  const offerQueue = createOfferQueue(waitingList, config.waitingListJobIntervalMs);
  const coaches = coachRequestRoutes({
    db,
    site,
    outbox: deps.outbox,
    brandInbox: config.mail.brandInbox,
    rateLimiter,
    csrf,
    now,
  });
  // Another process's change of events (an operator's command) empties this instance's kept events and pages first:
  // heard over Redis, or read at most every 250 ms without it (src/events/version.ts).
  const eventsVersion = watchEventsVersion({
    db, redis, prefix: config.redis?.prefix, stale: () => {
      eventCaches(db).events.invalidate();
      pageCache.clear();
    },
  });
  const sessionStore = createSessionStore(redis, redisPrefix, logger);
  const app = express();
  app.locals.eventsVersion = eventsVersion;
  // Prometheus metrics of this instance (src/metrics/); server.ts serves them on METRICS_PORT, never on the site's port.
  const metrics = instrument({ db, redis, now });
  app.locals.metrics = metrics;
  // The periodic sweep of lapsed holds; server.ts runs it on a timer, tests call it directly.
  app.locals.sweepExpiredHolds = recordedJob(db, "sweep", () => sweepLapsedHolds(registrations));
  // The families' reminders before each event's freeze date (src/registrations/changes/reminders.ts); server.ts runs it with the sweep.
  app.locals.sendFreezeReminders = recordedJob(db, "freeze_reminders", () => sendFreezeReminders(registrations));
  // Deposit balances: reminders, charges on the due date, grace releases (src/registrations/balances/job.ts); server.ts runs it each minute.
  app.locals.runBalanceJob = recordedJob(db, "balance", () => runBalanceJob(registrations));
  // Payments of every kind still open minutes after their card form: Stripe is asked, as the webhook would tell.
  app.locals.reconcilePayments = recordedJob(db, "reconciliation", async () => {
    const settled = await reconcileOpenPayments({ db, paymentCore, logger });
    metrics.money.reconciliationSettled.inc(settled);
    return settled;
  });
  // Waiting-list offer rounds: server.ts starts the queue and asks each minute for rounds due; tests drain it.
  app.locals.offerQueue = offerQueue;
  app.locals.askForOfferRounds = recordedJob(db, "waiting_list_rounds", () => askForDueRounds(waitingList));
  // Requested refunds are sent to Stripe by this queue; server.ts starts it, tests drain it.
  app.locals.refundJobs = paymentCore.refundJobs;

  app.disable("x-powered-by");
  // Pages carry their visitor's own token, and hashing each body for an ETag costs a kept page a tenth of its time;
  // built files keep the static server's own validators.
  app.set("etag", false);
  app.set("trust proxy", config.trustProxyHops);
  app.set("query parser", "extended");

  // 1. request metrics (route patterns only), request logs (no cookies, hashed session ids)
  app.use(httpMetrics(metrics));
  app.use(
    pinoHttp({
      logger,
      autoLogging: { ignore: (req) => req.url === "/healthz" || req.url?.startsWith("/build/") === true },
      serializers: {
        res: (res: { statusCode: number }) => ({ statusCode: res.statusCode }),
        req: (req: { method: string; url: string; raw?: { sessionID?: string } }) => ({
          method: req.method,
          url: urlForLog(req.url),
          session: req.raw?.sessionID ? hashForLog(req.raw.sessionID) : undefined,
        }),
      },
    }),
  );

  // 2. security headers; a kept page for a visitor without a session cookie, answered before anything it does not need
  // (query log, compression: it comes gzipped from its kept parts, body parsers, session, page context)
  app.use(securityHeaders(config.https));
  app.use(noCookieOnPublicResponses);
  const storeReady = sessionStoreReady(sessionStore);
  app.use(pageCache.serveBeforeSession({ sessionCookie: SESSION_COOKIE, sessionStoreReady: storeReady, beforeServing: eventsVersion.check }));
  // The cart page of a visitor with a session, from its kept copy with the session only read (no express-session).
  const cartPage: CartPageDeps = { catalogue: deps.catalogue, gateway: deps.gateway, shippingFlatRateCents: config.shippingFlatRateCents };
  app.get("/cart", eventsVersion.check, keptCartPage({ page: cartPage, pages, storedSession: storedSessionReader(config, sessionStore, storeReady) }));

  // A request that took a contended row lock logs its queries and lock times; development also each request's
  // number of queries (debug), and a warning for a query it runs twice.
  countRequestQueries(db);
  app.use(queryLog({ development: config.env === "development" }));
  // Public JSON that reads no session: answered (and kept like the event's page) before compression, bodies and session.
  app.use(eventApiRoutes({ db, now, pageCache, checkVersion: eventsVersion.check }));

  // 3. compression (pages and JSON; brotli at quality 4, gzip 6; built assets come precompressed), static files, health
  app.use(compression({ threshold: 1024 }));
  app.use(staticFiles(config.isProduction));
  app.use(healthRoutes(db, redis, config.isProduction ? deps.gateway : undefined));
  if (config.applePayDomainFile) app.use(applePayDomainRoutes(config.applePayDomainFile));
  app.use(crawlerRoutes({ db, catalogue: deps.catalogue, publicUrl: config.publicUrl, logger }));

  // 4. raw-body routes that must not meet the session or CSRF (the Stripe webhook) go here
  app.use(stripeWebhookRoutes({ db, paymentCore, logger, waitMs: config.webhookWaitMs }));
  if (deps.gateway.offline && !config.isProduction) app.use(offlineStripeRoutes(deps.gateway.offline));

  // 5. bodies, session, page context (the error page needs it), same-origin check, CSRF
  app.use(express.json({ limit: "100kb" }));
  app.use(express.urlencoded({ extended: true, limit: "100kb", parameterLimit: 500 }));
  app.use(sessionMiddleware(config, sessionStore));
  app.use(pageContext(pages));
  app.use(sameOriginOnly(config.publicUrl));
  app.use(requireSessionForWrites);
  // The one multipart body (a coach's school logo, in memory) is parsed here, so the CSRF check can read its `_csrf`.
  app.use(coaches.beforeCsrf);
  app.use(csrf.protect);
  app.use(eventsVersion.check);
  app.use(pageCache.serve);

  // 6. features
  const forms = messageForms({ db, outbox: deps.outbox, brandInbox: config.mail.brandInbox, rateLimiter });
  app.use(homeRoutes({ site, db, forms, now }));
  app.use(customApparelRoutes({ forms }));
  app.use(policyRoutes({ site, flatRateCents: config.shippingFlatRateCents, brandInbox: config.mail.brandInbox }));
  app.use(contactRoutes({ site, forms }));
  app.use(eventRoutes({ db, site, heroVideoUrl: config.eventsHeroVideoUrl, now }));
  app.use(registrationRoutes({ ...waitingList, rateLimiter, paymentLimit }));
  app.use(coaches.routes);
  app.use(shopRoutes({ catalogue: deps.catalogue, site, logger, paymentConfirmation: justPaidPanel(orders) }));
  app.use(orderRoutes(orders));
  app.use(cartRoutes({ page: cartPage, rateLimiter, settlePaidCheckout: settleCart }));
  app.use(checkoutRoutes({ orders, cartPage, rateLimiter, paymentLimit }));
  if (config.testRoutes) app.use("/__test", testRoutes({ rateLimiter }));

  // 7. not found, errors
  app.use(notFound());
  app.use(errorHandler(logger, pages));
  return app;
}
