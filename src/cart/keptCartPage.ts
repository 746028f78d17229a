import type { RequestHandler } from "express";
import type { Session } from "express-session";
import { buildPageContext, type PageContextOptions } from "../http/pageContext.ts";
import { isStateless } from "../http/pageCache.ts";
import type { StoredSession } from "../http/session.ts";
import { cartStateKey, readCart } from "./cart.ts";
import type { CartPageDeps } from "./page.tsx";

/**
 * The cart page of a visitor with a session, answered from its kept copy with the session only read (mounted
 * before the body parsers, compression, express-session, the other routes and the page context): the same key and
 * the same answer as `GET /cart` below gives, without what that page never needs. The session is read as stored
 * (`storedSessionReader`) and nothing in it changes, so nothing is written back. Anything else goes on, with no
 * trace of it, to express-session and the route: a session whose checkout the page context settles first, one with
 * a toast to show, a visitor without state (answered from the kept pages before the session), no session (the
 * store is down: the page shows its notice), a copy not kept yet.
 */
export function keptCartPage(deps: { page: CartPageDeps; pages: PageContextOptions; storedSession: (req: Parameters<RequestHandler>[0]) => Promise<StoredSession | undefined> }): RequestHandler {
  return async (req, res, next) => {
    const stored = await deps.storedSession(req);
    if (!stored || stored.checkout) return next();
    // Lent to what reads req.session (the cart, the header's count, the toast); taken back if the route answers.
    req.session = stored as StoredSession & Session;
    req.sessionID = stored.id;
    if (!isStateless(req)) {
      // A catalogue that fails here fails the route the same way, after the page context its error page needs.
      const key = await cartStateKey(deps.page.catalogue, readCart(req)).catch(() => undefined);
      if (key !== undefined && buildPageContext(req, res, deps.pages, { sessionNotice: true }).fromKeptPage(key)) return;
    }
    delete (req as { session?: unknown }).session;
    delete (req as { sessionID?: unknown }).sessionID;
    next();
  };
}
