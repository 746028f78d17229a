import { Router, type Request } from "express";
import type { Logger } from "../logger.ts";
import type { Site } from "../shared/site.ts";
import type { ReactNode } from "react";
import { renderPage, type PageContext } from "../http/render.tsx";
import { CatalogueUnavailableError, type CatalogueSource } from "./source.ts";
import type { Product } from "../shared/catalogue/types.ts";
import {
  fallbackSizes,
  filterRetail,
  imageSrc,
  isVariantAvailable,
  productPath,
  resolveVariant,
  selectionFromQuery,
  shipsStartingNote,
  shortDescription,
  stripTags,
  variantImageIndex,
  variantImageSrc,
} from "../shared/catalogue/rules.ts";
import { sanitizeDescriptionHtml } from "./html.ts";
import { centsToDecimal, parsePriceCents } from "../shared/money.ts";
import { ShopPage } from "../../views/pages/shop/ShopPage.tsx";
import { ProductNotFoundPage, ProductPage } from "../../views/pages/shop/ProductPage.tsx";
import type { ProductPickerProps } from "../../widgets/islands/ProductPicker.tsx";
import { siteOrigin } from "../http/origin.ts";

export const CATALOGUE_UNAVAILABLE_MESSAGE = "Our product catalog is temporarily unavailable. Please try again in a few minutes.";
export const PRODUCT_NOT_FOUND = "Product not found";

interface Deps {
  catalogue: CatalogueSource;
  site: Site;
  logger: Logger;
  /** The panel of the order this visitor session has just paid, if any (orders/routes.tsx justPaidPanel). */
  paymentConfirmation: (req: Request) => Promise<ReactNode>;
}

/** A route's read: the value, or `unavailable` after logging when the source's service failed. */
async function read<T>(logger: Logger, what: string, load: () => Promise<T>): Promise<{ value: T; unavailable: false } | { value: null; unavailable: true }> {
  try {
    return { value: await load(), unavailable: false };
  } catch (err) {
    if (!(err instanceof CatalogueUnavailableError)) throw err;
    logger.error({ err, what }, "catalogue unavailable");
    return { value: null, unavailable: true };
  }
}

/** The URL parameter is the handle; cards of products without one link by id. */
async function findProduct(catalogue: CatalogueSource, key: string): Promise<Product | null> {
  return (await catalogue.findByHandle(key)) ?? (await catalogue.findById(key));
}

function first(value: unknown): string | undefined {
  const v: unknown = Array.isArray(value) ? value[0] : value;
  return typeof v === "string" ? v : undefined;
}

/** What the product page's widget starts from: the variant chosen in the query string, its picture, the fallback size. */
export function pickerState(product: Product, query: Record<string, unknown>, csrfToken: string, shipsLater: string | null): ProductPickerProps {
  const selection = selectionFromQuery(product, query);
  const variant = resolveVariant(product, selection);
  const requestedImage = Number.parseInt(first(query.image) ?? "", 10);
  const imageIndex =
    Number.isInteger(requestedImage) && requestedImage >= 0 && requestedImage < product.images.length
      ? requestedImage
      : (variantImageIndex(product, variant) ?? 0);
  const size = first(query.Size);
  const sizes = fallbackSizes(product);
  return {
    product: { ...product, body_html: sanitizeDescriptionHtml(product.body_html) },
    selection,
    imageIndex,
    fallbackSize: size && sizes.includes(size) ? size : null,
    shipsLater,
    csrfToken,
  };
}

function productJsonLd(product: Product, picker: ProductPickerProps, url: string, origin: string): object {
  const variant = resolveVariant(product, picker.selection);
  const images = product.images.map((img) => new URL(imageSrc(img) ?? "", origin).href);
  const cents = variant ? parsePriceCents(variant.price) : 0;
  return {
    "@context": "https://schema.org",
    "@type": "Product",
    name: product.title,
    description: stripTags(product.body_html),
    image: images,
    sku: variant?.id,
    brand: { "@type": "Brand", name: product.vendor },
    category: product.product_type || undefined,
    ...(variant && cents > 0
      ? {
          offers: {
            "@type": "Offer",
            url,
            priceCurrency: "USD",
            price: centsToDecimal(cents),
            availability: isVariantAvailable(variant) ? "https://schema.org/InStock" : "https://schema.org/OutOfStock",
          },
        }
      : {}),
  };
}

export function shopRoutes({ catalogue, site, logger, paymentConfirmation }: Deps): Router {
  const router = Router();

  router.get("/shop", async (req, res) => {
    const result = await read(logger, "retail list", () => catalogue.listProducts());
    const products = result.unavailable ? [] : filterRetail(result.value, site.brandName);
    const confirmation = await paymentConfirmation(req);
    renderPage(req, res, <ShopPage brandName={site.brandName} products={products} unavailable={result.unavailable} shipsLater={shipsStartingNote(site.shipsStarting, new Date())} paymentConfirmation={confirmation} />, {
      title: "Shop",
      description: `Shop ${site.displayName} heavyweight tees and caps: premium wrestling apparel, shipped fast.`,
      sameForStatelessVisitors: true,
      status: result.unavailable ? 503 : 200,
    });
  });

  router.get("/shop/:handle", async (req: Request<{ handle: string }>, res) => {
    const result = await read(logger, "product", () => findProduct(catalogue, req.params.handle));
    const product = result.value;
    if (!product) {
      renderPage(req, res, <ProductNotFoundPage unavailable={result.unavailable} />, {
        title: PRODUCT_NOT_FOUND,
        description: "This product does not exist or is no longer available.",
        status: result.unavailable ? 503 : 404,
        noindex: true,
      });
      return;
    }
    const ctx = res.locals.page as PageContext;
    const picker = pickerState(product, req.query, ctx.csrfToken, shipsStartingNote(site.shipsStarting, new Date()));
    const origin = siteOrigin(req, ctx.publicUrl);
    const variant = resolveVariant(product, picker.selection);
    renderPage(req, res, <ProductPage picker={picker} />, {
      title: product.title,
      description: shortDescription(product.body_html) || product.title,
      sameForStatelessVisitors: true,
      jsonLd: [productJsonLd(product, picker, `${origin}${productPath(product)}`, origin)],
      openGraph: { type: "product", image: variantImageSrc(variant) ?? imageSrc(product.images[0]) },
    });
  });

  router.get("/api/products/retail", async (_req, res) => {
    const result = await read(logger, "retail list", () => catalogue.listProducts());
    if (result.unavailable) {
      res.status(503).set("retry-after", "30").json({ success: false, error: CATALOGUE_UNAVAILABLE_MESSAGE });
      return;
    }
    res.set("cache-control", "public, max-age=300").json(filterRetail(result.value, site.brandName));
  });

  router.get("/api/shop/products/handle/:handle", async (req: Request<{ handle: string }>, res) => {
    const result = await read(logger, "product", () => catalogue.findByHandle(req.params.handle));
    if (result.unavailable) {
      res.status(503).set("retry-after", "30").json({ success: false, error: CATALOGUE_UNAVAILABLE_MESSAGE });
      return;
    }
    if (!result.value) {
      res.status(404).json({ success: false, error: PRODUCT_NOT_FOUND });
      return;
    }
    res.set("cache-control", "public, max-age=300").json(result.value);
  });

  return router;
}
