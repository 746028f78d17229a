import { createAdminApiClient } from "@shopify/admin-api-client";
import type { Config } from "../config.ts";
import { shopifyFetch } from "../catalogue/shopify.ts";
import { centsToDecimal } from "../cart/rules.ts";
import type { Order } from "./repository.ts";

export const ORDER_CREATE_MUTATION = `#graphql
  mutation orderCreate($order: OrderCreateOrderInput!, $options: OrderCreateOptionsInput) {
    orderCreate(order: $order, options: $options) {
      order { id name }
      userErrors { field message }
    }
  }`;

const variantGid = (id: string) => (id.startsWith("gid://") ? id : `gid://shopify/ProductVariant/${id}`);

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
      lineItems: order.items.map((i) => ({
        variantId: variantGid(i.variantId),
        quantity: i.quantity,
        priceSet: amount(i.unitPriceCents),
        ...(i.selectedSize && !i.variantTitle.includes(i.selectedSize) ? { properties: [{ name: "Size", value: i.selectedSize }] } : {}),
      })),
      transactions: [{ kind: "SALE", status: "SUCCESS", gateway: "stripe", amountSet: amount(order.totalCents) }],
    },
    options: { sendReceipt: false, sendFulfillmentReceipt: false },
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
    const { data, errors } = await client.request(ORDER_CREATE_MUTATION, { variables: orderCreateVariables(order) });
    if (errors) throw new Error(`Shopify orderCreate failed: ${errors.message ?? JSON.stringify(errors.graphQLErrors ?? errors)}`);
    const result = (data as { orderCreate?: { order?: { id: string } | null; userErrors?: { message: string }[] } } | undefined)?.orderCreate;
    if (result?.userErrors?.length) throw new Error(`Shopify orderCreate refused: ${result.userErrors.map((e) => e.message).join("; ")}`);
    if (!result?.order?.id) throw new Error("Shopify orderCreate returned no order");
    return { orderId: result.order.id };
  };
}
