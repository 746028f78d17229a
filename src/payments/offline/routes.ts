import fs from "node:fs";
import path from "node:path";
import express, { Router, type Request } from "express";
import { loadAssets, publicDirectory } from "../../http/assets.ts";
import type { FakeStripe } from "./fakeStripeServer.ts";

const LOOPBACK = /^(127\.\d+\.\d+\.\d+|::1|::ffff:127\.\d+\.\d+\.\d+)$/;

/** A visitor on this machine (the address Express trusts, so a forwarded header cannot fake it behind 0 proxies). */
export function fromThisMachine(req: Request): boolean {
  return LOOPBACK.test(req.ip ?? "");
}

/**
 * Offline test mode on a development machine only (app.ts never mounts it in production; the config refuses
 * offline mode there): the fake Stripe.js, and the API calls it makes (retrieve, confirm, the 3-D Secure challenge of a
 * PaymentIntent or a SetupIntent), passed through to the in-process
 * fake. Mounted before the session and CSRF, like Stripe's own API is another origin. Requests from other
 * machines get a 404, so a preview reachable from the internet cannot drive the fake: it must use Stripe test keys.
 */
export function offlineStripeRoutes(fake: FakeStripe): Router {
  const router = Router();
  router.use("/__offline-stripe", (req, res, next) => {
    if (fromThisMachine(req)) return next();
    res.status(404).json({ error: { type: "invalid_request_error", message: "The offline Stripe test mode only answers this machine." } });
  });

  router.get("/__offline-stripe/stripe.js", (_req, res) => {
    const url = loadAssets().entry("fakeStripeJs.js")[0]!;
    const file = path.join(publicDirectory, url);
    if (!fs.existsSync(file)) {
      res.status(503).type("text").send("// The offline Stripe.js is not built: run npm run build");
      return;
    }
    res.type("application/javascript").set("cache-control", "no-cache").sendFile(file);
  });

  const pass = express.raw({ type: "*/*", limit: "20kb" });
  // Not the form kit: Stripe's own API, passed raw to the offline fake, which answers as Stripe does.
  router.all(/^\/__offline-stripe(\/v1\/(?:payment_intents|setup_intents)\/[A-Za-z0-9_]+(?:\/confirm|\/challenge)?)$/, pass, async (req, res) => {
    if (req.method !== "GET" && req.method !== "POST") {
      res.status(405).json({ error: { type: "invalid_request_error", message: "Method not allowed" } });
      return;
    }
    const target = `http://${fake.host}:${fake.port}${req.params[0]}${req.method === "GET" ? req.url.slice(req.path.length) : ""}`;
    const upstream = await fetch(target, {
      method: req.method,
      headers: { "content-type": req.get("content-type") ?? "application/x-www-form-urlencoded" },
      body: req.method === "POST" && Buffer.isBuffer(req.body) ? new Uint8Array(req.body) : undefined,
    });
    res.status(upstream.status).type("application/json").send(await upstream.text());
  });
  return router;
}
