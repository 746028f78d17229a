import { Router, type Request } from "express";
import type { ReactNode } from "react";
import { renderPage } from "../http/render.tsx";
import * as repo from "./repository.ts";
import type { Order } from "../shared/orders/types.ts";
import { STATUS_TOKEN_PATTERN, statusTokenHash, type OrdersDeps } from "./checkout.ts";
import { OrderStatusPage } from "../../views/pages/orders/OrderStatusPage.tsx";
import { JUST_PAID_STATUS_PATH, OrderConfirmation } from "../../views/pages/orders/OrderConfirmation.tsx";

/**
 * The order this visitor session has just paid (the confirmation panel on /shop?success=true): the session
 * names it, and the server checks that it is paid and was started by this same session. The query string
 * alone shows nothing.
 */
export async function justPaidOrder(orders: OrdersDeps, req: Request): Promise<Order | undefined> {
  const reference = req.session?.lastPaidOrder;
  if (!reference || !req.session.checkoutKey) return undefined;
  const order = await repo.findOrder(orders.db, reference);
  return order && order.status === "paid" && order.checkoutKey === req.session.checkoutKey ? order : undefined;
}

/** The just-paid panel on the shop page: after a payment the spec sends the browser to /shop?success=true. */
export function justPaidPanel(orders: OrdersDeps): (req: Request) => Promise<ReactNode> {
  return async (req) => {
    const order = req.query.success === "true" ? await justPaidOrder(orders, req) : undefined;
    return order ? <OrderConfirmation order={order} /> : null;
  };
}

/** GET /orders/{token}: the status page the confirmation e-mail links to. */
export function orderRoutes(orders: OrdersDeps): Router {
  const router = Router();
  // The thank-you panel's link: the order this session just paid, on the same status page the e-mail links to.
  router.get(JUST_PAID_STATUS_PATH, async (req, res, next) => {
    const order = await justPaidOrder(orders, req);
    if (!order) return next();
    res.set("cache-control", "private, no-store");
    renderPage(req, res, <OrderStatusPage order={order} supportEmail={orders.site.email} />, { title: `Order ${order.reference}`, description: "The status of your order.", noindex: true });
  });
  router.get("/orders/:token", async (req: Request<{ token: string }>, res, next) => {
    const token = req.params.token;
    const order = STATUS_TOKEN_PATTERN.test(token) ? await repo.findOrderByStatusTokenHash(orders.db, statusTokenHash(token)) : undefined;
    // An unknown or malformed token is the site's ordinary not-found page (nothing says whether an order exists).
    if (!order) return next();
    res.set("cache-control", "private, no-store");
    renderPage(req, res, <OrderStatusPage order={order} supportEmail={orders.site.email} />, {
      title: `Order ${order.reference}`,
      description: "The status of your order.",
      noindex: true,
    });
  });
  return router;
}
