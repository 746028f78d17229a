import { randomBytes } from "node:crypto";
import type { Request, RequestHandler, Response } from "express";
import type { PageContext } from "./render.tsx";

/**
 * Rendered pages kept in process for a few seconds and served to visitors without state: no cart, no checkout,
 * no toast, no kept form values, so every one of them is shown the same page. Rendering a page costs far more
 * than sending it. The visitor's CSRF token and a registration form's id are the parts that differ: pages rendered
 * for such a visitor carry placeholders, replaced on the way out by the visitor's own token and a new form id, so a
 * kept page never holds anyone's token and no two visitors are given one form.
 * Several instances each keep their own copies; a change made through one of them is seen by the others within
 * the time a page is kept.
 */
export interface PageCache {
  /** Answers a stateless visitor's GET from a fresh copy, or lets the route render it (after the page context). */
  serve: RequestHandler;
  /** Keeps a page a route marked as the same for every stateless visitor (its HTML still holds the placeholder). */
  keep(req: Request, res: Response, html: string): void;
  /** Forgets every page: called after a write that pages show (places, prices, products). */
  clear(): void;
}

/** Per process, so no page or request can know it in advance. */
export const CSRF_PLACEHOLDER = `csrf-placeholder-${randomBytes(16).toString("hex")}`;
/**
 * A registration form's id (it ties the form to the registration it holds) rendered into a page kept for visitors
 * without state: each response gets its own new id in its place, so two families served one kept page never share one.
 */
export const FORM_ID_PLACEHOLDER = `formid${randomBytes(16).toString("hex")}`;

const SAFE = new Set(["GET", "HEAD"]);

/** A visitor with nothing kept: a session object that was never stored (or only its cookie) and a store that is up. */
export function isStateless(req: Request): boolean {
  if (!SAFE.has(req.method) || !req.session) return false;
  return Object.keys(req.session).every((key) => key === "cookie");
}

/** A page's HTML for this visitor: the placeholders replaced by their CSRF token (made, with its cookie, only if needed) and a new form id. */
export function withVisitorToken(html: string, token: () => string): string {
  const withToken = html.includes(CSRF_PLACEHOLDER) ? html.replaceAll(CSRF_PLACEHOLDER, token()) : html;
  return withToken.includes(FORM_ID_PLACEHOLDER) ? withToken.replaceAll(FORM_ID_PLACEHOLDER, randomBytes(16).toString("base64url")) : withToken;
}

const keyOf = (req: Request) => `${req.protocol}://${req.get("host") ?? ""}${req.originalUrl}`;

export function createPageCache({ ttlMs, maxPages = 500 }: { ttlMs: number; maxPages?: number }): PageCache {
  // A route's own Cache-Control (registration pages: no-store) goes with its page; the rest is set on every request.
  const pages = new Map<string, { html: string; cacheControl: string | undefined; rendered: number; expires: number }>();
  return {
    serve: (req, res, next) => {
      if (ttlMs <= 0 || !isStateless(req)) return next();
      const key = keyOf(req);
      const page = pages.get(key);
      if (!page) return next();
      if (page.expires <= Date.now()) {
        pages.delete(key);
        return next();
      }
      if (page.cacheControl) res.set("cache-control", page.cacheControl);
      // As any HTTP cache answers a kept response: its age in seconds (and a sign, for tests and operators, of a hit).
      res.set("age", String(Math.floor((Date.now() - page.rendered) / 1000)));
      res.status(200).type("html").send(withVisitorToken(page.html, (res.locals.page as PageContext).visitorCsrfToken));
    },
    keep: (req, res, html) => {
      if (ttlMs <= 0 || !isStateless(req)) return;
      const key = keyOf(req);
      const cacheControl = res.getHeader("cache-control");
      pages.delete(key);
      const rendered = Date.now();
      pages.set(key, { html, cacheControl: typeof cacheControl === "string" ? cacheControl : undefined, rendered, expires: rendered + ttlMs });
      // Oldest first: a crawler's endless query strings push out old pages, never grow the process.
      for (const oldest of pages.keys()) {
        if (pages.size <= maxPages) break;
        pages.delete(oldest);
      }
    },
    clear: () => pages.clear(),
  };
}
