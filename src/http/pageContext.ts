import type { Request, RequestHandler } from "express";
import "./sessionData.ts";
import type { Site } from "../site.ts";
import type { Assets } from "./assets.ts";
import type { PageContext } from "./render.tsx";
import type { ToastMessage } from "../../views/components/Toast.tsx";
import { generateCsrfToken } from "./security.ts";

export const SESSION_DOWN_NOTICE =
  "Your cart and registrations in progress are temporarily unavailable. Browsing works; please try again in a minute to buy or register.";

export function sessionCartCount(req: Request): number {
  return (req.session?.cart?.items ?? []).reduce((sum, item) => sum + item.quantity, 0);
}

/** Queues a toast for the next rendered page (the no-JavaScript path of the toast mechanism). */
export function flashToast(req: Request, toast: ToastMessage): void {
  if (req.session) req.session.toast = toast;
}

/** Builds what every page needs (shell props, CSRF token, assets) once per request. */
export function pageContext(opts: { site: Site; assets: Assets; publicUrl: string | undefined; testMode: boolean }): RequestHandler {
  return (req, res, next) => {
    const hasSession = Boolean(req.session);
    const ctx: PageContext = {
      shell: {
        site: opts.site,
        cartCount: sessionCartCount(req),
        notices: hasSession ? [] : [SESSION_DOWN_NOTICE],
        testModeBanner: opts.testMode,
      },
      csrfToken: hasSession ? generateCsrfToken(req) : "",
      assets: opts.assets,
      publicUrl: opts.publicUrl,
      takeToast: () => {
        const toast = req.session?.toast;
        if (toast) delete req.session.toast;
        return toast;
      },
    };
    res.locals.page = ctx;
    next();
  };
}
