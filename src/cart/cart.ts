import { randomBytes } from "node:crypto";
import type { Request } from "express";
import type { CatalogueSource } from "../catalogue/source.ts";
import { CatalogueUnavailableError } from "../catalogue/source.ts";
import type { Product, Variant } from "../shared/catalogue/types.ts";
import {
  buildCartItem,
  compareAtPriceCents,
  fallbackSizes,
  isEventProduct,
  isVariantAvailable,
  maxQuantity,
  productPath,
  variantPriceCents,
} from "../shared/catalogue/rules.ts";
import { DomainError } from "../errors.ts";
import {
  addItem,
  itemCount,
  lineProblem,
  problemMessage,
  quantityLimit,
  sameLine,
  subtotalCents,
  type CartItem,
  type SessionCartItem,
  type CartLineView,
  type CartView,
} from "../shared/cart/rules.ts";
import { CART_ERRORS, CART_MESSAGES } from "../shared/cart/texts.ts";
import { centsToDecimal, formatPrice } from "../shared/money.ts";

/** The spec's server cart answer. */
export function cartJson(view: CartView) {
  return { success: true, cartItems: view.items, subtotal: centsToDecimal(view.subtotalCents), itemCount: view.itemCount };
}

export function newLineId(): string {
  return `li_${randomBytes(9).toString("base64url")}`;
}

/** The visitor's cart lines from the session (anything malformed is dropped). */
export function readCart(req: Request): SessionCartItem[] {
  const items = req.session?.cart?.items;
  if (!Array.isArray(items)) return [];
  return items.filter(
    (i): i is SessionCartItem =>
      Boolean(i) && typeof i.id === "string" && typeof i.productId === "string" && typeof i.variantId === "string" &&
      Number.isInteger(i.quantity) && i.quantity > 0 && Number.isInteger(i.priceCents),
  );
}

export function writeCart(req: Request, items: SessionCartItem[]): void {
  if (!req.session) throw new DomainError("unavailable", "We can't save changes right now because our session service is unavailable. Please try again in a minute.");
  req.session.cart = { items };
}

/** Catalogue reads for the cart; an outage answers 503 with a clear message. */
async function productsFor(catalogue: CatalogueSource, ids: string[]): Promise<Map<string, Product | null>> {
  const found = new Map<string, Product | null>();
  try {
    await Promise.all([...new Set(ids)].map(async (id) => found.set(id, await catalogue.findById(id))));
  } catch (err) {
    if (err instanceof CatalogueUnavailableError) throw new DomainError("unavailable", CART_ERRORS.catalogueDown);
    throw err;
  }
  return found;
}

function currentFacts(product: Product | null | undefined, variant: Variant | undefined) {
  if (!product || !variant) return null;
  return {
    priceCents: variantPriceCents(variant),
    available: isVariantAvailable(variant),
    stock: maxQuantity(variant),
    purchasable: !isEventProduct(product) && variantPriceCents(variant) > 0,
  };
}

/** A line whose product or variant left the catalogue: what the session still knows. */
function goneItem(item: SessionCartItem, price: string): CartItem<string> {
  return {
    shopifyProductId: item.productId,
    shopifyVariantId: item.variantId,
    productHandle: item.productId,
    productTitle: "Item no longer available",
    variantTitle: "Default",
    price,
    compareAtPrice: null,
    quantity: item.quantity,
    productImage: null,
    productType: "Product",
    vendor: "",
    selectedSize: item.selectedSize,
    selectedColor: null,
    variantOptions: {},
  };
}

/** The session cart checked against the catalogue as it is now. */
export async function viewCart(catalogue: CatalogueSource, items: SessionCartItem[]): Promise<CartView> {
  const products = await productsFor(catalogue, items.map((i) => i.productId));
  const lines: CartLineView[] = items.map((item) => {
    const product = products.get(item.productId) ?? null;
    const variant = product?.variants.find((v) => v.id === item.variantId);
    const facts = currentFacts(product, variant);
    const problem = lineProblem(item, facts);
    const title = product?.title ?? "This item";
    const priceCents = facts?.priceCents ?? item.priceCents;
    const compareCents = variant ? compareAtPriceCents(variant) : null;
    const shown: CartItem<string> = product && variant
      ? { ...buildCartItem(product, variant, item.quantity, item.selectedSize), price: centsToDecimal(priceCents), compareAtPrice: compareCents === null ? null : centsToDecimal(compareCents) }
      : goneItem(item, centsToDecimal(priceCents));
    return {
      id: item.id,
      ...shown,
      priceCents,
      updatedAt: new Date(item.updatedAt).toISOString(),
      productUrl: product ? productPath(product) : null,
      maxQuantity: quantityLimit(facts?.stock),
      problem,
      problemMessage: problem ? problemMessage(title, problem, formatPrice) : null,
    };
  });
  const payable = lines.filter((l) => l.problem?.kind !== "unavailable");
  return {
    items: lines,
    subtotalCents: subtotalCents(payable.map((l) => ({ unitPriceCents: l.priceCents, quantity: l.quantity }))),
    itemCount: itemCount(lines),
    problems: lines.flatMap((l) => (l.problemMessage ? [l.problemMessage] : [])),
  };
}

// A deeply frozen product (the bundled file, Shopify's cache) can never change: it is named by a number of its own,
// given once; any other product by its whole content, read again each time.
const frozenProducts = new WeakMap<Product, number>();
let frozenProductCount = 0;
const deeplyFrozen = (value: unknown): boolean =>
  value === null || typeof value !== "object" || (Object.isFrozen(value) && Object.values(value).every(deeplyFrozen));

function productVersion(product: Product | null): number | string | null {
  if (!product) return null;
  const known = frozenProducts.get(product);
  if (known !== undefined) return known;
  if (!deeplyFrozen(product)) return JSON.stringify(product);
  frozenProducts.set(product, ++frozenProductCount);
  return frozenProductCount;
}

/**
 * Names everything viewCart shows for these lines: the lines as the session holds them and each product as the
 * catalogue gives it now (viewCart is a function of the two). Cheaper than the view: a kept cart page is found by it.
 */
export async function cartStateKey(catalogue: CatalogueSource, items: SessionCartItem[]): Promise<string> {
  const products = await productsFor(catalogue, items.map((i) => i.productId));
  return JSON.stringify([items, [...products].map(([id, product]) => [id, productVersion(product)])]);
}

/** Adds to the session cart with the catalogue's facts; bad input throws a DomainError with a clear message and changes nothing. */
export async function addToCart(
  req: Request,
  catalogue: CatalogueSource,
  input: { productId: string; variantId: string; quantity: number; selectedSize: string | null },
): Promise<{ product: Product; variant: Variant; items: SessionCartItem[] }> {
  const product = (await productsFor(catalogue, [input.productId])).get(input.productId);
  if (!product) throw new DomainError("not_found", CART_ERRORS.productGone);
  if (isEventProduct(product)) throw new DomainError("invalid", CART_MESSAGES.notAllowed.description);
  if (product.variants.length === 0) throw new DomainError("invalid", CART_MESSAGES.noVariants.description);
  const variant = product.variants.find((v) => v.id === input.variantId);
  if (!variant) throw new DomainError("invalid", CART_MESSAGES.noVariant.description);
  if (!isVariantAvailable(variant)) throw new DomainError("conflict", CART_MESSAGES.outOfStock.description);
  const priceCents = variantPriceCents(variant);
  if (priceCents <= 0) throw new DomainError("invalid", CART_ERRORS.priceOnRequest);

  const sizes = fallbackSizes(product);
  let selectedSize: string | null = null;
  if (sizes.length > 0 && input.selectedSize) {
    if (!sizes.includes(input.selectedSize)) throw new DomainError("invalid", CART_ERRORS.invalidSize);
    selectedSize = input.selectedSize;
  }

  const items = readCart(req);
  const line = { productId: product.id, variantId: variant.id, selectedSize, quantity: input.quantity, priceCents };
  const already = items.find((i) => sameLine(i, line))?.quantity ?? 0;
  const limit = quantityLimit(maxQuantity(variant));
  if (already + input.quantity > limit) {
    throw new DomainError("conflict", already > 0 ? `${CART_ERRORS.notEnoughStock(limit)}: you already have ${already} in your cart` : CART_ERRORS.notEnoughStock(limit));
  }
  const next = addItem(items, line, newLineId(), Date.now());
  writeCart(req, next);
  return { product, variant, items: next };
}

/** Checks a new quantity for a line against the stock now; lowering is always allowed. */
export async function checkQuantity(catalogue: CatalogueSource, item: SessionCartItem, quantity: number): Promise<void> {
  if (quantity < item.quantity) return;
  const product = (await productsFor(catalogue, [item.productId])).get(item.productId);
  const variant = product?.variants.find((v) => v.id === item.variantId);
  const facts = currentFacts(product, variant);
  if (!facts || !facts.purchasable) throw new DomainError("conflict", CART_ERRORS.productGone);
  if (!facts.available) throw new DomainError("conflict", CART_MESSAGES.outOfStock.description);
  const limit = quantityLimit(facts.stock);
  if (quantity > limit) throw new DomainError("conflict", CART_ERRORS.notEnoughStock(limit));
}

export async function currentPriceCents(catalogue: CatalogueSource, item: SessionCartItem): Promise<number> {
  const product = (await productsFor(catalogue, [item.productId])).get(item.productId);
  const variant = product?.variants.find((v) => v.id === item.variantId);
  if (!product || !variant) throw new DomainError("conflict", CART_ERRORS.productGone);
  return variantPriceCents(variant);
}
