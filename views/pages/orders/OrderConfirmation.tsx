import type { Order } from "../../../src/shared/orders/types.ts";
import { addressLines } from "../../../src/shared/orders/rules.ts";
import { OrderLines } from "./OrderSummary.tsx";

/** The status page of the order this browser just paid (the e-mail carries the private link that works anywhere). */
export const JUST_PAID_STATUS_PATH = "/orders/just-paid";

/** /shop?success=true: the order this visitor session has just paid, as the server recorded it. */
export function OrderConfirmation({ order }: { order: Order }) {
  return (
    <section className="section order-confirmation" aria-labelledby="order-confirmed-heading">
      <div className="container">
        <div className="card card-body order-panel" role="status">
          <p className="eyebrow">Payment received</p>
          <h2 id="order-confirmed-heading">Thank you! Order {order.reference} is confirmed</h2>
          <p>
            A confirmation has been sent to <strong>{order.customer.email}</strong>, with a link to follow your order.
          </p>
          <p>
            <a className="btn btn-secondary" href={JUST_PAID_STATUS_PATH}>Follow your order</a>
          </p>
          <div className="order-panel-grid">
            <div>
              <h3>Your order</h3>
              <OrderLines order={order} />
            </div>
            {order.shippingAddress ? (
              <div>
                <h3>Shipping to</h3>
                <address className="order-address">
                  {addressLines(order.shippingAddress).map((l) => <span key={l}>{l}<br /></span>)}
                </address>
              </div>
            ) : null}
          </div>
        </div>
      </div>
    </section>
  );
}
