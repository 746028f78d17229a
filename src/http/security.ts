import type { RequestHandler } from "express";
import helmet from "helmet";

const STRIPE_SCRIPT = ["https://js.stripe.com", "https://*.js.stripe.com"];
const STRIPE_FRAMES = ["https://js.stripe.com", "https://*.js.stripe.com", "https://hooks.stripe.com"];

/** helmet with a strict CSP: our own origin only, plus Stripe's domains for card entry. */
export function securityHeaders(https: boolean): RequestHandler {
  return helmet({
    contentSecurityPolicy: {
      useDefaults: false,
      directives: {
        defaultSrc: ["'self'"],
        baseUri: ["'self'"],
        scriptSrc: ["'self'", ...STRIPE_SCRIPT],
        styleSrc: ["'self'"],
        // React style attributes (progress bars, colour swatches) only; no inline <style> or script.
        styleSrcAttr: ["'unsafe-inline'"],
        imgSrc: ["'self'", "data:", "https://*.stripe.com", "https://cdn.shopify.com"],
        mediaSrc: ["'self'", "https:"],
        fontSrc: ["'self'"],
        connectSrc: ["'self'", "https://api.stripe.com"],
        frameSrc: STRIPE_FRAMES,
        formAction: ["'self'"],
        frameAncestors: ["'none'"],
        objectSrc: ["'none'"],
        ...(https ? { upgradeInsecureRequests: [] } : {}),
      },
    },
    strictTransportSecurity: https ? { maxAge: 31536000, includeSubDomains: true } : false,
    crossOriginEmbedderPolicy: false,
    // Matches frame-ancestors 'none' for browsers that only read the older header.
    xFrameOptions: { action: "deny" },
    referrerPolicy: { policy: "strict-origin-when-cross-origin" },
  });
}

const SAFE = new Set(["GET", "HEAD", "OPTIONS"]);

export class ForbiddenOriginError extends Error {
  readonly status = 403;
  readonly expose = true;
}

/**
 * Second line behind the CSRF token: an unsafe request from another site is refused.
 * Browsers send Sec-Fetch-Site and/or Origin; requests without either (curl, server-to-server) rely on the token.
 */
export function sameOriginOnly(publicUrl: string | undefined): RequestHandler {
  const allowed = publicUrl ? new URL(publicUrl).host : undefined;
  return (req, _res, next) => {
    if (SAFE.has(req.method)) return next();
    const site = req.get("sec-fetch-site");
    if (site && site !== "same-origin" && site !== "none") {
      return next(new ForbiddenOriginError("Cross-site request refused"));
    }
    const origin = req.get("origin");
    if (origin && origin !== "null") {
      let host: string;
      try {
        host = new URL(origin).host;
      } catch {
        return next(new ForbiddenOriginError("Cross-site request refused"));
      }
      if (host !== req.get("host") && host !== allowed) return next(new ForbiddenOriginError("Cross-site request refused"));
    } else if (origin === "null") {
      return next(new ForbiddenOriginError("Cross-site request refused"));
    }
    next();
  };
}
