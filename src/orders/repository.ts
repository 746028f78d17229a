import type { Knex } from "knex";
import type { Db } from "../db/knex.ts";
import { type Row, toDate } from "../db/rows.ts";
import { lockForUpdate } from "../db/locks.ts";
import { toText } from "../shared/toText.ts";
import type { ShippingAddress } from "../shared/orders/rules.ts";
import type { Customer, Order, OrderLineInput, OrderStatus } from "../shared/orders/types.ts";
import { ORDER_TRANSITIONS } from "./states.ts";

type Conn = Db | Knex.Transaction;

export async function insertOrder(
  trx: Knex.Transaction,
  o: {
    reference: string;
    checkoutKey: string;
    customer: Customer;
    address: ShippingAddress;
    subtotalCents: number;
    shippingCents: number;
    totalCents: number;
    fingerprint: string;
    lines: OrderLineInput[];
  },
): Promise<number> {
  const now = new Date();
  const [id] = await trx("orders").insert({
    reference: o.reference,
    status: "pending_payment",
    customer_first_name: o.customer.firstName,
    customer_last_name: o.customer.lastName,
    customer_email: o.customer.email,
    customer_phone: o.customer.phone || null,
    ...addressColumns(o.address),
    subtotal_cents: o.subtotalCents,
    shipping_cents: o.shippingCents,
    total_cents: o.totalCents,
    currency: "usd",
    cart_fingerprint: o.fingerprint,
    checkout_key: o.checkoutKey,
    created_at: now,
    updated_at: now,
  });
  const orderId = Number(id);
  await trx("order_items").insert(
    o.lines.map((l) => ({
      order_id: orderId,
      product_id: l.productId,
      variant_id: l.variantId,
      product_handle: l.productHandle,
      product_title: l.productTitle,
      variant_title: l.variantTitle,
      selected_size: l.selectedSize,
      selected_color: l.selectedColor,
      unit_price_cents: l.unitPriceCents,
      quantity: l.quantity,
      cart_line_id: l.cartLineId,
      line_total_cents: l.unitPriceCents * l.quantity,
    })),
  );
  return orderId;
}

export async function findOrder(conn: Conn, reference: string): Promise<Order | undefined> {
  return mapOrder(conn, await conn<Row>("orders").where({ reference }).first());
}

export async function findOrderById(conn: Conn, id: number): Promise<Order | undefined> {
  return mapOrder(conn, await conn<Row>("orders").where({ id }).first());
}

async function mapOrder(conn: Conn, r: Row | undefined): Promise<Order | undefined> {
  if (!r) return undefined;
  const items = await conn<Row>("order_items").where({ order_id: r.id }).orderBy("id");
  return {
    id: Number(r.id),
    reference: String(r.reference),
    status: r.status as OrderStatus,
    customer: { firstName: String(r.customer_first_name), lastName: String(r.customer_last_name), email: String(r.customer_email), phone: (r.customer_phone as string | null) ?? "" },
    subtotalCents: Number(r.subtotal_cents),
    shippingCents: Number(r.shipping_cents ?? 0),
    totalCents: Number(r.total_cents),
    shippingAddress: r.ship_line1
      ? { name: String(r.ship_name), line1: toText(r.ship_line1), line2: (r.ship_line2 as string | null) ?? "", city: String(r.ship_city), state: String(r.ship_state), zip: String(r.ship_zip) }
      : null,
    currency: String(r.currency),
    cartFingerprint: String(r.cart_fingerprint),
    checkoutKey: (r.checkout_key as string | null) ?? null,
    shopifyOrderId: (r.shopify_order_id as string | null) ?? null,
    shopifySyncStatus: String(r.shopify_sync_status),
    createdAt: toDate(r.created_at)!,
    paidAt: toDate(r.paid_at),
    items: items.map((i: Record<string, unknown>) => ({
      id: Number(i.id),
      productId: String(i.product_id),
      variantId: String(i.variant_id),
      productHandle: (i.product_handle as string | null) ?? null,
      productTitle: String(i.product_title),
      variantTitle: String(i.variant_title),
      selectedSize: (i.selected_size as string | null) ?? null,
      selectedColor: (i.selected_color as string | null) ?? null,
      unitPriceCents: Number(i.unit_price_cents),
      quantity: Number(i.quantity),
      cartLineId: (i.cart_line_id as string | null) ?? null,
      lineTotalCents: Number(i.line_total_cents),
    })),
  };
}

/** The order a PaymentIntent pays for (through its payment row). */
export async function findOrderByPaymentIntent(conn: Conn, intentId: string): Promise<Order | undefined> {
  const row = await conn<Row>("payments").where({ provider_payment_id: intentId, kind: "order" }).first("reference");
  return row ? findOrder(conn, String(row.reference)) : undefined;
}

/** The session's lock row, created if it is not there yet (outside the transaction that locks it). Answers its id. */
export async function ensureCheckoutLock(conn: Conn, checkoutKey: string): Promise<number> {
  await conn<Row>("checkout_locks").insert({ checkout_key: checkoutKey, order_reference: null, updated_at: new Date() }).onConflict("checkout_key").ignore();
  const row = await conn<Row>("checkout_locks").where({ checkout_key: checkoutKey }).first("id");
  return Number(row!.id); // inserted just above if it was not there
}

/** The first statement of a checkout's transaction: one session's checkouts run one after the other. Answers its pending order. */
export async function lockCheckout(trx: Knex.Transaction, lockId: number): Promise<string | null> {
  const row = await lockForUpdate(trx, "checkout_locks", lockId);
  if (!row) throw new Error("checkout lock row missing");
  return (row.order_reference as string | null) ?? null;
}

export async function setCheckoutOrder(trx: Knex.Transaction, lockId: number, reference: string): Promise<void> {
  await trx("checkout_locks").where({ id: lockId }).update({ order_reference: reference, updated_at: new Date() });
}

function addressColumns(a: ShippingAddress) {
  return { ship_name: a.name, ship_line1: a.line1, ship_line2: a.line2 || null, ship_city: a.city, ship_state: a.state, ship_zip: a.zip };
}

/** A second attempt on the same cart may correct the customer's details and address (the amount is the same). */
export async function updateCustomer(conn: Conn, reference: string, c: Customer, address: ShippingAddress): Promise<void> {
  await conn("orders").where({ reference, status: "pending_payment" }).update({
    customer_first_name: c.firstName,
    customer_last_name: c.lastName,
    customer_email: c.email,
    customer_phone: c.phone || null,
    ...addressColumns(address),
    updated_at: new Date(),
  });
}

/** The order-status link's token is stored only as its hash. */
export async function setStatusTokenHash(trx: Knex.Transaction, orderId: number, hash: string): Promise<void> {
  await trx("orders").where({ id: orderId }).update({ status_token_hash: hash });
}

export async function findOrderByStatusTokenHash(conn: Conn, hash: string): Promise<Order | undefined> {
  return mapOrder(conn, await conn<Row>("orders").where({ status_token_hash: hash }).first());
}

/** Paid exactly once: only an unpaid order changes. */
export async function markOrderPaid(trx: Knex.Transaction, reference: string, shopifyConfigured: boolean): Promise<boolean> {
  const now = new Date();
  const changed = await trx("orders")
    .where({ reference })
    .whereIn("status", [...ORDER_TRANSITIONS.pay.from])
    .update({ status: ORDER_TRANSITIONS.pay.to, paid_at: now, updated_at: now, shopify_sync_status: shopifyConfigured ? "pending" : "not_configured" });
  return changed === 1;
}

export async function cancelOrder(conn: Conn, reference: string): Promise<void> {
  await conn("orders").where({ reference }).whereIn("status", [...ORDER_TRANSITIONS.cancel.from]).update({ status: ORDER_TRANSITIONS.cancel.to, updated_at: new Date() });
}

export async function setShopifyResult(conn: Conn, reference: string, result: { orderId: string }): Promise<void> {
  await conn("orders")
    .where({ reference })
    .update({ shopify_order_id: result.orderId, shopify_sync_status: "synced", shopify_error: null, updated_at: new Date() });
}

/** A failed write-back attempt: the order keeps the error, and says `failed` once the queue gives up. */
export async function setShopifyFailure(conn: Conn, orderId: number, error: string, final: boolean): Promise<void> {
  await conn("orders")
    .where({ id: orderId })
    .whereNot({ shopify_sync_status: "synced" })
    .update({ shopify_error: error.slice(0, 2000), updated_at: new Date(), ...(final ? { shopify_sync_status: "failed" } : {}) });
}
