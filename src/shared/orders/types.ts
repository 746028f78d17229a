/** A shop order as the pages, the e-mails and the order-status link show it. */
import type { ShippingAddress } from "./rules.ts";

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
  /** The cart line it was made from (null on orders made before lines were linked). */
  cartLineId: string | null;
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
  shippingCents: number;
  totalCents: number;
  /** Null only on orders placed before the checkout asked for an address. */
  shippingAddress: ShippingAddress | null;
  currency: string;
  cartFingerprint: string;
  /** The visitor session that started it (see checkout.ts). */
  checkoutKey: string | null;
  shopifyOrderId: string | null;
  shopifySyncStatus: string;
  createdAt: Date;
  paidAt: Date | null;
  items: OrderItem[];
}
