import { Router, type Request, type Response } from "express";
import { formError, formPost, jsonPost, toastBack } from "../http/forms.ts";
import type { PageContext } from "../http/render.tsx";
import { isStateless } from "../http/pageCache.ts";
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
  // A visitor without state (an empty cart, nothing else kept) is shown the page every such visitor is: kept like the
  // other pages, it is answered before the session (renderCartPage marks an empty cart's page so).
  router.get("/cart", async (req, res) => {
    const items = await settledCart(req, res);
    if (!isStateless(req) && (res.locals.page as PageContext).fromKeptPage(await cartStateKey(catalogue, items))) return;
    renderCartPage(page, req, res, await viewCart(catalogue, items));
  });

  // A cart button without JavaScript: a toast on the page it came back to, the error's message when refused.
  const back = (req: Request) => refererPath(req, "/cart");
  const toCart = () => "/cart";

  router.post(
    "/cart/add",
    addLimit,
    formPost({
      check: AddItemForm,
      page: toastBack(CART_MESSAGES.failed.title, back),
      refused: formError,
      run: async (req, _res, item) => {
        const { product } = await addToCart(req, catalogue, item);
        return { redirect: back(req), toast: { title: CART_MESSAGES.addedTitle, description: `${product.title} added to cart!`, variant: "success" } };
      },
    }),
  );

  router.post(
    "/cart/items/:id/update",
    formPost({
      check: QuantityForm,
      page: toastBack(CART_TEXT.updateFailed.title, toCart),
      refused: formError,
      run: async (req, _res, { quantity }) => {
        const items = readCart(req);
        const line = findLine(items, String(req.params.id));
        if (quantity <= 0) {
          writeCart(req, removeItem(items, line.id));
          return { redirect: "/cart", toast: { ...CART_TEXT.removed, variant: "success" } };
        }
        await checkQuantity(catalogue, line, quantity);
        writeCart(req, updateQuantity(items, line.id, quantity, Date.now()));
        return { redirect: "/cart" };
      },
    }),
  );

  router.post(
    "/cart/items/:id/remove",
    formPost({
      page: toastBack(CART_TEXT.removeFailed.title, toCart),
      refused: formError,
      run: async (req) => {
        const items = readCart(req);
        writeCart(req, removeItem(items, findLine(items, String(req.params.id)).id));
        return { redirect: "/cart", toast: { ...CART_TEXT.removed, variant: "success" } };
      },
    }),
  );

  router.post(
    "/cart/items/:id/accept-price",
    formPost({
      page: toastBack(CART_TEXT.updateFailed.title, toCart),
      refused: formError,
      run: async (req) => {
        const items = readCart(req);
        const line = findLine(items, String(req.params.id));
        writeCart(req, acceptPrice(items, line.id, await currentPriceCents(catalogue, line), Date.now()));
        return { redirect: "/cart" };
      },
    }),
  );

  router.post(
    "/cart/clear",
    formPost({
      run: async (req) => {
        writeCart(req, []);
        return { redirect: "/cart" };
      },
    }),
  );

  // ---------- JSON API ----------

  router.get("/api/cart", async (req, res) => {
    res.json(cartJson(await currentView(req, res)));
  });

  router.post(
    "/api/cart/add",
    addLimit,
    jsonPost({
      check: AddItemJson,
      run: async (req, res, { shopifyProductId: productId, shopifyVariantId: variantId, quantity, selectedSize }) => {
        await settledCart(req, res);
        const { items } = await addToCart(req, catalogue, { productId, variantId, quantity, selectedSize });
        const view = await viewCart(catalogue, items);
        const latest = items.reduce<SessionCartItem | undefined>((a, b) => (!a || b.updatedAt >= a.updatedAt ? b : a), undefined);
        return { json: { ...cartJson(view), item: view.items.find((l) => l.id === latest?.id) ?? null } };
      },
    }),
  );

  router.patch(
    "/api/cart/items/:id",
    jsonPost({
      check: UpdateItemJson,
      run: async (req, res, change) => {
        const items = await settledCart(req, res);
        const line = findLine(items, String(req.params.id));
        let next: SessionCartItem[];
        if ("acceptPrice" in change) {
          next = acceptPrice(items, line.id, await currentPriceCents(catalogue, line), Date.now());
        } else {
          if (change.quantity > 0) await checkQuantity(catalogue, line, change.quantity);
          next = updateQuantity(items, line.id, change.quantity, Date.now());
        }
        writeCart(req, next);
        return { json: cartJson(await viewCart(catalogue, next)) };
      },
    }),
  );

  router.delete(
    "/api/cart/items/:id",
    jsonPost({
      run: async (req, res) => {
        const items = await settledCart(req, res);
        const next = removeItem(items, findLine(items, String(req.params.id)).id);
        writeCart(req, next);
        return { json: cartJson(await viewCart(catalogue, next)) };
      },
    }),
  );

  router.delete(
    "/api/cart",
    jsonPost({
      run: async (req) => {
        writeCart(req, []);
        return { json: cartJson(await viewCart(catalogue, [])) };
      },
    }),
  );

  return router;
}
