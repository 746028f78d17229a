import type { Config } from "../config.ts";
import type { Logger } from "../logger.ts";
import type { CatalogueSource } from "./source.ts";
import { createBundledCatalogue } from "./bundled.ts";
import { createShopifyCatalogue } from "./shopify.ts";

/** Shopify when SHOPIFY_STORE_DOMAIN and SHOPIFY_STOREFRONT_TOKEN are set, else the bundled catalogue. */
export function createCatalogueSource(config: Config, logger: Logger): CatalogueSource {
  if (config.shopify) {
    logger.info({ store: config.shopify.storeDomain }, "catalogue: Shopify Storefront API");
    return createShopifyCatalogue(config.shopify, logger);
  }
  return createBundledCatalogue({ brandName: config.brandName });
}
