/**
 * The catalogue's pure rules: prices, variant resolution, availability, the retail filter, card text,
 * shipping notes, add-to-cart checks and the cart item a product page sends. Browser-safe (no zod, no Node).
 */
import type { OptionSelection, Product, ProductImage, Variant } from "./types.ts";
import type { CartItem } from "../cart/rules.ts";
import { centsToDollars, formatPrice, isPrice, parsePriceCents } from "../money.ts";
import { realSavingCents } from "../events/rules.ts";

/** Retail list and product reads are cached this long (the spec's 300000 ms). */
export const CATALOGUE_CACHE_MS = 300_000;
export const DISPLAY_RATING = 4.8;
export const DEFAULT_SIZES = ["XS", "S", "M", "L", "XL", "XXL"] as const;
export const DESCRIPTION_PREVIEW_LENGTH = 100;
export const EVENT_PRODUCT_TYPE = "Event Registration";
export const EVENT_TAG = "event";

/** The brand ships from Birmingham, AL: "today" for shipping dates is the warehouse's day. */
export const WAREHOUSE_TIME_ZONE = "America/Chicago";
export const STANDARD_SHIPPING_NOTE = "2-3 business days";
export const AIR_DRY_NOTE = "Air dry recommended: keeps the heavyweight cotton true to size.";
export const CONTACT_FOR_PRICING = "Contact for pricing";
export const FREE_SHIPPING_NOTE = "Free shipping on orders over $75";

export type AddToCartProblem = "notAllowed" | "noVariant" | "outOfStock";

// ---------- money ----------

/** A card's price: 2 decimals, or 'Contact for pricing' when the price is 0. */
export function priceLabel(cents: number): string {
  return cents === 0 ? CONTACT_FOR_PRICING : formatPrice(cents);
}

export function variantPriceCents(variant: Variant): number {
  return parsePriceCents(variant.price);
}

/** compare-at minus price when that is a real saving (REAL_SAVING: $2.00 and 5% at least), else 0. */
export function savingsCents(variant: Variant): number {
  if (variant.compare_at_price === null || variant.compare_at_price === undefined || variant.compare_at_price === "") return 0;
  if (!isPrice(variant.compare_at_price)) return 0;
  return realSavingCents(parsePriceCents(variant.compare_at_price), parsePriceCents(variant.price));
}

// ---------- variants ----------

/** Available unless `available` is false or a tracked stock is 0 or below. */
export function isVariantAvailable(variant: Variant): boolean {
  if (variant.available === false) return false;
  const qty = variant.inventory_quantity;
  return qty === undefined || qty === null || qty > 0;
}

function variantOption(variant: Variant, index: number): string | null {
  return [variant.option1, variant.option2, variant.option3][index] ?? null;
}

/** The option values of a variant, keyed by the product's option names. */
export function variantSelection(product: Product, variant: Variant): OptionSelection {
  const selected: OptionSelection = {};
  product.options.forEach((option, i) => {
    const value = variantOption(variant, i);
    if (value !== null) selected[option.name] = value;
  });
  return selected;
}

/** Selected values start from the first variant. */
export function initialSelection(product: Product): OptionSelection {
  const first = product.variants[0];
  return first ? variantSelection(product, first) : {};
}

/**
 * The variant whose option values all match the chosen ones (option1 is the product's first option,
 * and so on); the first variant when none matches; null only when the product has no variants.
 */
export function resolveVariant(product: Product, selected: OptionSelection): Variant | null {
  const match = product.variants.find((variant) =>
    product.options.every((option, i) => variantOption(variant, i) === (selected[option.name] ?? null)),
  );
  return match ?? product.variants[0] ?? null;
}

/**
 * Whether choosing `value` for option `name`, the other chosen values kept, leads to nothing buyable: no variant
 * with those values is in stock. Marks sold-out choices in the pickers.
 */
export function isChoiceSoldOut(product: Product, selected: OptionSelection, name: string, value: string): boolean {
  const wanted = { ...selected, [name]: value };
  return !product.variants.some(
    (variant) => isVariantAvailable(variant) && product.options.every((option, i) => variantOption(variant, i) === (wanted[option.name] ?? null)),
  );
}

/**
 * A selection from a query string (?Size=M&Color=Black): the first variant's values, replaced by each
 * query value that names a real value of that option. Unknown names and values are ignored.
 */
export function selectionFromQuery(product: Product, query: Record<string, unknown>): OptionSelection {
  const selected = initialSelection(product);
  for (const option of product.options) {
    const raw = query[option.name];
    const value: unknown = Array.isArray(raw) ? raw[0] : raw;
    if (typeof value === "string" && option.values.includes(value)) selected[option.name] = value;
  }
  return selected;
}

/** What a card adds with quantity 1: the first available variant. */
export function firstAvailableVariant(product: Product): Variant | null {
  return product.variants.find(isVariantAvailable) ?? null;
}

/** The most a visitor can add at once: the tracked stock, when there is one. */
export function maxQuantity(variant: Variant | null): number | undefined {
  const qty = variant?.inventory_quantity;
  return qty === undefined || qty === null ? undefined : Math.max(qty, 0);
}

// ---------- kinds of product ----------

const words = (product: Product) => `${product.title} ${product.product_type}`.toLowerCase();

export function isEventProduct(product: Product): boolean {
  return product.product_type === EVENT_PRODUCT_TYPE || product.tags.some((t) => t.toLowerCase() === EVENT_TAG);
}

/** Shirts, tees and heavyweight products (by title or product type). */
export function isShirtLike(product: Product): boolean {
  return /\b(t-shirts?|shirts?|tees?|heavyweight)\b/.test(words(product));
}

export function isCapLike(product: Product): boolean {
  return /\b(caps?|hats?|snapbacks?)\b/.test(words(product));
}

export function hasSizeOption(product: Product): boolean {
  return product.options.some((o) => o.name.toLowerCase() === "size");
}

/** The Size picker fallback: XS to XXL for a shirt-like product without a size option, else none. */
export function fallbackSizes(product: Product): readonly string[] {
  return isShirtLike(product) && !hasSizeOption(product) ? DEFAULT_SIZES : [];
}

/**
 * 'Ships starting June 25, 2027' (always with its year) while that day is still ahead in the warehouse's time zone;
 * null once it has come, or when no date is configured: then tees and caps ship like everything else.
 */
export function shipsStartingNote(date: string | null, now: Date): string | null {
  if (!date) return null;
  const today = now.toLocaleDateString("en-CA", { timeZone: WAREHOUSE_TIME_ZONE });
  if (today >= date) return null;
  const day = new Date(`${date}T12:00:00Z`).toLocaleDateString("en-US", { month: "long", day: "numeric", year: "numeric", timeZone: "UTC" });
  return `Ships starting ${day}`;
}

/** Caps and shirts carry the ships-starting note while there is one; everything else ships in 2-3 business days. */
export function shippingNote(product: Product, shipsLater: string | null): string {
  return shipsLater && (isShirtLike(product) || isCapLike(product)) ? shipsLater : STANDARD_SHIPPING_NOTE;
}

export function showsAirDryNote(product: Product): boolean {
  return isShirtLike(product);
}

/**
 * The retail collection: titles containing '{brand} heavyweight tee', or 'heavyweight tee', or both
 * the brand name and 'cap' (case-insensitive).
 */
export function isRetailProduct(product: Product, brandName: string): boolean {
  const title = product.title.toLowerCase();
  const brand = brandName.toLowerCase();
  return (
    title.includes(`${brand} heavyweight tee`) ||
    title.includes("heavyweight tee") ||
    (title.includes(brand) && title.includes("cap"))
  );
}

export function filterRetail(products: Product[], brandName: string): Product[] {
  return products.filter((p) => isRetailProduct(p, brandName));
}

// ---------- text, links, pictures ----------

const ENTITIES: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'", nbsp: " ", "#39": "'", "#x27": "'" };

/** Plain text from description HTML: tags removed, common entities decoded, whitespace folded. */
export function stripTags(html: string): string {
  return html
    .replace(/<(script|style)[\s\S]*?<\/\1>/gi, " ")
    .replace(/<[^>]*>/g, " ")
    .replace(/&(amp|lt|gt|quot|apos|nbsp|#39|#x27);/g, (_, e: string) => ENTITIES[e] ?? "")
    .replace(/\s+/g, " ")
    .trim();
}

/** A card's description: tags stripped, cut to 100 characters; a cut one ends with an ellipsis. */
export function shortDescription(html: string): string {
  const text = stripTags(html);
  return text.length > DESCRIPTION_PREVIEW_LENGTH ? `${text.slice(0, DESCRIPTION_PREVIEW_LENGTH).trimEnd()}…` : text;
}

/** /shop/{handle}, or /shop/{id} when there is no handle. */
export function productPath(product: Product): string {
  return `/shop/${encodeURIComponent(product.handle || product.id)}`;
}

export function imageSrc(image: ProductImage | null | undefined): string | undefined {
  return image?.src || image?.url || image?.originalSrc || undefined;
}

export function imageAlt(image: ProductImage, product: Product): string {
  return image.alt || image.altText || product.title;
}

/** The variant's own picture (image or featured_image). */
export function variantImageSrc(variant: Variant | null): string | undefined {
  return variant?.image?.src || variant?.featured_image?.src || undefined;
}

/** Index in the gallery of the variant's picture, or null when it is not among the product's images. */
export function variantImageIndex(product: Product, variant: Variant | null): number | null {
  const src = variantImageSrc(variant);
  if (!src) return null;
  const index = product.images.findIndex((img) => imageSrc(img) === src);
  return index === -1 ? null : index;
}

// ---------- adding to the cart ----------

/** Why a product page refuses to add, or null when it may. */
export function addToCartProblem(product: Product, variant: Variant | null): AddToCartProblem | null {
  if (isEventProduct(product)) return "notAllowed";
  if (!variant) return "noVariant";
  if (!isVariantAvailable(variant)) return "outOfStock";
  return null;
}

/** The variant's struck-through price in cents, when it has a valid one. */
export function compareAtPriceCents(variant: Variant): number | null {
  return variant.compare_at_price && isPrice(variant.compare_at_price) ? parsePriceCents(variant.compare_at_price) : null;
}

function optionNamed(selection: OptionSelection, names: string[]): string | null {
  const key = Object.keys(selection).find((k) => names.includes(k.toLowerCase()));
  return key ? (selection[key] ?? null) : null;
}

/** The spec's cart item for a variant, as a product page sends it (prices in dollars). */
export function buildCartItem(
  product: Product,
  variant: Variant,
  quantity: number,
  fallbackSize: string | null = null,
): CartItem<number> {
  const options = variantSelection(product, variant);
  const compare = compareAtPriceCents(variant);
  return {
    shopifyProductId: product.id,
    shopifyVariantId: variant.id,
    productHandle: product.handle ?? product.id,
    productTitle: product.title,
    variantTitle: variant.title || "Default",
    price: centsToDollars(parsePriceCents(variant.price)),
    compareAtPrice: compare === null ? null : centsToDollars(compare),
    quantity,
    productImage: variantImageSrc(variant) ?? imageSrc(product.images[0]) ?? null,
    productType: product.product_type || "Product",
    vendor: product.vendor,
    selectedSize: optionNamed(options, ["size"]) ?? fallbackSize,
    selectedColor: optionNamed(options, ["color", "colour"]),
    variantOptions: fallbackSize && !hasSizeOption(product) ? { ...options, Size: fallbackSize } : options,
  };
}

/** The product page's success text: quantity, title and variant. */
export function addedDescription(product: Product, variant: Variant, quantity: number): string {
  const variantPart = variant.title && variant.title !== "Default Title" ? ` (${variant.title})` : "";
  return `${quantity} × ${product.title}${variantPart} added to cart!`;
}
