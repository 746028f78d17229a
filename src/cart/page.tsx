import type { Request, Response } from "express";
import { createElement } from "react";
import type { CatalogueSource } from "../catalogue/source.ts";
import type { PaymentGateway } from "../payments/gateway.ts";
import { stripeScripts } from "../payments/setup.ts";
import { renderPage, type PageContext } from "../http/render.tsx";
import { emptyForm, type FormState } from "../shared/forms.ts";
import { CartPage } from "../../views/pages/cart/CartPage.tsx";
import { cartJson } from "./cart.ts";
import type { CartView } from "../shared/cart/rules.ts";

/** What the cart page needs besides the cart: the catalogue, and the card form's gateway and shipping rate. */
export interface CartPageDeps {
  catalogue: CatalogueSource;
  gateway: PaymentGateway;
  /** Standard shipping at or under the free-shipping threshold (SHIPPING_FLAT_RATE_CENTS). */
  shippingFlatRateCents: number;
}

/** The cart page (GET /cart, and the no-JS checkout post's answer): the lines, then the checkout form with `form`. */
export function renderCartPage(deps: CartPageDeps, req: Request, res: Response, view: CartView, form: FormState = emptyForm, notice?: string, status?: number): void {
  const ctx = res.locals.page as PageContext;
  const hasCardForm = view.items.length > 0;
  renderPage(
    req,
    res,
    createElement(CartPage, {
      cart: cartJson(view), csrfToken: ctx.csrfToken, publishableKey: deps.gateway.publishableKey, form, notice,
      shippingFlatRateCents: deps.shippingFlatRateCents,
    }),
    {
      title: "Your Cart",
      description: "Review the items in your cart, change quantities and pay securely by card.",
      status,
      noindex: true,
      scripts: hasCardForm ? stripeScripts(deps.gateway) : undefined,
      // Without lines the page shows nothing of the visitor's: kept for visitors without state (a GET's 200 only).
      sameForStatelessVisitors: !hasCardForm,
    },
  );
}
