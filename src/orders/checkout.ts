import { createHash, randomInt } from "node:crypto";
import type { Knex } from "knex";
import type { Db } from "../db/knex.ts";
import type { Logger } from "../logger.ts";
import type { Site } from "../shared/site.ts";
import { enqueueEmail, type Outbox } from "../email/outbox.ts";
import { PaymentNotOpenError, type PaymentCore, type SettleResult } from "../payments/core.ts";
import { DomainError } from "../errors.ts";
import { CHECKOUT_ERRORS } from "../shared/orders/texts.ts";
import * as repo from "./repository.ts";
import type { Customer, Order } from "../shared/orders/types.ts";
import { orderConfirmationEmail, orderRefundedEmail } from "./email.ts";
import { enqueueShopifyWriteBack } from "./shopifyWriteBack.ts";
import { shippingCents, type ShippingAddress } from "../shared/orders/rules.ts";
import type { JobQueue } from "../db/jobQueue.ts";
import { newSecretToken, secretTokenHash, SECRET_TOKEN_PATTERN } from "../http/secretLinks.ts";

export const ORDER_KIND = "order";

export interface OrdersDeps {
  db: Db;
  paymentCore: PaymentCore;
  outbox: Outbox;
  logger: Logger;
  site: Site;
  /** The Shopify write-back queue; undefined when no Admin API token is configured. */
  shopifyWriteBacks: JobQueue | undefined;
  /** Standard shipping at or under the free-shipping threshold (SHIPPING_FLAT_RATE_CENTS). */
  shippingFlatRateCents: number;
  /** The site's public origin, for the order-status link in the confirmation e-mail. */
  publicUrl: string;
}

/** The order-status link's secret (src/http/secretLinks.ts): only its hash is stored. */
export { newSecretToken as newStatusToken, secretTokenHash as statusTokenHash, SECRET_TOKEN_PATTERN as STATUS_TOKEN_PATTERN };

export function orderStatusUrl(publicUrl: string, token: string): string {
  return `${publicUrl}/orders/${token}`;
}

/** One line of what is being bought, as the session cart prices it now (shared/cart/rules.ts CartLineView has this shape). */
export interface CheckoutLine {
  id: string;
  shopifyProductId: string;
  shopifyVariantId: string;
  productHandle: string;
  productTitle: string;
  variantTitle: string;
  selectedSize: string | null;
  selectedColor: string | null;
  priceCents: number;
  quantity: number;
}

/** The cart a checkout pays for (cart/cart.ts viewCart gives it): its lines, subtotal and what blocks paying. */
export interface CheckoutCart {
  items: CheckoutLine[];
  subtotalCents: number;
  problems: string[];
}

/** The session's latest checkout: its pending order and the cart it was made from. */
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

/**
 * A visitor session's checkout key: derived from the session id the first time (so two requests at once
 * from a new session agree on it) and kept in the session when its id is renewed.
 */
export function checkoutKeyFor(sessionId: string): string {
  return createHash("sha256").update(`checkout:${sessionId}`).digest("hex").slice(0, 40);
}

/** Identifies exactly what is being bought: lines, quantities and prices. */
export function cartFingerprint(view: CheckoutCart): string {
  const lines = view.items
    .map((l) => [l.id, l.shopifyProductId, l.shopifyVariantId, l.selectedSize ?? "", l.quantity, l.priceCents].join("|"))
    .sort();
  return createHash("sha256").update(lines.join("\n")).digest("hex");
}

/** The shop's handler in the payment core: when an order's payment settles, mark it paid, queue its e-mail and write-back. */
export function registerOrderPayments(deps: OrdersDeps): void {
  deps.paymentCore.register(ORDER_KIND, {
    async onPaid(trx, payment) {
      const won = await repo.markOrderPaid(trx, payment.reference, Boolean(deps.shopifyWriteBacks));
      if (!won) return "duplicate";
      const order = (await repo.findOrder(trx, payment.reference))!;
      const token = newSecretToken();
      await repo.setStatusTokenHash(trx, order.id, secretTokenHash(token));
      await enqueueEmail(trx, orderConfirmationEmail(deps.site, order, orderStatusUrl(deps.publicUrl, token)));
      if (deps.shopifyWriteBacks) await enqueueShopifyWriteBack(trx, order.id);
      return "accepted";
    },
    async expected(trx, reference) {
      const order = await repo.findOrder(trx, reference);
      return order ? { amountCents: order.totalCents } : null;
    },
    async afterPaid() {
      deps.outbox.wake();
      deps.shopifyWriteBacks?.wake();
    },
    // Runs once for each refund that succeeds, in the transaction that records it (the payment is locked).
    async onRefunded(trx, payment, refund) {
      const order = await repo.findOrder(trx, payment.reference);
      if (order) await enqueueEmail(trx, orderRefundedEmail(deps.site, order, refund.amountRefundedCents, refund.full));
    },
    async afterChange() {
      deps.outbox.wake();
    },
  });
}

export type CheckoutOutcome =
  | { status: "started"; clientSecret: string; order: Order; checkout: PendingCheckout }
  /** The session's previous order was paid after all (its card was charged before the cart changed). */
  | { status: "earlier_order_paid"; order: Order };

/** The order this checkout pays, or the session's other pending order that must make way first. */
type Decision = { order: string } | { replace: string };

/**
 * Under the session's lock: reuse its pending order when it is for this very cart; else name the pending
 * order that stands in the way (its PaymentIntent is canceled first, outside the transaction) or, once it
 * has been (`canceled`), cancel that order and create the new one.
 */
async function decide(deps: OrdersDeps, lockId: number, cart: { fingerprint: string; amountCents: number; customer: Customer; address: ShippingAddress }, canceled: string | undefined, create: (trx: Knex.Transaction) => Promise<string>): Promise<Decision> {
  return deps.db.transaction(async (trx) => {
    const currentRef = await repo.lockCheckout(trx, lockId);
    const current = currentRef ? await repo.findOrder(trx, currentRef) : undefined;
    if (current?.status === "pending_payment") {
      if (current.cartFingerprint === cart.fingerprint && current.totalCents === cart.amountCents) {
        await repo.updateCustomer(trx, current.reference, cart.customer, cart.address);
        return { order: current.reference };
      }
      if (current.reference !== canceled) return { replace: current.reference };
      await repo.cancelOrder(trx, current.reference);
    }
    return { order: await create(trx) };
  });
}

/**
 * The cart checkout: one pending order with its items, then its one live PaymentIntent. The session's
 * checkouts are serialised on its lock row (checkout_locks), so two requests at once (a double click, two
 * tabs, two app instances) find the same order, and the payment core gives them the same PaymentIntent.
 * A second attempt on the same cart (after a declined card) reuses both; a changed cart cancels them and
 * makes a new order. No network call runs inside those transactions: Stripe is called between and after.
 */
export async function startCheckout(deps: OrdersDeps, view: CheckoutCart, customer: Customer, address: ShippingAddress, checkoutKey: string): Promise<CheckoutOutcome> {
  if (view.items.length === 0) throw new DomainError("invalid", CHECKOUT_ERRORS.empty);
  if (view.problems.length > 0) throw new DomainError("conflict", view.problems[0]!);
  // The server decides the amount: the catalogue's prices and the shipping rule, never a figure from the request.
  const shipping = shippingCents(view.subtotalCents, deps.shippingFlatRateCents);
  const cart = { fingerprint: cartFingerprint(view), amountCents: view.subtotalCents + shipping, customer, address };
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
    cartLineId: l.id,
  }));
  const lockId = await repo.ensureCheckoutLock(deps.db, checkoutKey);
  const create = async (trx: Knex.Transaction) => {
    const reference = newOrderReference();
    const { fingerprint, amountCents } = cart;
    await repo.insertOrder(trx, {
      reference, checkoutKey, customer, address, fingerprint, lines,
      subtotalCents: view.subtotalCents, shippingCents: shipping, totalCents: amountCents,
    });
    await repo.setCheckoutOrder(trx, lockId, reference);
    return reference;
  };
  const paidAlready = async (reference: string): Promise<CheckoutOutcome | undefined> => {
    const order = (await repo.findOrder(deps.db, reference))!;
    return order.status === "paid" ? { status: "earlier_order_paid", order } : undefined;
  };

  try {
    let decision = await decide(deps, lockId, cart, undefined, create);
    if ("replace" in decision) {
      const replaced = decision.replace;
      // Charged before the cart changed: that order is paid now (a payment waiting for review does not block a new order).
      if ((await cancelPayment(deps, replaced)) === "already_succeeded") {
        const paid = await paidAlready(replaced);
        if (paid) return paid;
      }
      decision = await decide(deps, lockId, cart, replaced, create);
      // Yet another order appeared meanwhile (the cart changed again in another tab): let the visitor look again.
      if ("replace" in decision) throw new DomainError("conflict", CHECKOUT_ERRORS.changed);
    }
    const order = (await repo.findOrder(deps.db, decision.order))!;
    try {
      const clientSecret = await paymentFor(deps, order, customer);
      return { status: "started", clientSecret, order, checkout: { orderReference: order.reference, fingerprint: cart.fingerprint } };
    } catch (err) {
      if (!(err instanceof PaymentNotOpenError)) throw err;
      // Its PaymentIntent succeeded meanwhile (another tab paid), or waits for review: never ask for the card again.
      const paid = await paidAlready(order.reference);
      if (paid) return paid;
      await repo.cancelOrder(deps.db, order.reference);
      throw new DomainError("conflict", CHECKOUT_ERRORS.changed);
    }
  } catch (err) {
    if (err instanceof DomainError) throw err;
    deps.logger.error({ err: (err as Error).message }, "could not start the checkout");
    throw new DomainError("upstream_failed", CHECKOUT_ERRORS.paymentUnavailable);
  }
}

/** Cancels the order's live PaymentIntent; `already_succeeded` when Stripe had taken the money (the core then settled it). */
async function cancelPayment(deps: OrdersDeps, reference: string): Promise<"canceled" | "already_succeeded"> {
  const live = await deps.paymentCore.liveFor(ORDER_KIND, reference);
  return live ? deps.paymentCore.cancel(live) : "canceled";
}

/** The order's one live PaymentIntent (reused after a declined card); a PaymentNotOpenError when it can take no card. */
async function paymentFor(deps: OrdersDeps, order: Order, customer: Customer): Promise<string> {
  const { clientSecret } = await deps.paymentCore.ensureIntent({
    kind: ORDER_KIND,
    reference: order.reference,
    amountCents: order.totalCents,
    description: `${deps.site.displayName} order ${order.reference}`,
    email: customer.email,
  });
  return clientSecret;
}

/**
 * The browser's return after confirmCardPayment: settle the payment if its order was started by this
 * visitor session (any of its orders, not only the latest: the money may already be taken).
 */
export async function completeCheckout(deps: OrdersDeps, checkoutKey: string | undefined, paymentIntentId: string): Promise<{ result: SettleResult; order: Order }> {
  const order = checkoutKey ? await repo.findOrderByPaymentIntent(deps.db, paymentIntentId) : undefined;
  if (!order || order.checkoutKey !== checkoutKey) throw new DomainError("forbidden", CHECKOUT_ERRORS.notYourPayment);
  try {
    return { result: await deps.paymentCore.settle(paymentIntentId, "return"), order };
  } catch (err) {
    deps.logger.error({ err: (err as Error).message, reference: order.reference }, "could not confirm the payment with Stripe");
    throw new DomainError("upstream_failed", CHECKOUT_ERRORS.paymentUnavailable);
  }
}

/** The session's pending checkout's order once it has been paid (through either path), else undefined. */
export async function paidCheckoutOrder(deps: OrdersDeps, pending: PendingCheckout | undefined): Promise<Order | undefined> {
  if (!pending) return undefined;
  const order = await repo.findOrder(deps.db, pending.orderReference);
  return order?.status === "paid" ? order : undefined;
}
