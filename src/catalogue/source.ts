import type { Config } from "../config.ts";
import type { Logger } from "../logger.ts";
import type { Product } from "./types.ts";
import { createBundledCatalogue } from "./bundled.ts";
import { createShopifyCatalogue } from "./shopify.ts";

/** Where products come from: the bundled file or Shopify. Both answer with the same Product shape. */
export interface CatalogueSource {
  listProducts(): Promise<Product[]>;
  findByHandle(handle: string): Promise<Product | null>;
  findById(id: string): Promise<Product | null>;
}

/** Thrown by a source whose backing service failed (after its retry); pages show empty / not-found states. */
export class CatalogueUnavailableError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "CatalogueUnavailableError";
  }
}

/** Shopify when SHOPIFY_STORE_DOMAIN and SHOPIFY_STOREFRONT_TOKEN are set, else the bundled catalogue. */
export function createCatalogueSource(config: Config, logger: Logger): CatalogueSource {
  if (config.shopify) {
    logger.info({ store: config.shopify.storeDomain }, "catalogue: Shopify Storefront API");
    return createShopifyCatalogue(config.shopify, logger);
  }
  return createBundledCatalogue({ brandName: config.brandName });
}
