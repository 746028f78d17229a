import { Router, type NextFunction, type Request, type RequestHandler, type Response } from "express";
import { createElement } from "react";
import type { CatalogueSource } from "../catalogue/source.ts";
import { CART_MESSAGES } from "../catalogue/rules.ts";
import { renderPage, type PageContext } from "../http/render.tsx";
import { emptyForm, formRoute, sendInvalid, validate, type FormState } from "../http/forms.ts";
import { flashToast } from "../http/pageContext.ts";
import { HttpError } from "../http/errors.ts";
import type { RateLimiterFactory } from "../http/rateLimit.ts";
import { stripeScripts } from "../payments/setup.ts";
import { completeCheckout, pendingCheckoutPaid, startCheckout, type OrdersDeps } from "../orders/checkout.ts";
import { CartPage } from "../../views/pages/cart/CartPage.tsx";
import { acceptPrice, itemCount, removeItem, updateQuantity, type SessionCartItem } from "./rules.ts";
import { addToCart, cartJson, checkQuantity, currentPriceCents, readCart, viewCart, writeCart, type CartView } from "./cart.ts";
import { AddItemForm, AddItemJson, CART_ERRORS, CART_TEXT, CheckoutJson, CompleteJson, CustomerInfo, QuantityForm, UpdateItemJson } from "./schemas.ts";

type Handler = (req: Request, res: Response) => Promise<void>;
const wrap = (h: Handler): RequestHandler => (req: Request, res: Response, next: NextFunction) => h(req, res).catch(next);

/** Where a form post goes back to: the page it came from (same site), else the cart. */
function backTo(req: Request, fallback = "/cart"): string {
  const referer = req.get("referer");
  if (!referer) return fallback;
  try {
    const url = new URL(referer);
    if (url.host !== req.get("host")) return fallback;
    return `${url.pathname}${url.search}` || fallback;
  } catch {
    return fallback;
  }
}

const lineNotFound = () => new HttpError(404, CART_ERRORS.itemGone);


/** A checkout paid through either path (the browser's return, or only the webhook) empties the cart on the next request. */
async function clearCartOfPaidCheckout(orders: OrdersDeps, req: Request, res: Response): Promise<void> {
  if (req.session?.checkout && (await pendingCheckoutPaid(orders, req.session.checkout))) {
    req.session.cart = { items: [] };
    delete req.session.checkout;
    const page = res.locals.page as PageContext | undefined;
    if (page) page.shell.cartCount = 0;
  }
}

/** Mounted before every page, so the header badge is right even when only the webhook confirmed the payment. */
export function paidCheckoutClearsCart(orders: OrdersDeps): RequestHandler {
  return (req, res, next) => {
    if (req.method !== "GET" || !req.session?.checkout) return next();
    clearCartOfPaidCheckout(orders, req, res).then(() => next(), next);
  };
}
export function cartRoutes(deps: { catalogue: CatalogueSource; orders: OrdersDeps; rateLimiter: RateLimiterFactory }): Router {
  const { catalogue, orders } = deps;
  const router = Router();
  const checkoutLimit = deps.rateLimiter({ name: "cart-checkout", windowMs: 60_000, limit: 60 });

  async function settledCart(req: Request, res: Response): Promise<SessionCartItem[]> {
    await clearCartOfPaidCheckout(orders, req, res);
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

  async function renderCart(req: Request, res: Response, form: FormState = emptyForm, notice?: string, status?: number) {
    const view = await currentView(req, res);
    const ctx = res.locals.page as PageContext;
    const hasCardForm = view.items.length > 0;
    renderPage(
      req,
      res,
      createElement(CartPage, { cart: cartJson(view), csrfToken: ctx.csrfToken, publishableKey: orders.payments.gateway.publishableKey, form, notice }),
      {
        title: "Your Cart",
        description: "Review the items in your cart, change quantities and pay securely by card.",
        status,
        noindex: true,
        scripts: hasCardForm ? stripeScripts(orders.payments.gateway) : undefined,
      },
    );
  }

  // ---------- pages and form posts (no JavaScript) ----------

  router.get("/cart", wrap((req, res) => renderCart(req, res)));

  /** Runs a cart change from a plain form: a toast for the next page, then 303 back. */
  function formAction(run: (req: Request, res: Response) => Promise<{ title: string; description: string } | null>, failure: { title: string; description: string }, fallback?: (req: Request) => string): RequestHandler {
    return wrap(async (req, res) => {
      const back = fallback ? fallback(req) : backTo(req);
      try {
        const toast = await run(req, res);
        if (toast) flashToast(req, { ...toast, variant: "success" });
      } catch (err) {
        if (!(err instanceof HttpError) || err.status >= 500) throw err;
        flashToast(req, { title: failure.title, description: err.message || failure.description, variant: "destructive" });
      }
      res.redirect(303, back);
    });
  }

  router.post(
    "/cart/add",
    formAction(async (req) => {
      const parsed = validate(AddItemForm, req.body ?? {});
      if (!parsed.ok) throw new HttpError(400, parsed.message);
      const { product } = await addToCart(req, catalogue, parsed.data);
      return { title: CART_MESSAGES.addedTitle, description: `${product.title} added to cart!` };
    }, CART_MESSAGES.failed),
  );

  router.post(
    "/cart/items/:id/update",
    formAction(async (req) => {
      const parsed = validate(QuantityForm, req.body ?? {});
      if (!parsed.ok) throw new HttpError(400, parsed.message);
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

  // Without JavaScript the customer fields are checked, and the page says card entry needs JavaScript.
  router.post(
    "/cart/checkout",
    checkoutLimit,
    formRoute(CustomerInfo, {
      invalid: (req, res, state) => renderCart(req, res, state, undefined, 400),
      valid: async (req, res, data) => renderCart(req, res, { values: data, errors: {} }, CART_TEXT.needsJavaScript),
    }),
  );

  // ---------- JSON API ----------

  router.get("/api/cart", wrap(async (req, res) => {
    res.json(cartJson(await currentView(req, res)));
  }));

  router.post("/api/cart/add", wrap(async (req, res) => {
    const parsed = validate(AddItemJson, req.body ?? {});
    if (!parsed.ok) return sendInvalid(res, parsed);
    await settledCart(req, res);
    const { shopifyProductId: productId, shopifyVariantId: variantId, quantity, selectedSize } = parsed.data;
    const { items } = await addToCart(req, catalogue, { productId, variantId, quantity, selectedSize });
    const view = await viewCart(catalogue, items);
    const latest = items.reduce<SessionCartItem | undefined>((a, b) => (!a || b.updatedAt >= a.updatedAt ? b : a), undefined);
    res.json({ ...cartJson(view), item: view.items.find((l) => l.id === latest?.id) ?? null });
  }));

  router.patch("/api/cart/items/:id", wrap(async (req, res) => {
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
  }));

  router.delete("/api/cart/items/:id", wrap(async (req, res) => {
    const items = await settledCart(req, res);
    const line = findLine(items, String(req.params.id));
    const next = removeItem(items, line.id);
    writeCart(req, next);
    res.json(cartJson(await viewCart(catalogue, next)));
  }));

  router.delete("/api/cart", wrap(async (req, res) => {
    writeCart(req, []);
    res.json(cartJson(await viewCart(catalogue, [])));
  }));

  router.post("/api/cart/checkout", checkoutLimit, wrap(async (req, res) => {
    const parsed = validate(CheckoutJson, req.body ?? {});
    if (!parsed.ok) return sendInvalid(res, parsed);
    const view = await currentView(req, res);
    if (view.items.length === 0) throw new HttpError(400, CART_ERRORS.empty);
    // The payload's items must be the session cart (same lines and quantities); their prices are ignored.
    const sent = parsed.data.items;
    const matches =
      sent.length === view.items.length &&
      view.items.every((line) =>
        sent.some((s) => (s.id === undefined || s.id === line.id) && s.shopifyProductId === line.shopifyProductId &&
          s.shopifyVariantId === line.shopifyVariantId && s.quantity === line.quantity),
      );
    if (!matches) throw new HttpError(409, CART_ERRORS.changed);
    const started = await startCheckout(orders, view, parsed.data.customerInfo, req.session.checkout);
    req.session.checkout = started.checkout;
    res.json({ success: true, clientSecret: started.clientSecret, orderReference: started.order.reference, amount: cartJson(view).subtotal });
  }));

  router.post("/api/cart/checkout/complete", checkoutLimit, wrap(async (req, res) => {
    const parsed = validate(CompleteJson, req.body ?? {});
    if (!parsed.ok) return sendInvalid(res, parsed);
    const result = await completeCheckout(orders, req.session.checkout, parsed.data.paymentIntentId);
    if (result.status === "paid") {
      req.session.cart = { items: [] };
      delete req.session.checkout;
      flashToast(req, { ...CART_TEXT.paymentSucceeded, variant: "success" });
      res.json({ success: true, status: "paid", orderReference: result.payment.reference, redirect: "/shop?success=true", itemCount: itemCount([]) });
      return;
    }
    if (result.status === "failed") {
      res.status(402).json({ success: false, status: "failed", error: result.message });
      return;
    }
    if (result.status === "mismatch") {
      res.status(409).json({ success: false, status: "mismatch", error: CART_TEXT.paymentFailedFallbacks.unexpected });
      return;
    }
    res.status(202).json({ success: false, status: "pending", error: CART_TEXT.paymentFailedFallbacks.payment });
  }));

  return router;
}
