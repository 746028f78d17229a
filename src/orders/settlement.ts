import type { Request, Response } from "express";
import type { PageContext } from "../http/render.tsx";
import { renewSessionId } from "../http/session.ts";
import type { Logger } from "../logger.ts";
import { readCart } from "../cart/cart.ts";
import { itemCount, removePaidLines } from "../shared/cart/rules.ts";
import { paidCheckoutOrder, type OrdersDeps } from "./checkout.ts";
import type { Order } from "../shared/orders/types.ts";

/** After a payment: only the paid order's lines leave this session's cart, and the session gets a new id. */
export async function settlePaidOrder(req: Request, res: Response, order: Order, logger: Logger): Promise<void> {
  req.session.cart = { items: removePaidLines(readCart(req), order.items) };
  if (req.session.checkout?.orderReference === order.reference) delete req.session.checkout;
  // The confirmation panel on /shop?success=true shows this order (and only to this session).
  req.session.lastPaidOrder = order.reference;
  const page = res.locals.page as PageContext | undefined;
  if (page) page.shell.cartCount = itemCount(readCart(req));
  try {
    await renewSessionId(req);
  } catch (err) {
    // The payment is recorded either way; the old id stays valid until the session expires.
    logger.warn({ err: (err as Error).message }, "could not renew the session id after a payment");
  }
}

/**
 * Settles this session's pending checkout if its order has been paid. The browser's return call settles its own
 * payment (checkoutRoutes); when only the webhook saw it (the tab closed first), it is settled lazily the next time
 * this session's cart is read: the header badge of a page (http/pageContext.ts settleCart), the cart API, a checkout.
 * Only a session that has a pending checkout pays the one order lookup; the settlement then removes it.
 */
export function settlePaidCheckout(orders: OrdersDeps): (req: Request, res: Response) => Promise<void> {
  return async (req, res) => {
    const order = req.session?.checkout ? await paidCheckoutOrder(orders, req.session.checkout) : undefined;
    if (order) await settlePaidOrder(req, res, order, orders.logger);
  };
}
