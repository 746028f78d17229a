import { createStorefrontApiClient, type StorefrontApiClient } from "@shopify/storefront-api-client";
import type { Config } from "../config.ts";
import type { Logger } from "../logger.ts";
import { CATALOGUE_CACHE_MS } from "../shared/catalogue/rules.ts";
import { centsToDecimal, parsePriceCents } from "../shared/money.ts";
import { createTtlCache } from "../cache/ttl.ts";
import { CatalogueUnavailableError, type CatalogueSource } from "./source.ts";
import type { Product, ProductImage, Variant } from "../shared/catalogue/types.ts";

// ---------- the Storefront API's shape (only the fields we ask for) ----------

export interface StorefrontMoney {
  amount: string;
  currencyCode: string;
}
export interface StorefrontImage {
  url: string;
  altText: string | null;
}
export interface StorefrontVariant {
  id: string;
  title: string;
  availableForSale: boolean;
  quantityAvailable: number | null;
  price: StorefrontMoney;
  compareAtPrice: StorefrontMoney | null;
  selectedOptions: { name: string; value: string }[];
  image: StorefrontImage | null;
}
export interface StorefrontProduct {
  id: string;
  handle: string;
  title: string;
  descriptionHtml: string;
  productType: string;
  vendor: string;
  tags: string[];
  images: { nodes: StorefrontImage[] };
  options: { name: string; optionValues: { name: string }[] }[];
  variants: { nodes: StorefrontVariant[] };
}

const PRODUCT_FIELDS = `#graphql
  fragment CatalogueProduct on Product {
    id handle title descriptionHtml productType vendor tags
    images(first: 20) { nodes { url altText } }
    options { name optionValues { name } }
    variants(first: 100) {
      nodes {
        id title availableForSale quantityAvailable
        price { amount currencyCode }
        compareAtPrice { amount currencyCode }
        selectedOptions { name value }
        image { url altText }
      }
    }
  }
`;

export const PRODUCTS_QUERY = `#graphql
  query CatalogueProducts($first: Int!, $after: String) {
    products(first: $first, after: $after) {
      nodes { ...CatalogueProduct }
      pageInfo { hasNextPage endCursor }
    }
  }
  ${PRODUCT_FIELDS}
`;
export const PRODUCT_BY_HANDLE_QUERY = `#graphql
  query CatalogueProductByHandle($handle: String!) { product(handle: $handle) { ...CatalogueProduct } }
  ${PRODUCT_FIELDS}
`;
export const PRODUCT_BY_ID_QUERY = `#graphql
  query CatalogueProductById($id: ID!) { product(id: $id) { ...CatalogueProduct } }
  ${PRODUCT_FIELDS}
`;

const PAGE_SIZE = 100;
const MAX_PAGES = 10;

// ---------- mapping ----------

const decimal = (money: StorefrontMoney) => centsToDecimal(parsePriceCents(money.amount));

/** A Storefront API product as the spec's Product. */
export function mapStorefrontProduct(node: StorefrontProduct): Product {
  const options = node.options.map((o) => ({ name: o.name, values: o.optionValues.map((v) => v.name) }));
  const images: ProductImage[] = node.images.nodes.map((img) => ({ src: img.url, url: img.url, alt: img.altText, altText: img.altText }));
  const variants: Variant[] = node.variants.nodes.map((v) => {
    const optionValue = (i: number) => {
      const name = options[i]?.name;
      return name === undefined ? null : (v.selectedOptions.find((s) => s.name === name)?.value ?? null);
    };
    return {
      id: v.id,
      title: v.title,
      price: decimal(v.price),
      compare_at_price: v.compareAtPrice ? decimal(v.compareAtPrice) : null,
      option1: optionValue(0),
      option2: optionValue(1),
      option3: optionValue(2),
      image: v.image ? { src: v.image.url } : null,
      available: v.availableForSale,
      inventory_quantity: v.quantityAvailable,
    };
  });
  return {
    id: node.id,
    handle: node.handle || null,
    title: node.title,
    body_html: node.descriptionHtml,
    product_type: node.productType,
    vendor: node.vendor,
    tags: node.tags,
    images,
    options,
    variants,
  };
}

/** "1001" -> "gid://shopify/Product/1001"; a gid stays; anything else is no Shopify product id. */
export function productGid(id: string): string | null {
  if (/^gid:\/\/shopify\/Product\/\d+$/.test(id)) return id;
  if (/^\d+$/.test(id)) return `gid://shopify/Product/${id}`;
  return null;
}

// ---------- the client ----------

const LOOPBACK = new Set(["127.0.0.1", "localhost", "[::1]"]);

/**
 * Shopify's clients always speak https; a fake on loopback (tests, local demos) speaks http. Only loopback
 * hosts are downgraded. Every request carries a timeout.
 */
export function shopifyFetch(timeoutMs: number) {
  return (url: string, init?: RequestInit) => {
    const target = new URL(url);
    if (LOOPBACK.has(target.hostname)) target.protocol = "http:";
    return fetch(target, { ...init, signal: AbortSignal.timeout(timeoutMs) });
  };
}

export interface ShopifyCatalogueOptions {
  /** Per attempt; two attempts plus the pause stay under 3 s. */
  timeoutMs?: number;
  retryDelayMs?: number;
  cacheMs?: number;
}

type ShopifyConfig = NonNullable<Config["shopify"]>;

/** The catalogue from Shopify's Storefront API: cached 5 minutes, each read retried once, with a timeout. */
export function createShopifyCatalogue(config: ShopifyConfig, logger: Logger, opts: ShopifyCatalogueOptions = {}): CatalogueSource {
  const timeoutMs = opts.timeoutMs ?? 1000;
  const retryDelayMs = opts.retryDelayMs ?? 150;
  const client: StorefrontApiClient = createStorefrontApiClient({
    storeDomain: config.storeDomain,
    apiVersion: config.apiVersion,
    publicAccessToken: config.storefrontToken,
    retries: 0,
    customFetchApi: shopifyFetch(timeoutMs),
    // The client's own notices (an API version Shopify no longer supports) go to our log, not the console.
    logger: (log) => {
      if (log.type === "Unsupported_Api_Version") {
        logger.warn({ apiVersion: log.content.apiVersion, supported: log.content.supportedApiVersions }, "SHOPIFY_API_VERSION is not supported by Shopify any more");
      }
    },
  });
  const cache = createTtlCache({
    ttlMs: opts.cacheMs ?? CATALOGUE_CACHE_MS,
    onStale: (key, err) => logger.error({ err, key }, "Shopify catalogue read failed; serving the last good copy"),
  });

  async function query<T>(operation: string, variables: Record<string, unknown>): Promise<T> {
    let lastError: unknown;
    for (let attempt = 1; attempt <= 2; attempt++) {
      try {
        const { data, errors } = await client.request<T>(operation, { variables });
        if (errors) throw new Error(errors.message ?? "Shopify answered with errors", { cause: errors });
        if (!data) throw new Error("Shopify answered without data");
        return data;
      } catch (err) {
        lastError = err;
        logger.warn({ err, attempt }, "Shopify Storefront request failed");
        if (attempt === 1) await new Promise((r) => setTimeout(r, retryDelayMs));
      }
    }
    throw new CatalogueUnavailableError("The Shopify catalogue is not answering", { cause: lastError });
  }

  async function fetchAll(): Promise<Product[]> {
    const products: Product[] = [];
    let after: string | null = null;
    for (let page = 0; page < MAX_PAGES; page++) {
      const data: { products: { nodes: StorefrontProduct[]; pageInfo: { hasNextPage: boolean; endCursor: string | null } } } =
        await query(PRODUCTS_QUERY, { first: PAGE_SIZE, after });
      products.push(...data.products.nodes.map(mapStorefrontProduct));
      if (!data.products.pageInfo.hasNextPage) break;
      after = data.products.pageInfo.endCursor;
    }
    return products;
  }

  async function fetchOne(operation: string, variables: Record<string, unknown>): Promise<Product | null> {
    const data = await query<{ product: StorefrontProduct | null }>(operation, variables);
    return data.product ? mapStorefrontProduct(data.product) : null;
  }

  return {
    listProducts: () => cache.get("products", fetchAll),
    findByHandle: (handle) => cache.get(`handle:${handle}`, () => fetchOne(PRODUCT_BY_HANDLE_QUERY, { handle })),
    findById: async (id) => {
      const gid = productGid(id);
      return gid ? cache.get(`id:${gid}`, () => fetchOne(PRODUCT_BY_ID_QUERY, { id: gid })) : null;
    },
  };
}
