import type { Order } from "../../../src/shared/orders/types.ts";
import { WAREHOUSE_TIME_ZONE } from "../../../src/shared/catalogue/rules.ts";
import { OrderLines } from "./OrderSummary.tsx";

const STATUS_TEXT: Record<Order["status"], { title: string; body: string }> = {
  pending_payment: { title: "Waiting for payment", body: "We have not received the payment for this order yet." },
  paid: { title: "Paid: being prepared", body: "Your payment was received. We are packing your order; the confirmation e-mail says when it ships." },
  canceled: { title: "Canceled", body: "This order was canceled and nothing was charged for it." },
};

/**
 * /orders/{token}: the order's status for whoever holds the link from the confirmation e-mail. It shows the
 * order (number, date, items, amounts, where it ships to by city) and no name, e-mail, phone or street.
 */
export function OrderStatusPage({ order, supportEmail }: { order: Order; supportEmail: string }) {
  const status = STATUS_TEXT[order.status];
  const placed = order.createdAt.toLocaleDateString("en-US", { dateStyle: "long", timeZone: WAREHOUSE_TIME_ZONE });
  return (
    <section className="section">
      <div className="container prose">
        <p className="eyebrow">Order {order.reference}</p>
        <h1>{status.title}</h1>
        <p className="lead">{status.body}</p>
        <p className="muted">
          Placed {placed}
          {order.shippingAddress ? ` · Shipping to ${order.shippingAddress.city}, ${order.shippingAddress.state}` : ""}
        </p>
        <div className="card card-body">
          <OrderLines order={order} />
        </div>
        <p>
          Questions about this order? Write to <a href={`mailto:${supportEmail}`}>{supportEmail}</a> with the order number {order.reference}.
        </p>
      </div>
    </section>
  );
}
