import type { Knex } from "knex";
import type { Db } from "../db/knex.ts";
import { toDate } from "../db/rows.ts";

type Conn = Db | Knex.Transaction;

export type OrderStatus = "pending_payment" | "paid" | "canceled";

export interface OrderLineInput {
  productId: string;
  variantId: string;
  productHandle: string | null;
  productTitle: string;
  variantTitle: string;
  selectedSize: string | null;
  selectedColor: string | null;
  unitPriceCents: number;
  quantity: number;
}

export interface OrderItem extends OrderLineInput {
  id: number;
  lineTotalCents: number;
}

export interface Customer {
  firstName: string;
  lastName: string;
  email: string;
  phone: string;
}

export interface Order {
  id: number;
  reference: string;
  status: OrderStatus;
  customer: Customer;
  subtotalCents: number;
  totalCents: number;
  currency: string;
  cartFingerprint: string;
  shopifyOrderId: string | null;
  shopifySyncStatus: string;
  createdAt: Date;
  paidAt: Date | null;
  items: OrderItem[];
}

export async function insertOrder(
  trx: Knex.Transaction,
  o: { reference: string; customer: Customer; subtotalCents: number; totalCents: number; fingerprint: string; lines: OrderLineInput[] },
): Promise<number> {
  const now = new Date();
  const [id] = await trx("orders").insert({
    reference: o.reference,
    status: "pending_payment",
    customer_first_name: o.customer.firstName,
    customer_last_name: o.customer.lastName,
    customer_email: o.customer.email,
    customer_phone: o.customer.phone || null,
    subtotal_cents: o.subtotalCents,
    total_cents: o.totalCents,
    currency: "usd",
    cart_fingerprint: o.fingerprint,
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
      line_total_cents: l.unitPriceCents * l.quantity,
    })),
  );
  return orderId;
}

export async function findOrder(conn: Conn, reference: string): Promise<Order | undefined> {
  const r = await conn("orders").where({ reference }).first();
  if (!r) return undefined;
  const items = await conn("order_items").where({ order_id: r.id }).orderBy("id");
  return {
    id: Number(r.id),
    reference: String(r.reference),
    status: r.status as OrderStatus,
    customer: { firstName: r.customer_first_name, lastName: r.customer_last_name, email: r.customer_email, phone: r.customer_phone ?? "" },
    subtotalCents: Number(r.subtotal_cents),
    totalCents: Number(r.total_cents),
    currency: String(r.currency),
    cartFingerprint: String(r.cart_fingerprint),
    shopifyOrderId: r.shopify_order_id ?? null,
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
      lineTotalCents: Number(i.line_total_cents),
    })),
  };
}

export async function updateCustomer(conn: Conn, reference: string, c: Customer): Promise<void> {
  await conn("orders").where({ reference, status: "pending_payment" }).update({
    customer_first_name: c.firstName,
    customer_last_name: c.lastName,
    customer_email: c.email,
    customer_phone: c.phone || null,
    updated_at: new Date(),
  });
}

/** Paid exactly once: only an unpaid order changes. */
export async function markOrderPaid(trx: Knex.Transaction, reference: string, shopifyConfigured: boolean): Promise<boolean> {
  const now = new Date();
  const changed = await trx("orders")
    .where({ reference })
    .whereIn("status", ["pending_payment", "canceled"])
    .update({ status: "paid", paid_at: now, updated_at: now, shopify_sync_status: shopifyConfigured ? "pending" : "not_configured" });
  return changed === 1;
}

export async function cancelOrder(conn: Conn, reference: string): Promise<void> {
  await conn("orders").where({ reference, status: "pending_payment" }).update({ status: "canceled", updated_at: new Date() });
}

export async function setShopifyResult(conn: Conn, reference: string, result: { orderId: string } | { error: string }): Promise<void> {
  await conn("orders")
    .where({ reference })
    .update(
      "orderId" in result
        ? { shopify_order_id: result.orderId, shopify_sync_status: "synced", shopify_error: null, updated_at: new Date() }
        : { shopify_sync_status: "failed", shopify_error: result.error.slice(0, 2000), updated_at: new Date() },
    );
}
