import type { Product } from "../shared/catalogue/types.ts";

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
