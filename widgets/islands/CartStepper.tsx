import { useEffect, useRef, useState, type MouseEvent } from "react";
import { CsrfContext, Form } from "../../components/Form.tsx";
import type { CartLineView } from "../../src/shared/cart/rules.ts";
import { CART_STALE_MS, variantText } from "../../src/shared/cart/rules.ts";
import { CART_TEXT } from "../../src/shared/cart/texts.ts";
import { announceCartChange } from "../../src/shared/cart/badge.ts";
import { apiFetch, ApiError } from "../api.ts";
import { showToast } from "../toast.ts";
import { formatPrice } from "../../src/shared/money.ts";

export interface CartState {
  cartItems: CartLineView[];
  subtotal: string;
  itemCount: number;
}

export interface CartStepperProps {
  cart: CartState;
  csrfToken: string;
}

function CartImage({ item }: { item: CartLineView }) {
  const [failed, setFailed] = useState(false);
  if (!item.productImage || failed) return <span className="cart-line-placeholder" aria-hidden="true" />;
  return <img src={item.productImage} alt="" width={96} height={96} loading="lazy" onError={() => setFailed(true)} />;
}

/**
 * The cart's lines with minus, plus and remove. Without JavaScript each button is a form post that
 * redirects back; with it, the same buttons call the cart API, show the spec's toasts and update the badges.
 */
export default function CartStepper({ cart: initial, csrfToken }: CartStepperProps) {
  const [cart, setCart] = useState(initial);
  const [busy, setBusy] = useState<string | null>(null);
  const fetchedAt = useRef(0);

  function apply(next: CartState) {
    fetchedAt.current = Date.now();
    setCart(next);
    announceCartChange(next);
  }

  // The cart is refetched on window focus once it is older than 5 minutes.
  useEffect(() => {
    fetchedAt.current = Date.now();
    const onFocus = () => {
      if (Date.now() - fetchedAt.current < CART_STALE_MS) return;
      apiFetch<CartState>("/api/cart").then(apply, () => undefined);
    };
    window.addEventListener("focus", onFocus);
    return () => window.removeEventListener("focus", onFocus);
  }, []);

  async function change(e: MouseEvent, item: CartLineView, quantity: number) {
    e.preventDefault();
    if (busy) return;
    setBusy(item.id);
    const removing = quantity <= 0;
    try {
      const next = removing
        ? await apiFetch<CartState>(`/api/cart/items/${encodeURIComponent(item.id)}`, { method: "DELETE" })
        : await apiFetch<CartState>(`/api/cart/items/${encodeURIComponent(item.id)}`, { method: "PATCH", json: { quantity } });
      apply(next);
      if (removing) showToast({ ...CART_TEXT.removed, variant: "success" });
    } catch (err) {
      const fallback = removing ? CART_TEXT.removeFailed : CART_TEXT.updateFailed;
      const server = err instanceof ApiError && err.status < 500 ? err.serverMessage : undefined;
      showToast({ title: fallback.title, description: server ?? fallback.description, variant: "destructive" });
    } finally {
      setBusy(null);
    }
  }

  async function acceptPrice(e: MouseEvent, item: CartLineView) {
    e.preventDefault();
    if (busy) return;
    setBusy(item.id);
    try {
      apply(await apiFetch<CartState>(`/api/cart/items/${encodeURIComponent(item.id)}`, { method: "PATCH", json: { acceptPrice: true } }));
    } catch (err) {
      showToast({ title: CART_TEXT.updateFailed.title, description: (err instanceof ApiError ? err.serverMessage : undefined) ?? CART_TEXT.updateFailed.description, variant: "destructive" });
    } finally {
      setBusy(null);
    }
  }

  if (cart.cartItems.length === 0) {
    return (
      <div className="cart-empty" role="status">
        <h2>{CART_TEXT.emptyTitle}</h2>
        <p className="muted">{CART_TEXT.emptyBody}</p>
        <a className="btn btn-primary" href="/shop">Continue Shopping</a>
      </div>
    );
  }

  return (
    <CsrfContext value={csrfToken}>
      <ul className="cart-lines" aria-label="Items in your cart">
        {cart.cartItems.map((item) => {
          const title = item.productTitle;
          const variant = variantText(item);
          const lineBusy = busy === item.id;
          return (
            <li key={item.id} className={`cart-line${item.problem ? " cart-line-problem" : ""}`} data-line-id={item.id} aria-busy={lineBusy || undefined}>
              <div className="cart-line-image">
                <CartImage item={item} />
              </div>
              <div className="cart-line-info">
                <h2 className="cart-line-title">
                  {item.productUrl ? <a href={item.productUrl}>{title}</a> : title}
                </h2>
                {variant ? <p className="cart-line-variant">{variant}</p> : null}
                <p className="cart-line-price">
                  <span className="visually-hidden">Unit price </span>
                  {formatPrice(item.priceCents)}
                </p>
                {item.problemMessage ? (
                  <div className="cart-line-notice" role="status">
                    <p>{item.problemMessage}</p>
                    {item.problem?.kind === "price_changed" ? (
                      <Form action={`/cart/items/${encodeURIComponent(item.id)}/accept-price`}>
                        <button type="submit" className="btn btn-ghost" disabled={lineBusy} onClick={(e) => void acceptPrice(e, item)}>
                          Accept new price
                        </button>
                      </Form>
                    ) : null}
                  </div>
                ) : null}
              </div>
              <div className="cart-line-controls">
                <Form action={`/cart/items/${encodeURIComponent(item.id)}/update`} className="cart-stepper" label={`Quantity of ${title}`}>
                  <button type="submit" name="quantity" value={String(item.quantity - 1)} className="btn btn-ghost btn-icon"
                    aria-label={item.quantity <= 1 ? `Remove ${title}` : `Decrease quantity of ${title}`} disabled={lineBusy}
                    onClick={(e) => void change(e, item, item.quantity - 1)}>
                    −
                  </button>
                  <span className="cart-qty" aria-live="polite">
                    <span className="visually-hidden">Quantity </span>
                    {item.quantity}
                  </span>
                  <button type="submit" name="quantity" value={String(item.quantity + 1)} className="btn btn-ghost btn-icon"
                    aria-label={`Increase quantity of ${title}`} disabled={lineBusy || item.quantity >= item.maxQuantity || item.problem !== null}
                    onClick={(e) => void change(e, item, item.quantity + 1)}>
                    +
                  </button>
                </Form>
                <Form action={`/cart/items/${encodeURIComponent(item.id)}/remove`} className="cart-remove">
                  <button type="submit" className="btn btn-ghost cart-remove-btn" aria-label={`Remove ${title} from cart`} disabled={lineBusy}
                    onClick={(e) => void change(e, item, 0)}>
                    Remove
                  </button>
                </Form>
                <p className="cart-line-total">
                  <span className="visually-hidden">Line total </span>
                  {formatPrice(item.priceCents * item.quantity)}
                </p>
              </div>
            </li>
          );
        })}
      </ul>
    </CsrfContext>
  );
}
