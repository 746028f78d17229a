import { Widget } from "../../components/Widget.tsx";
import type { IslandProps } from "../../../components/islands.ts";
import type { FormState } from "../../../src/shared/forms.ts";
import { CART_TEXT } from "../../../src/shared/cart/texts.ts";

export interface CartPageProps {
  cart: IslandProps<"CartStepper">["cart"];
  csrfToken: string;
  publishableKey: string;
  form: FormState;
  /** A message from a post without JavaScript (card entry needs it). */
  notice?: string;
  shippingFlatRateCents: number;
}

/** /cart: the lines (CartStepper) beside the order summary and card checkout (CardForm). */
export function CartPage({ cart, csrfToken, publishableKey, form, notice, shippingFlatRateCents }: CartPageProps) {
  const empty = cart.cartItems.length === 0;
  return (
    <section className="section cart-page">
      <div className="container">
        <p className="back-link">
          <a href="/shop">
            <span aria-hidden="true">←&nbsp;</span>Back to Shop
          </a>
        </p>
        <h1 className="cart-heading">Your Cart</h1>
        {notice ? <p className="notice-inline" role="status">{notice}</p> : null}
        {empty ? (
          <div className="cart-empty">
            <h2>{CART_TEXT.emptyTitle}</h2>
            <p className="muted">{CART_TEXT.emptyBody}</p>
            <a className="btn btn-primary" href="/shop">Continue Shopping</a>
          </div>
        ) : (
          <div className="cart-layout">
            <div className="cart-items-col">
              {/* Both widgets load at the first hover, focus or touch of the cart (JavaScript budget); until then the buttons are forms. */}
              <Widget name="CartStepper" load="interaction" trigger=".cart-layout" props={{ cart, csrfToken }} />
            </div>
            <aside className="cart-summary-col" aria-label="Order summary and checkout">
              <Widget
                name="CardForm"
                load="interaction"
                trigger=".cart-layout"
                props={{
                  publishableKey,
                  csrfToken,
                  cart,
                  form,
                  checkoutUrl: "/api/cart/checkout",
                  completeUrl: "/api/cart/checkout/complete",
                  successUrl: "/shop?success=true",
                  action: "/cart/checkout",
                  shippingFlatRateCents,
                }}
              />
            </aside>
          </div>
        )}
      </div>
    </section>
  );
}
