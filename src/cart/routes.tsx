import { Router, type Request, type RequestHandler, type Response } from "express";
import { sendInvalid } from "../http/forms.ts";
import { validate } from "../shared/forms.ts";
import { flashToast } from "../http/pageContext.ts";
import { domainErrorStatus } from "../http/errors.ts";
import type { PageContext } from "../http/render.tsx";
import { DomainError } from "../errors.ts";
import { refererPath } from "../http/redirects.ts";
import type { RateLimiterFactory } from "../http/rateLimit.ts";
import { acceptPrice, removeItem, updateQuantity, type SessionCartItem } from "../shared/cart/rules.ts";
import { addToCart, cartJson, cartStateKey, checkQuantity, currentPriceCents, readCart, viewCart, writeCart } from "./cart.ts";
import type { CartView } from "../shared/cart/rules.ts";
import { renderCartPage, type CartPageDeps } from "./page.tsx";
import { AddItemForm, AddItemJson, QuantityForm, UpdateItemJson } from "../shared/cart/schemas.ts";
import { CART_ERRORS, CART_MESSAGES, CART_TEXT } from "../shared/cart/texts.ts";


/** Adds to the cart per address and minute (the JSON API and the plain form together). */
export const CART_ADD_LIMIT_PER_MINUTE = 120;

const lineNotFound = () => new DomainError("not_found", CART_ERRORS.itemGone);


/**
 * The session cart: its page and its API. `settlePaidCheckout` (from orders/) runs before the cart is read, so a
 * checkout paid meanwhile has left it.
 */
export function cartRoutes(deps: { page: CartPageDeps; rateLimiter: RateLimiterFactory; settlePaidCheckout: (req: Request, res: Response) => Promise<void> }): Router {
  const { page } = deps;
  const { catalogue } = page;
  const router = Router();
  const addLimit = deps.rateLimiter({ name: "cart-add", windowMs: 60_000, limit: CART_ADD_LIMIT_PER_MINUTE });

  async function settledCart(req: Request, res: Response): Promise<SessionCartItem[]> {
    await deps.settlePaidCheckout(req, res);
    return readCart(req);
  }

  async function currentView(req: Request, res: Response): Promise<CartView> {
    return viewCart(catalogue, await settledCart(req, res));
  }

  function findLine(items: SessionCartItem[], id: string): SessionCartItem {
    const line = items.find((i) => i.id === id);
    if (!line) throw lineNotFound();
    return line;
  }

  // ---------- pages and form posts (no JavaScript) ----------

  // The page shows the cart's lines with the catalogue's products as they are now, and nothing else of the
  // visitor's (the checkout form is empty; a toast is never kept): kept under exactly that, it is answered without
  // rendering until a line or a product changes. Posted form values (POST /cart/checkout) are never kept.
  router.get("/cart", async (req, res) => {
    const items = await settledCart(req, res);
    if ((res.locals.page as PageContext).fromKeptPage(await cartStateKey(catalogue, items))) return;
    renderCartPage(page, req, res, await viewCart(catalogue, items));
  });

  /** Runs a cart change from a plain form: a toast for the next page, then 303 back. */
  function formAction(run: (req: Request, res: Response) => Promise<{ title: string; description: string } | null>, failure: { title: string; description: string }, fallback?: (req: Request) => string): RequestHandler {
    return async (req, res) => {
      const back = fallback ? fallback(req) : refererPath(req, "/cart");
      try {
        const toast = await run(req, res);
        if (toast) flashToast(req, { ...toast, variant: "success" });
      } catch (err) {
        if (!(err instanceof DomainError) || domainErrorStatus(err) >= 500) throw err;
        flashToast(req, { title: failure.title, description: err.message || failure.description, variant: "destructive" });
      }
      res.redirect(303, back);
    };
  }

  router.post(
    "/cart/add",
    addLimit,
    formAction(async (req) => {
      const parsed = validate(AddItemForm, req.body ?? {});
      if (!parsed.ok) throw new DomainError("invalid", parsed.message);
      const { product } = await addToCart(req, catalogue, parsed.data);
      return { title: CART_MESSAGES.addedTitle, description: `${product.title} added to cart!` };
    }, CART_MESSAGES.failed),
  );

  router.post(
    "/cart/items/:id/update",
    formAction(async (req) => {
      const parsed = validate(QuantityForm, req.body ?? {});
      if (!parsed.ok) throw new DomainError("invalid", parsed.message);
      const items = readCart(req);
      const line = findLine(items, String(req.params.id));
      if (parsed.data.quantity <= 0) {
        writeCart(req, removeItem(items, line.id));
        return CART_TEXT.removed;
      }
      await checkQuantity(catalogue, line, parsed.data.quantity);
      writeCart(req, updateQuantity(items, line.id, parsed.data.quantity, Date.now()));
      return null;
    }, CART_TEXT.updateFailed, () => "/cart"),
  );

  router.post(
    "/cart/items/:id/remove",
    formAction(async (req) => {
      const items = readCart(req);
      const line = findLine(items, String(req.params.id));
      writeCart(req, removeItem(items, line.id));
      return CART_TEXT.removed;
    }, CART_TEXT.removeFailed, () => "/cart"),
  );

  router.post(
    "/cart/items/:id/accept-price",
    formAction(async (req) => {
      const items = readCart(req);
      const line = findLine(items, String(req.params.id));
      writeCart(req, acceptPrice(items, line.id, await currentPriceCents(catalogue, line), Date.now()));
      return null;
    }, CART_TEXT.updateFailed, () => "/cart"),
  );

  router.post(
    "/cart/clear",
    formAction(async (req) => {
      writeCart(req, []);
      return null;
    }, CART_TEXT.updateFailed, () => "/cart"),
  );

  // ---------- JSON API ----------

  router.get("/api/cart", async (req, res) => {
    res.json(cartJson(await currentView(req, res)));
  });

  router.post("/api/cart/add", addLimit, async (req, res) => {
    const parsed = validate(AddItemJson, req.body ?? {});
    if (!parsed.ok) return sendInvalid(res, parsed);
    await settledCart(req, res);
    const { shopifyProductId: productId, shopifyVariantId: variantId, quantity, selectedSize } = parsed.data;
    const { items } = await addToCart(req, catalogue, { productId, variantId, quantity, selectedSize });
    const view = await viewCart(catalogue, items);
    const latest = items.reduce<SessionCartItem | undefined>((a, b) => (!a || b.updatedAt >= a.updatedAt ? b : a), undefined);
    res.json({ ...cartJson(view), item: view.items.find((l) => l.id === latest?.id) ?? null });
  });

  router.patch("/api/cart/items/:id", async (req, res) => {
    const parsed = validate(UpdateItemJson, req.body ?? {});
    if (!parsed.ok) return sendInvalid(res, parsed);
    const items = await settledCart(req, res);
    const line = findLine(items, String(req.params.id));
    let next: SessionCartItem[];
    if ("acceptPrice" in parsed.data) {
      next = acceptPrice(items, line.id, await currentPriceCents(catalogue, line), Date.now());
    } else {
      if (parsed.data.quantity > 0) await checkQuantity(catalogue, line, parsed.data.quantity);
      next = updateQuantity(items, line.id, parsed.data.quantity, Date.now());
    }
    writeCart(req, next);
    res.json(cartJson(await viewCart(catalogue, next)));
  });

  router.delete("/api/cart/items/:id", async (req, res) => {
    const items = await settledCart(req, res);
    const line = findLine(items, String(req.params.id));
    const next = removeItem(items, line.id);
    writeCart(req, next);
    res.json(cartJson(await viewCart(catalogue, next)));
  });

  router.delete("/api/cart", async (req, res) => {
    writeCart(req, []);
    res.json(cartJson(await viewCart(catalogue, [])));
  });

  return router;
}
