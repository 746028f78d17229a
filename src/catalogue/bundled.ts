import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { validate } from "../shared/forms.ts";
import { CatalogueFileSchema } from "./schema.ts";
import type { CatalogueSource } from "./source.ts";
import type { Product } from "../shared/catalogue/types.ts";
import { deepFreeze } from "../cache/ttl.ts";

export const BUNDLED_CATALOGUE_FILE = path.join(path.dirname(fileURLToPath(import.meta.url)), "bundled-catalogue.json");

/** The file's "{{brand}}" placeholders take the configured brand name, so a renamed brand renames its products. */
export function loadCatalogueFile(file: string, brandName: string): Product[] {
  const text = fs.readFileSync(file, "utf8").replaceAll("{{brand}}", brandName.replace(/["\\]/g, ""));
  const result = validate(CatalogueFileSchema, JSON.parse(text));
  if (!result.ok) {
    const [field, message] = Object.entries(result.errors)[0] ?? ["", result.message];
    throw new Error(`Catalogue file ${path.basename(file)} is invalid at ${field}: ${message}`);
  }
  return result.data.products;
}

/** The embedded default: products from a JSON file in the spec's Product shape, read once and, like cached Shopify products, shared frozen. */
export function createBundledCatalogue({ brandName, file = BUNDLED_CATALOGUE_FILE }: { brandName: string; file?: string }): CatalogueSource {
  const products = deepFreeze(loadCatalogueFile(file, brandName));
  return {
    listProducts: async () => products,
    findByHandle: async (handle) => products.find((p) => p.handle === handle) ?? null,
    findById: async (id) => products.find((p) => p.id === id) ?? null,
  };
}
