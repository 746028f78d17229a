import type { Knex } from "knex";
import { createAdminApiClient } from "@shopify/admin-api-client";
import type { Config } from "../config.ts";
import type { Db } from "../db/knex.ts";
import type { Logger } from "../logger.ts";
import { createJobQueue, type JobQueue } from "../db/jobQueue.ts";
import { shopifyFetch } from "../catalogue/shopify.ts";
import { centsToDecimal } from "../shared/money.ts";
import * as repo from "./repository.ts";
import type { Order } from "../shared/orders/types.ts";

export const ORDER_CREATE_MUTATION = `#graphql
  mutation orderCreate($order: OrderCreateOrderInput!, $options: OrderCreateOptionsInput) {
    orderCreate(order: $order, options: $options) {
      order { id name }
      userErrors { field message }
    }
  }`;

const variantGid = (id: string) => (id.startsWith("gid://") ? id : `gid://shopify/ProductVariant/${id}`);

/** Shopify's MailingAddressInput from our one-line name: the last word is the last name. */
function shopifyShippingAddress(order: Order) {
  const a = order.shippingAddress;
  if (!a) return {};
  const words = a.name.split(" ");
  const lastName = words.length > 1 ? words.pop()! : a.name;
  return {
    shippingAddress: {
      firstName: words.length > 0 && lastName !== a.name ? words.join(" ") : undefined,
      lastName,
      address1: a.line1,
      address2: a.line2 || undefined,
      city: a.city,
      provinceCode: a.state,
      zip: a.zip,
      countryCode: "US",
    },
  };
}

/** The Admin API's orderCreate input for a paid order (already paid through Stripe: a paid transaction, no e-mail from Shopify). */
export function orderCreateVariables(order: Order) {
  const amount = (cents: number) => ({ shopMoney: { amount: centsToDecimal(cents), currencyCode: order.currency.toUpperCase() } });
  return {
    order: {
      email: order.customer.email,
      phone: order.customer.phone || undefined,
      currency: order.currency.toUpperCase(),
      financialStatus: "PAID",
      sourceIdentifier: order.reference,
      note: `Website order ${order.reference} (paid by card through Stripe)`,
      billingAddress: { firstName: order.customer.firstName, lastName: order.customer.lastName },
      ...shopifyShippingAddress(order),
      shippingLines: [{ title: order.shippingCents === 0 ? "Free shipping (orders over $75)" : "Standard shipping", priceSet: amount(order.shippingCents) }],
      lineItems: order.items.map((i) => ({
        variantId: variantGid(i.variantId),
        quantity: i.quantity,
        priceSet: amount(i.unitPriceCents),
        ...(i.selectedSize && !i.variantTitle.includes(i.selectedSize) ? { properties: [{ name: "Size", value: i.selectedSize }] } : {}),
      })),
      transactions: [{ kind: "SALE", status: "SUCCESS", gateway: "stripe", amountSet: amount(order.totalCents) }],
    },
    // Shopify's default (BYPASS) would leave its stock untouched; this claims it, within each product's inventory policy.
    options: { sendReceipt: false, sendFulfillmentReceipt: false, inventoryBehaviour: "DECREMENT_OBEYING_POLICY" },
  };
}

export type ShopifyOrderWriter = (order: Order) => Promise<{ orderId: string }>;

/** Creates the paid order in Shopify through the Admin API; undefined when no Admin token is configured. */
export function createShopifyOrderWriter(shopify: Config["shopify"]): ShopifyOrderWriter | undefined {
  if (!shopify?.adminToken) return undefined;
  const client = createAdminApiClient({
    storeDomain: shopify.storeDomain,
    apiVersion: shopify.apiVersion,
    accessToken: shopify.adminToken,
    retries: 1,
    customFetchApi: shopifyFetch(5000),
  });
  return async (order) => {
    const { data, errors } = await client.request<{ orderCreate?: { order?: { id: string } | null; userErrors?: { message: string }[] } }>(ORDER_CREATE_MUTATION, { variables: orderCreateVariables(order) });
    if (errors) throw new Error(`Shopify orderCreate failed: ${errors.message ?? JSON.stringify(errors.graphQLErrors ?? errors)}`);
    const result = data?.orderCreate;
    if (result?.userErrors?.length) throw new Error(`Shopify orderCreate refused: ${result.userErrors.map((e) => e.message).join("; ")}`);
    if (!result?.order?.id) throw new Error("Shopify orderCreate returned no order");
    return { orderId: result.order.id };
  };
}

/** Queues the order's write-back in the transaction that marks it paid; wake the queue after the commit. */
export async function enqueueShopifyWriteBack(trx: Knex.Transaction, orderId: number): Promise<void> {
  const now = new Date();
  await trx("shopify_writebacks").insert({ order_id: orderId, status: "pending", attempts: 0, next_attempt_at: now, created_at: now });
}

/**
 * The write-back worker: creates each paid order in Shopify, retried with the outbox's backoff; after the
 * last attempt the row stays `failed` with its error (README: listing them) and the order says so too.
 */
export function createShopifyWriteBacks(opts: { db: Db; shopify: Config["shopify"]; logger: Logger; intervalMs?: number }): JobQueue | undefined {
  const { db, logger } = opts;
  const writer = createShopifyOrderWriter(opts.shopify);
  if (!writer) return undefined;
  return createJobQueue({
    db,
    logger,
    table: "shopify_writebacks",
    name: "shopify write-back",
    intervalMs: opts.intervalMs,
    describe: (row) => ({ writeBackId: row.id, orderId: row.order_id }),
    async run(row) {
      const order = await repo.findOrderById(db, Number(row.order_id));
      if (!order) throw new Error(`order ${String(row.order_id)} not found`);
      // Written by a worker that stopped before it could mark the job done: never create it twice.
      if (order.shopifyOrderId) return { shopify_order_id: order.shopifyOrderId };
      const { orderId } = await writer(order);
      await repo.setShopifyResult(db, order.reference, { orderId });
      logger.info({ reference: order.reference, shopifyOrderId: orderId }, "order written to Shopify");
      return { shopify_order_id: orderId };
    },
    async onFailure(row, error, final) {
      await repo.setShopifyFailure(db, Number(row.order_id), error, final);
    },
  });
}
