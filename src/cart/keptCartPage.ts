import type { RequestHandler } from "express";
import { buildPageContext, type PageContextOptions } from "../http/pageContext.ts";
import { isStateless } from "../http/pageCache.ts";
import { cartStateKey, readCart } from "./cart.ts";
import type { CartPageDeps } from "./page.tsx";

/**
 * The cart page of a visitor with a session, answered from its kept copy right after the session is read (mounted
 * before the body parsers, compression, the other routes and the page context): the same key and the same answer as
 * `GET /cart` below gives, without what that page never needs. Anything else goes on to the route: a session whose
 * checkout the page context settles first, a visitor without state (answered from the kept pages before the
 * session), no session (the store is down: the page shows its notice), a copy not kept yet.
 */
export function keptCartPage(deps: { page: CartPageDeps; pages: PageContextOptions }): RequestHandler {
  return async (req, res, next) => {
    if (!req.session || req.session.checkout || isStateless(req)) return next();
    // A catalogue that fails here fails the route the same way, after the page context its error page needs.
    const key = await cartStateKey(deps.page.catalogue, readCart(req)).catch(() => undefined);
    if (key !== undefined && buildPageContext(req, res, deps.pages, { sessionNotice: true }).fromKeptPage(key)) return;
    next();
  };
}
