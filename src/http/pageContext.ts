import type { Request, RequestHandler, Response } from "express";
import "./sessionData.ts";
import type { Site } from "../shared/site.ts";
import type { Assets } from "./assets.ts";
import type { PageContext } from "./render.tsx";
import type { ToastMessage } from "../../views/components/Toast.tsx";
import type { Csrf } from "./csrf.ts";
import { randomBytes } from "node:crypto";
import { isStateless, type PageCache } from "./pageCache.ts";
import { CSRF_PLACEHOLDER, FORM_ID_PLACEHOLDER } from "./placeholders.ts";

export const SESSION_DOWN_NOTICE =
  "Your cart and registrations in progress are temporarily unavailable. Browsing works; please try again in a minute to buy or register.";

export function sessionCartCount(req: Request): number {
  return (req.session?.cart?.items ?? []).reduce((sum, item) => sum + item.quantity, 0);
}

/** Queues a toast for the next rendered page (the no-JavaScript path of the toast mechanism). */
export function flashToast(req: Request, toast: ToastMessage): void {
  if (req.session) req.session.toast = toast;
}

/** A form posted without JavaScript was sent: the next page that shows it shows its confirmation instead. */
export function markFormSent(req: Request, formId: string): void {
  if (req.session) req.session.sentForms = { ...req.session.sentForms, [formId]: true };
}

/** Whether the form was just sent; the flag is consumed. */
export function takeFormSent(req: Request, formId: string): boolean {
  const sent = req.session?.sentForms?.[formId] === true;
  if (sent) {
    const rest = { ...req.session.sentForms };
    delete rest[formId];
    req.session.sentForms = rest;
  }
  return sent;
}

export interface PageContextOptions {
  site: Site;
  assets: Assets;
  publicUrl: string | undefined;
  testMode: boolean;
  csrf: Csrf;
  pageCache: PageCache;
  /** Brings the session cart up to date before the header counts it (orders/settlement.ts settlePaidCheckout). */
  settleCart?: (req: Request, res: Response) => Promise<void>;
}

/** What every page needs (shell props, CSRF token, assets); the session notice shows when the session store is down. */
export function buildPageContext(req: Request, res: Response, opts: PageContextOptions, { sessionNotice }: { sessionNotice: boolean }): PageContext {
  const hasSession = Boolean(req.session);
  // Pages for a visitor without state, and pages kept under a key (fromKeptPage), are rendered with placeholders.
  let placeholder = isStateless(req);
  const ctx: PageContext = {
    shell: {
      site: opts.site,
      cartCount: sessionCartCount(req),
      notices: sessionNotice && !hasSession ? [SESSION_DOWN_NOTICE] : [],
      testModeBanner: opts.testMode,
    },
    csrfToken: "",
    visitorCsrfToken: () => "",
    newFormId: () => "",
    // Only a page rendered with the placeholder: one rendered while the session held a toast carries the visitor's own
    // token (and the toast), even though taking the toast left the session stateless again.
    keepPage: (html) => {
      if (!placeholder) return;
      if (ctx.pageKey === undefined) opts.pageCache.keep(req, res, html);
      else opts.pageCache.keepAs(req, res, ctx.pageKey, html);
    },
    fromKeptPage: (key) => {
      if (req.session?.toast) return false;
      const fullKey = JSON.stringify([ctx.shell.cartCount, ctx.shell.notices, ctx.shell.testModeBanner, key]);
      if (opts.pageCache.answerKept(req, res, fullKey)) return true;
      ctx.pageKey = fullKey;
      placeholder = true;
      return false;
    },
    pageKey: undefined,
    assets: opts.assets,
    publicUrl: opts.publicUrl,
    takeToast: () => {
      const toast = req.session?.toast;
      if (toast) delete req.session.toast;
      return toast;
    },
  };
  // Made when a page or form first needs it: an API answer that renders nothing sets no cookie. A visitor without
  // state is shown a placeholder, which renderPage replaces, so that the page can be kept for the next one.
  let token: string | undefined;
  ctx.visitorCsrfToken = () => (token ??= opts.csrf.token(req, res));
  ctx.newFormId = () => (placeholder ? FORM_ID_PLACEHOLDER : randomBytes(16).toString("base64url"));
  Object.defineProperty(ctx, "csrfToken", {
    get: () => (placeholder ? CSRF_PLACEHOLDER : ctx.visitorCsrfToken()),
    enumerable: true,
  });
  return ctx;
}

/** Builds the page context once per request; a page (GET) of a session with a pending checkout settles it first. */
export function pageContext(opts: PageContextOptions): RequestHandler {
  return async (req, res, next) => {
    if (opts.settleCart && req.method === "GET" && req.session?.checkout) await opts.settleCart(req, res);
    res.locals.page = buildPageContext(req, res, opts, { sessionNotice: true });
    next();
  };
}
