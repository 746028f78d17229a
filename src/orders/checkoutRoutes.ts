import { Router, type Request, type Response } from "express";
import { formPost, jsonPost } from "../http/forms.ts";
import { flashToast } from "../http/pageContext.ts";
import { renewSessionId } from "../http/session.ts";
import { limitsInOneTrip, type RateLimiter, type RateLimiterFactory } from "../http/rateLimit.ts";
import { DomainError } from "../errors.ts";
import { centsToDecimal } from "../shared/money.ts";
import { readCart, viewCart } from "../cart/cart.ts";
import type { CartView } from "../shared/cart/rules.ts";
import { renderCartPage, type CartPageDeps } from "../cart/page.tsx";
import { itemCount } from "../shared/cart/rules.ts";
import { CheckoutForm, CheckoutJson, CompleteJson, validateCheckout } from "../shared/cart/schemas.ts";
import { CART_TEXT } from "../shared/cart/texts.ts";
import { checkoutKeyFor, completeCheckout, startCheckout, type OrdersDeps } from "./checkout.ts";
import { settlePaidCheckout, settlePaidOrder } from "./settlement.ts";
import { CHECKOUT_ERRORS } from "../shared/orders/texts.ts";

/** This visitor session's checkout key (see checkoutKeyFor); set on first use. */
function checkoutKey(req: Request): string {
  req.session.checkoutKey ??= checkoutKeyFor(req.sessionID);
  return req.session.checkoutKey;
}

/** The cart checkout: the no-JS form post, then the card form's start and its return after the card is confirmed. */
export function checkoutRoutes(deps: { orders: OrdersDeps; cartPage: CartPageDeps; rateLimiter: RateLimiterFactory; paymentLimit: RateLimiter }): Router {
  const { orders, cartPage, paymentLimit } = deps;
  const router = Router();
  const checkoutLimit = deps.rateLimiter({ name: "cart-checkout", windowMs: 60_000, limit: 60 });
  const settle = settlePaidCheckout(orders);

  async function currentView(req: Request, res: Response): Promise<CartView> {
    await settle(req, res);
    return viewCart(cartPage.catalogue, readCart(req));
  }

  // Without JavaScript the customer and address fields are checked (the summary then shows shipping and the total),
  // and the page says card entry needs JavaScript.
  const checkoutForm = formPost({
    check: (input, _view: CartView) => validateCheckout(CheckoutForm, input),
    page: (req, res, view, state, status) => renderCartPage(cartPage, req, res, view, state, undefined, status),
    run: async (req, res, data, view) => renderCartPage(cartPage, req, res, view, { values: data, errors: {} }, CART_TEXT.needsJavaScript),
  });
  router.post("/cart/checkout", checkoutLimit, async (req, res) => checkoutForm(req, res, await currentView(req, res)));

  router.post(
    "/api/cart/checkout",
    limitsInOneTrip(checkoutLimit, paymentLimit),
    jsonPost({
      check: (input) => validateCheckout(CheckoutJson, input),
      // The spec's client reads `message` on error (shop.md: the server's `error` field): both carry it.
      invalid: ({ errors, message }) => ({ status: 400, json: { success: false, error: message, message, fieldErrors: errors } }),
      run: async (req, res, { items: sent, customerInfo, shippingAddress }) => {
        const view = await currentView(req, res);
        if (view.items.length === 0) throw new DomainError("invalid", CHECKOUT_ERRORS.empty);
        // The payload's items must be the session cart (same lines and quantities); their prices are ignored.
        const matches =
          sent.length === view.items.length &&
          view.items.every((line) =>
            sent.some((s) => (s.id === undefined || s.id === line.id) && s.shopifyProductId === line.shopifyProductId &&
              s.shopifyVariantId === line.shopifyVariantId && s.quantity === line.quantity),
          );
        if (!matches) throw new DomainError("conflict", CHECKOUT_ERRORS.changed);
        const started = await startCheckout(orders, view, customerInfo, shippingAddress, checkoutKey(req));
        if (started.status === "earlier_order_paid") {
          await settlePaidOrder(req, res, started.order, orders.logger);
          flashToast(req, { title: CART_TEXT.paymentSucceeded.title, description: CHECKOUT_ERRORS.earlierPaymentWent, variant: "success" });
          return { status: 409, json: { success: false, error: CHECKOUT_ERRORS.earlierPaymentWent, orderReference: started.order.reference, itemCount: itemCount(readCart(req)), redirect: "/cart" } };
        }
        await renewSessionId(req);
        req.session.checkout = started.checkout;
        const { order } = started;
        return {
          json: {
            success: true, clientSecret: started.clientSecret, orderReference: order.reference,
            subtotal: centsToDecimal(order.subtotalCents), shipping: centsToDecimal(order.shippingCents), amount: centsToDecimal(order.totalCents),
          },
        };
      },
    }),
  );

  // The browser's return: its paid order is settled for this session here (its lines leave the cart at once).
  router.post(
    "/api/cart/checkout/complete",
    checkoutLimit,
    jsonPost({
      check: CompleteJson,
      run: async (req, res, { paymentIntentId }) => {
        const { result, order } = await completeCheckout(orders, req.session.checkoutKey, paymentIntentId);
        if (result.status === "paid") {
          await settlePaidOrder(req, res, order, orders.logger);
          flashToast(req, { ...CART_TEXT.paymentSucceeded, variant: "success" });
          return { json: { success: true, status: "paid", orderReference: order.reference, redirect: "/shop?success=true", itemCount: itemCount(readCart(req)) } };
        }
        if (result.status === "failed") return { status: 402, json: { success: false, status: "failed", error: result.message } };
        if (result.status === "mismatch") return { status: 409, json: { success: false, status: "mismatch", error: CART_TEXT.paymentFailedFallbacks.unexpected } };
        return { status: 202, json: { success: false, status: "pending", error: CART_TEXT.paymentFailedFallbacks.payment } };
      },
    }),
  );

  return router;
}
