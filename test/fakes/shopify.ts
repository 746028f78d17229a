/**
 * A fake Shopify on loopback for tests: the Storefront API (products, product by handle or id) and the
 * Admin API (orderCreate), both GraphQL over POST at Shopify's paths, checking Shopify's token headers.
 * It serves the bundled catalogue's products in the Storefront API's shape, so both sources show the same
 * fixtures. The real @shopify clients talk to it (with the loopback `customFetchApi` of src/catalogue/shopify.ts).
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { BUNDLED_CATALOGUE_FILE, loadCatalogueFile } from "../../src/catalogue/bundled.ts";
import { parsePriceCents } from "../../src/shared/money.ts";
import type { StorefrontProduct } from "../../src/catalogue/shopify.ts";
import type { Product } from "../../src/shared/catalogue/types.ts";

export type FakeShopifyMode = "up" | "down" | "hang";

export interface GraphqlCall {
  api: "storefront" | "admin";
  operationName: string;
  query: string;
  variables: Record<string, unknown>;
}

export interface FakeShopify {
  /** For SHOPIFY_STORE_DOMAIN: "127.0.0.1:port". */
  domain: string;
  storefrontToken: string;
  adminToken: string;
  apiVersion: string;
  /** The environment that points the app at this fake. */
  env(): Record<string, string>;
  products: StorefrontProduct[];
  /** GraphQL operations answered (not those refused by the outage modes). */
  calls: GraphqlCall[];
  /** Every request that reached the fake, answered or not. */
  requestCount(): number;
  /** Orders received through the Admin API's orderCreate, with the ids the fake gave them. */
  orders: { id: string; name: string; input: Record<string, unknown> }[];
  /** up: answers; down: 503 like an outage; hang: accepts the request and never answers. */
  setMode(mode: FakeShopifyMode): void;
  /** The next n requests answer 503, then the fake answers again (to see a retry succeed). */
  failNext(n: number): void;
  stop(): Promise<void>;
}

const gid = (type: string, id: string) => (id.startsWith("gid://") ? id : `gid://shopify/${type}/${id}`);
const money = (price: string) => ({ amount: (parsePriceCents(price) / 100).toFixed(1), currencyCode: "USD" });
const slug = (s: string) => s.toLowerCase().replace(/[^a-z0-9]+/g, "-").replace(/^-|-$/g, "");

/** A Product of the spec's shape as the Storefront API returns it (inverse of mapStorefrontProduct). */
export function toStorefrontProduct(p: Product): StorefrontProduct {
  return {
    id: gid("Product", p.id),
    handle: p.handle ?? slug(p.title),
    title: p.title,
    descriptionHtml: p.body_html,
    productType: p.product_type,
    vendor: p.vendor,
    tags: p.tags,
    images: { nodes: p.images.map((img) => ({ url: img.src, altText: img.alt ?? null })) },
    options: p.options.map((o) => ({ name: o.name, optionValues: o.values.map((name) => ({ name })) })),
    variants: {
      nodes: p.variants.map((v) => ({
        id: gid("ProductVariant", v.id),
        title: v.title,
        availableForSale: v.available !== false && (v.inventory_quantity === undefined || v.inventory_quantity === null || v.inventory_quantity > 0),
        quantityAvailable: v.inventory_quantity ?? null,
        price: money(v.price),
        compareAtPrice: v.compare_at_price ? money(v.compare_at_price) : null,
        selectedOptions: p.options
          .map((o, i) => ({ name: o.name, value: [v.option1, v.option2, v.option3][i] ?? null }))
          .filter((s): s is { name: string; value: string } => s.value !== null),
        image: v.image ? { url: v.image.src, altText: null } : null,
      })),
    },
  };
}

/**
 * Shopify's availableForSale is false for a sold-out tracked variant, so the zero-stock tee stays
 * "available: true, quantity 0" only in the bundled file; both read as unavailable through isVariantAvailable.
 */
export function fixtureProducts(brandName = "Ironside"): StorefrontProduct[] {
  return loadCatalogueFile(BUNDLED_CATALOGUE_FILE, brandName).map(toStorefrontProduct);
}

function operationName(query: string, given: unknown): string {
  if (typeof given === "string" && given) return given;
  return /\b(?:query|mutation)\s+(\w+)/.exec(query)?.[1] ?? "";
}

export async function startFakeShopify(opts: { products?: StorefrontProduct[]; apiVersion?: string; brandName?: string } = {}): Promise<FakeShopify> {
  const apiVersion = opts.apiVersion ?? "2026-10";
  const storefrontToken = "fake-storefront-token";
  const adminToken = "shpat_fake_admin_token";
  const products = opts.products ?? fixtureProducts(opts.brandName);
  const calls: GraphqlCall[] = [];
  const orders: FakeShopify["orders"] = [];
  let mode: FakeShopifyMode = "up";
  let failures = 0;
  let requests = 0;
  const hanging = new Set<http.ServerResponse>();

  const send = (res: http.ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { "content-type": "application/json; charset=utf-8" }).end(JSON.stringify(body));
  };

  function storefront(name: string, variables: Record<string, unknown>): unknown {
    if (name === "CatalogueProducts") {
      const first = Math.min(Number(variables.first ?? 50), 250);
      const start = typeof variables.after === "string" ? Number(variables.after) : 0;
      const page = products.slice(start, start + first);
      const end = start + page.length;
      return {
        data: {
          products: { nodes: page, pageInfo: { hasNextPage: end < products.length, endCursor: page.length ? String(end) : null } },
        },
      };
    }
    if (name === "CatalogueProductByHandle") return { data: { product: products.find((p) => p.handle === variables.handle) ?? null } };
    if (name === "CatalogueProductById") {
      if (typeof variables.id !== "string" || !variables.id.startsWith("gid://shopify/")) {
        return { errors: [{ message: `Variable $id of type ID! was provided invalid value`, extensions: { code: "INVALID_VARIABLE" } }] };
      }
      return { data: { product: products.find((p) => p.id === variables.id) ?? null } };
    }
    return { errors: [{ message: `Field '${name}' doesn't exist on type 'QueryRoot'`, extensions: { code: "undefinedField" } }] };
  }

  function admin(name: string, query: string, variables: Record<string, unknown>): unknown {
    if (/\borderCreate\s*\(/.test(query)) {
      const input = (variables.order ?? variables.input ?? {}) as Record<string, unknown>;
      const id = `gid://shopify/Order/${5_000_000 + orders.length + 1}`;
      const order = { id, name: `#${1001 + orders.length}`, input };
      orders.push(order);
      return { data: { orderCreate: { order: { id: order.id, name: order.name }, userErrors: [] } } };
    }
    return { errors: [{ message: `Unsupported operation '${name}' in the fake Admin API` }] };
  }

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      requests += 1;
      const url = new URL(req.url ?? "/", "http://fake");
      const api = url.pathname === `/api/${apiVersion}/graphql.json` ? "storefront" : url.pathname === `/admin/api/${apiVersion}/graphql.json` ? "admin" : null;
      if (req.method !== "POST" || !api) return send(res, 404, { errors: "Not Found" });
      const tokenOk =
        api === "storefront"
          ? req.headers["x-shopify-storefront-access-token"] === storefrontToken || req.headers["shopify-storefront-private-token"] === storefrontToken
          : req.headers["x-shopify-access-token"] === adminToken;
      if (!tokenOk) return send(res, 401, { errors: "[API] Invalid API key or access token (unrecognized login or wrong password)" });
      if (mode === "hang") {
        hanging.add(res);
        return;
      }
      if (mode === "down" || failures > 0) {
        if (failures > 0) failures -= 1;
        return send(res, 503, { errors: "Service Unavailable" });
      }
      let body: { query?: string; variables?: Record<string, unknown>; operationName?: string };
      try {
        body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as typeof body;
      } catch {
        return send(res, 400, { errors: [{ message: "Invalid JSON in request body" }] });
      }
      const query = body.query ?? "";
      const name = operationName(query, body.operationName);
      const variables = body.variables ?? {};
      calls.push({ api, operationName: name, query, variables });
      send(res, 200, api === "storefront" ? storefront(name, variables) : admin(name, query, variables));
    });
  });

  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  const domain = `127.0.0.1:${port}`;

  return {
    domain,
    storefrontToken,
    adminToken,
    apiVersion,
    env: () => ({
      SHOPIFY_STORE_DOMAIN: domain,
      SHOPIFY_STOREFRONT_TOKEN: storefrontToken,
      SHOPIFY_ADMIN_TOKEN: adminToken,
      SHOPIFY_API_VERSION: apiVersion,
    }),
    products,
    calls,
    requestCount: () => requests,
    orders,
    setMode: (m) => {
      mode = m;
    },
    failNext: (n) => {
      failures = n;
    },
    stop: async () => {
      if (!server.listening) return;
      for (const res of hanging) res.destroy();
      hanging.clear();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
