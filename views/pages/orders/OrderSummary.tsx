import type { Order } from "../../../src/shared/orders/types.ts";
import { formatPrice } from "../../../src/shared/money.ts";
import { variantText } from "../../../src/shared/cart/rules.ts";
import { shippingLabel } from "../../../src/shared/orders/rules.ts";

/** An order's lines and amounts, as the confirmation panel and the status page show them. */
export function OrderLines({ order }: { order: Order }) {
  return (
    <>
      <ul className="order-lines" aria-label="Items">
        {order.items.map((i) => {
          const variant = variantText(i);
          return (
            <li key={i.id}>
              <span>
                <strong>{i.productTitle}</strong>
                {variant ? <span className="muted"> · {variant}</span> : null}
                <span className="muted"> × {i.quantity}</span>
              </span>
              <span>{formatPrice(i.lineTotalCents)}</span>
            </li>
          );
        })}
      </ul>
      <dl className="summary-rows order-amounts">
        <div><dt>Subtotal</dt><dd>{formatPrice(order.subtotalCents)}</dd></div>
        <div><dt>Shipping</dt><dd>{shippingLabel(order.shippingCents)}</dd></div>
        <div className="summary-total"><dt>Total</dt><dd data-testid="order-total">{formatPrice(order.totalCents)}</dd></div>
      </dl>
    </>
  );
}
