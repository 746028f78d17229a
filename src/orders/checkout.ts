import { createHash, randomInt } from "node:crypto";
import type { Db } from "../db/knex.ts";
import type { Logger } from "../logger.ts";
import type { Site } from "../site.ts";
import type { Outbox } from "../email/outbox.ts";
import { enqueueEmail } from "../email/outbox.ts";
import type { PaymentCore, SettleResult } from "../payments/core.ts";
import type { CartView } from "../cart/cart.ts";
import { HttpError } from "../http/errors.ts";
import { CART_ERRORS } from "../cart/schemas.ts";
import * as repo from "./repository.ts";
import type { Customer, Order } from "./repository.ts";
import { orderConfirmationEmail } from "./email.ts";
import type { ShopifyOrderWriter } from "./shopifyWriteBack.ts";

export const ORDER_KIND = "order";

export interface OrdersDeps {
  db: Db;
  payments: PaymentCore;
  outbox: Outbox;
  logger: Logger;
  site: Site;
  shopifyWriter: ShopifyOrderWriter | undefined;
}

export interface PendingCheckout {
  orderReference: string;
  fingerprint: string;
}

const REFERENCE_ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789";

export function newOrderReference(): string {
  let s = "";
  for (let i = 0; i < 8; i++) s += REFERENCE_ALPHABET[randomInt(REFERENCE_ALPHABET.length)];
  return s;
}

/** Identifies exactly what is being bought: lines, quantities and prices. */
export function cartFingerprint(view: CartView): string {
  const lines = view.items
    .map((l) => [l.shopifyProductId, l.shopifyVariantId, l.selectedSize ?? "", l.quantity, l.priceCents].join("|"))
    .sort();
  return createHash("sha256").update(lines.join("\n")).digest("hex");
}

/** The shop's handler in the payment core: when an order's payment settles, mark it paid and send its e-mail. */
export function registerOrderPayments(deps: OrdersDeps): void {
  deps.payments.register(ORDER_KIND, {
    async onPaid(trx, payment) {
      const won = await repo.markOrderPaid(trx, payment.reference, Boolean(deps.shopifyWriter));
      if (!won) return;
      const order = (await repo.findOrder(trx, payment.reference))!;
      await enqueueEmail(trx, orderConfirmationEmail(deps.site, order));
    },
    async afterPaid(payment) {
      deps.outbox.wake();
      if (deps.shopifyWriter) void writeBack(deps, payment.reference);
    },
  });
}

/** Creates the paid order in Shopify; the result (or the error, for an operator to retry) is kept on the order. */
export async function writeBack(deps: OrdersDeps, reference: string): Promise<void> {
  const order = await repo.findOrder(deps.db, reference);
  if (!order || !deps.shopifyWriter) return;
  try {
    const result = await deps.shopifyWriter(order);
    await repo.setShopifyResult(deps.db, reference, result);
    deps.logger.info({ reference, shopifyOrderId: result.orderId }, "order written to Shopify");
  } catch (err) {
    deps.logger.error({ err: (err as Error).message, reference }, "order write-back to Shopify failed");
    await repo.setShopifyResult(deps.db, reference, { error: (err as Error).message }).catch(() => undefined);
  }
}

export interface CheckoutStarted {
  clientSecret: string;
  order: Order;
  checkout: PendingCheckout;
}

/**
 * The cart checkout: one pending order with its items, then one PaymentIntent for it. A second attempt on
 * the same cart (after a declined card, or a double click) reuses both; a changed cart replaces them.
 */
export async function startCheckout(deps: OrdersDeps, view: CartView, customer: Customer, pending: PendingCheckout | undefined): Promise<CheckoutStarted> {
  if (view.items.length === 0) throw new HttpError(400, CART_ERRORS.empty);
  if (view.problems.length > 0) throw new HttpError(409, view.problems[0]!);
  const fingerprint = cartFingerprint(view);
  const amountCents = view.subtotalCents;

  let order: Order | undefined;
  if (pending) {
    const previous = await repo.findOrder(deps.db, pending.orderReference);
    if (previous?.status === "pending_payment" && previous.cartFingerprint === fingerprint && previous.totalCents === amountCents) {
      await repo.updateCustomer(deps.db, previous.reference, customer);
      order = { ...previous, customer };
    } else if (previous?.status === "pending_payment") {
      await repo.cancelOrder(deps.db, previous.reference);
      const oldPayment = await deps.payments.latestFor(ORDER_KIND, previous.reference);
      if (oldPayment && oldPayment.status !== "paid") await deps.payments.cancel(oldPayment);
    }
  }

  if (!order) {
    const lines = view.items.map((l) => ({
      productId: l.shopifyProductId,
      variantId: l.shopifyVariantId,
      productHandle: l.productHandle,
      productTitle: l.productTitle,
      variantTitle: l.variantTitle,
      selectedSize: l.selectedSize,
      selectedColor: l.selectedColor,
      unitPriceCents: l.priceCents,
      quantity: l.quantity,
    }));
    let reference = newOrderReference();
    for (let attempt = 0; ; attempt++) {
      try {
        await deps.db.transaction((trx) => repo.insertOrder(trx, { reference, customer, subtotalCents: amountCents, totalCents: amountCents, fingerprint, lines }));
        break;
      } catch (err) {
        if (attempt >= 3 || (await repo.findOrder(deps.db, reference)) === undefined) throw err;
        reference = newOrderReference();
      }
    }
    order = (await repo.findOrder(deps.db, reference))!;
  }

  const checkout = { orderReference: order.reference, fingerprint };
  try {
    const existing = await deps.payments.latestFor(ORDER_KIND, order.reference);
    if (existing && (existing.status === "pending" || existing.status === "failed")) {
      return { clientSecret: await deps.payments.clientSecret(existing), order, checkout };
    }
    const { clientSecret } = await deps.payments.start({
      kind: ORDER_KIND,
      reference: order.reference,
      amountCents,
      idempotencyKey: `order-${order.reference}-${amountCents}`,
      description: `${deps.site.displayName} order ${order.reference}`,
      email: customer.email,
    });
    return { clientSecret, order, checkout };
  } catch (err) {
    if (err instanceof HttpError) throw err;
    deps.logger.error({ err: (err as Error).message, reference: order.reference }, "could not create the PaymentIntent");
    throw new HttpError(502, CART_ERRORS.paymentUnavailable, "Payment unavailable");
  }
}

/** The browser's return after confirmCardPayment: settle the payment, if it is this visitor's. */
export async function completeCheckout(deps: OrdersDeps, pending: PendingCheckout | undefined, paymentIntentId: string): Promise<SettleResult> {
  const payment = pending ? await deps.payments.latestFor(ORDER_KIND, pending.orderReference) : undefined;
  if (!payment || payment.providerPaymentId !== paymentIntentId) throw new HttpError(403, CART_ERRORS.notYourPayment);
  try {
    return await deps.payments.settle(paymentIntentId, "return");
  } catch (err) {
    deps.logger.error({ err: (err as Error).message, reference: payment.reference }, "could not confirm the payment with Stripe");
    throw new HttpError(502, CART_ERRORS.paymentUnavailable, "Payment unavailable");
  }
}

/** True when the visitor's pending checkout has been paid (through either path): the cart can be cleared. */
export async function pendingCheckoutPaid(deps: OrdersDeps, pending: PendingCheckout | undefined): Promise<boolean> {
  if (!pending) return false;
  const order = await repo.findOrder(deps.db, pending.orderReference);
  return order?.status === "paid";
}
