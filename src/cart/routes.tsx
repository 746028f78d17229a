import { Router, type Request, type RequestHandler, type Response } from "express";
import { createElement } from "react";
import type { CatalogueSource } from "../catalogue/source.ts";
import { renderPage, type PageContext } from "../http/render.tsx";
import { emptyForm, sendInvalid, validate, type FormState } from "../http/forms.ts";
import { flashToast } from "../http/pageContext.ts";
import { domainErrorStatus } from "../http/errors.ts";
import { DomainError } from "../errors.ts";
import { refererPath } from "../http/redirects.ts";
import type { RateLimiterFactory } from "../http/rateLimit.ts";
import { stripeScripts } from "../payments/setup.ts";
import { checkoutKeyFor, completeCheckout, paidCheckoutOrder, startCheckout, type OrdersDeps } from "../orders/checkout.ts";
import type { Order } from "../orders/repository.ts";
import { renewSessionId } from "../http/session.ts";
import type { Logger } from "../logger.ts";
import { CartPage } from "../../views/pages/cart/CartPage.tsx";
import { acceptPrice, itemCount, removeItem, removePaidLines, updateQuantity, type SessionCartItem } from "./rules.ts";
import { centsToDecimal } from "../money.ts";
import { addToCart, cartJson, cartStateKey, checkQuantity, currentPriceCents, readCart, viewCart, writeCart, type CartView } from "./cart.ts";
import { AddItemForm, AddItemJson, CheckoutForm, CheckoutJson, CompleteJson, QuantityForm, UpdateItemJson, validateCheckout } from "./schemas.ts";
import { CART_ERRORS, CART_MESSAGES, CART_TEXT } from "./messages.ts";


/** Adds to the cart per address and minute (the JSON API and the plain form together). */
export const CART_ADD_LIMIT_PER_MINUTE = 120;

const lineNotFound = () => new DomainError("not_found", CART_ERRORS.itemGone);


/** This visitor session's checkout key (see checkoutKeyFor); set on first use. */
function checkoutKey(req: Request): string {
  req.session.checkoutKey ??= checkoutKeyFor(req.sessionID);
  return req.session.checkoutKey;
}

/** After a payment: only the paid order's lines leave the cart, and the session gets a new id. */
async function settlePaidOrder(req: Request, order: Order, logger: Logger): Promise<void> {
  req.session.cart = { items: removePaidLines(readCart(req), order.items) };
  if (req.session.checkout?.orderReference === order.reference) delete req.session.checkout;
  // The confirmation panel on /shop?success=true shows this order (and only to this session).
  req.session.lastPaidOrder = order.reference;
  try {
    await renewSessionId(req);
  } catch (err) {
    // The payment is recorded either way; the old id stays valid until the session expires.
    logger.warn({ err: (err as Error).message }, "could not renew the session id after a payment");
  }
}

/** A checkout paid through either path (the browser's return, or only the webhook) empties its lines from the cart on the next request. */
async function clearCartOfPaidCheckout(orders: OrdersDeps, req: Request, res: Response): Promise<void> {
  const order = req.session?.checkout ? await paidCheckoutOrder(orders, req.session.checkout) : undefined;
  if (!order) return;
  await settlePaidOrder(req, order, orders.logger);
  const page = res.locals.page as PageContext | undefined;
  if (page) page.shell.cartCount = itemCount(readCart(req));
}

/** Mounted before every page, so the header badge is right even when only the webhook confirmed the payment. */
export function paidCheckoutClearsCart(orders: OrdersDeps): RequestHandler {
  return async (req, res, next) => {
    if (req.method === "GET" && req.session?.checkout) await clearCartOfPaidCheckout(orders, req, res);
    next();
  };
}

export function cartRoutes(deps: { catalogue: CatalogueSource; orders: OrdersDeps; rateLimiter: RateLimiterFactory; paymentLimit: RequestHandler }): Router {
  const { catalogue, orders, paymentLimit } = deps;
  const router = Router();
  const checkoutLimit = deps.rateLimiter({ name: "cart-checkout", windowMs: 60_000, limit: 60 });
  const addLimit = deps.rateLimiter({ name: "cart-add", windowMs: 60_000, limit: CART_ADD_LIMIT_PER_MINUTE });

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
    renderCartView(req, res, await currentView(req, res), form, notice, status);
  }

  function renderCartView(req: Request, res: Response, view: CartView, form: FormState = emptyForm, notice?: string, status?: number) {
    const ctx = res.locals.page as PageContext;
    const hasCardForm = view.items.length > 0;
    renderPage(
      req,
      res,
      createElement(CartPage, {
        cart: cartJson(view), csrfToken: ctx.csrfToken, publishableKey: orders.paymentCore.gateway.publishableKey, form, notice,
        shippingFlatRateCents: orders.shippingFlatRateCents,
      }),
      {
        title: "Your Cart",
        description: "Review the items in your cart, change quantities and pay securely by card.",
        status,
        noindex: true,
        scripts: hasCardForm ? stripeScripts(orders.paymentCore.gateway) : undefined,
      },
    );
  }

  // ---------- pages and form posts (no JavaScript) ----------

  // The page shows the cart's lines with the catalogue's products as they are now, and nothing else of the
  // visitor's (the checkout form is empty; a toast is never kept): kept under exactly that, it is answered without
  // rendering until a line or a product changes. Posted form values (POST /cart/checkout) are never kept.
  router.get("/cart", async (req, res) => {
    const items = await settledCart(req, res);
    if ((res.locals.page as PageContext).fromKeptPage(await cartStateKey(catalogue, items))) return;
    renderCartView(req, res, await viewCart(catalogue, items));
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

  // Without JavaScript the customer and address fields are checked (the summary then shows shipping and the total),
  // and the page says card entry needs JavaScript.
  router.post("/cart/checkout", checkoutLimit, async (req, res) => {
    const { _csrf: _ignored, ...values } = (req.body ?? {}) as Record<string, unknown>;
    const result = validateCheckout(CheckoutForm, values);
    if (!result.ok) return renderCart(req, res, { values, errors: result.errors }, undefined, 400);
    await renderCart(req, res, { values: result.data, errors: {} }, CART_TEXT.needsJavaScript);
  });

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

  router.post("/api/cart/checkout", checkoutLimit, paymentLimit, async (req, res) => {
    const parsed = validateCheckout(CheckoutJson, req.body ?? {});
    if (!parsed.ok) return sendInvalid(res, parsed);
    const view = await currentView(req, res);
    if (view.items.length === 0) throw new DomainError("invalid", CART_ERRORS.empty);
    // The payload's items must be the session cart (same lines and quantities); their prices are ignored.
    const sent = parsed.data.items;
    const matches =
      sent.length === view.items.length &&
      view.items.every((line) =>
        sent.some((s) => (s.id === undefined || s.id === line.id) && s.shopifyProductId === line.shopifyProductId &&
          s.shopifyVariantId === line.shopifyVariantId && s.quantity === line.quantity),
      );
    if (!matches) throw new DomainError("conflict", CART_ERRORS.changed);
    const started = await startCheckout(orders, view, parsed.data.customerInfo, parsed.data.shippingAddress, checkoutKey(req));
    if (started.status === "earlier_order_paid") {
      await settlePaidOrder(req, started.order, orders.logger);
      flashToast(req, { title: CART_TEXT.paymentSucceeded.title, description: CART_ERRORS.earlierPaymentWent, variant: "success" });
      res.status(409).json({ success: false, error: CART_ERRORS.earlierPaymentWent, orderReference: started.order.reference, itemCount: itemCount(readCart(req)), redirect: "/cart" });
      return;
    }
    await renewSessionId(req);
    req.session.checkout = started.checkout;
    const { order } = started;
    res.json({
      success: true, clientSecret: started.clientSecret, orderReference: order.reference,
      subtotal: centsToDecimal(order.subtotalCents), shipping: centsToDecimal(order.shippingCents), amount: centsToDecimal(order.totalCents),
    });
  });

  router.post("/api/cart/checkout/complete", checkoutLimit, async (req, res) => {
    const parsed = validate(CompleteJson, req.body ?? {});
    if (!parsed.ok) return sendInvalid(res, parsed);
    const { result, order } = await completeCheckout(orders, req.session.checkoutKey, parsed.data.paymentIntentId);
    if (result.status === "paid") {
      await settlePaidOrder(req, order, orders.logger);
      flashToast(req, { ...CART_TEXT.paymentSucceeded, variant: "success" });
      res.json({ success: true, status: "paid", orderReference: order.reference, redirect: "/shop?success=true", itemCount: itemCount(readCart(req)) });
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
  });

  return router;
}
