/**
 * The cart's pure rules (browser-safe): a line is a product variant (plus a size chosen from the
 * fallback sizes when the product has no Size option) and a quantity. Prices are integer cents.
 */

/**
 * The spec's cart item, one shape for both directions: what a product page sends to POST /api/cart/add (prices
 * as dollar numbers) and each line of the server cart's answer (prices as decimal strings; see CartLineView).
 */
export interface CartItem<Price extends number | string> {
  shopifyProductId: string;
  shopifyVariantId: string;
  productHandle: string;
  productTitle: string;
  variantTitle: string;
  price: Price;
  compareAtPrice: Price | null;
  quantity: number;
  productImage: string | null;
  productType: string;
  vendor: string;
  selectedSize: string | null;
  selectedColor: string | null;
  variantOptions: Record<string, string>;
}

/** What the session keeps per line: identity, quantity, and the price the visitor saw when adding. */
export interface SessionCartItem {
  id: string;
  productId: string;
  variantId: string;
  /** Only for products without a Size option (the picker's fallback sizes); else null. */
  selectedSize: string | null;
  quantity: number;
  /** The catalogue price when added (or when the visitor accepted a new price). */
  priceCents: number;
  addedAt: number;
  updatedAt: number;
}

export interface SessionCart {
  items: SessionCartItem[];
}

/** Most of one line a visitor can buy at once (also bounded by the stock). */
export const MAX_LINE_QUANTITY = 99;
/** The cart is fresh for 5 minutes; the page refetches it on focus after that. */
export const CART_STALE_MS = 300_000;

export interface NewLine {
  productId: string;
  variantId: string;
  selectedSize: string | null;
  quantity: number;
  priceCents: number;
}

export const sameLine = (a: { productId: string; variantId: string; selectedSize: string | null }, b: typeof a) =>
  a.productId === b.productId && a.variantId === b.variantId && (a.selectedSize ?? null) === (b.selectedSize ?? null);

/** Adds a line: an item with the same product and variant (and size) gets the quantities added, else it is appended. */
export function addItem(items: SessionCartItem[], line: NewLine, newId: string, now: number): SessionCartItem[] {
  const existing = items.find((i) => sameLine(i, line));
  if (existing) {
    return items.map((i) => (i === existing ? { ...i, quantity: i.quantity + line.quantity, updatedAt: now } : i));
  }
  return [...items, { id: newId, ...line, addedAt: now, updatedAt: now }];
}

/** Sets a line's quantity; at 0 or below the line is dropped. */
export function updateQuantity(items: SessionCartItem[], id: string, quantity: number, now: number): SessionCartItem[] {
  if (quantity <= 0) return removeItem(items, id);
  return items.map((i) => (i.id === id ? { ...i, quantity, updatedAt: now } : i));
}

export function removeItem(items: SessionCartItem[], id: string): SessionCartItem[] {
  return items.filter((i) => i.id !== id);
}

/** A line of a paid order: the cart line it came from (null for orders older than that link) and what was paid. */
export interface PaidLine {
  cartLineId: string | null;
  productId: string;
  variantId: string;
  quantity: number;
}

/**
 * After a payment, only what was paid leaves the cart: each paid line takes its quantity off the same cart
 * line (same line id and variant; by variant alone for orders without line ids). An item added after the
 * PaymentIntent was made, or a quantity raised since, stays.
 */
export function removePaidLines(items: SessionCartItem[], paid: PaidLine[]): SessionCartItem[] {
  let left = items;
  for (const p of paid) {
    const line = left.find((i) => (p.cartLineId === null || i.id === p.cartLineId) && i.productId === p.productId && i.variantId === p.variantId);
    if (!line) continue;
    left = line.quantity > p.quantity ? left.map((i) => (i === line ? { ...i, quantity: i.quantity - p.quantity } : i)) : left.filter((i) => i !== line);
  }
  return left;
}

/** The visitor agrees to the catalogue's current price for a line. */
export function acceptPrice(items: SessionCartItem[], id: string, priceCents: number, now: number): SessionCartItem[] {
  return items.map((i) => (i.id === id ? { ...i, priceCents, updatedAt: now } : i));
}

/** sum of price x quantity */
export function subtotalCents(lines: { unitPriceCents: number; quantity: number }[]): number {
  return lines.reduce((sum, l) => sum + l.unitPriceCents * l.quantity, 0);
}

/** sum of quantities */
export function itemCount(lines: { quantity: number }[]): number {
  return lines.reduce((sum, l) => sum + l.quantity, 0);
}

/** Why a line cannot be bought as it stands, or null. */
export type LineProblem =
  | { kind: "unavailable" }
  | { kind: "out_of_stock" }
  | { kind: "not_enough_stock"; available: number }
  | { kind: "price_changed"; fromCents: number; toCents: number };

/** Compares a session line with what the catalogue says now (null product/variant = gone from the catalogue). */
export function lineProblem(
  item: SessionCartItem,
  current: { priceCents: number; available: boolean; stock: number | undefined; purchasable: boolean } | null,
): LineProblem | null {
  if (!current || !current.purchasable) return { kind: "unavailable" };
  if (!current.available) return { kind: "out_of_stock" };
  if (current.stock !== undefined && item.quantity > current.stock) return { kind: "not_enough_stock", available: current.stock };
  if (current.priceCents !== item.priceCents) return { kind: "price_changed", fromCents: item.priceCents, toCents: current.priceCents };
  return null;
}

export function problemMessage(title: string, problem: LineProblem, format: (cents: number) => string): string {
  switch (problem.kind) {
    case "unavailable":
      return `${title} is no longer available. Please remove it from your cart.`;
    case "out_of_stock":
      return `${title} is out of stock. Please remove it from your cart.`;
    case "not_enough_stock":
      return `Only ${problem.available} of ${title} left in stock. Please lower the quantity.`;
    case "price_changed":
      return `The price of ${title} changed from ${format(problem.fromCents)} to ${format(problem.toCents)}. Please review it before paying.`;
  }
}

/** The most a line may hold: the stock when tracked, never above MAX_LINE_QUANTITY. */
export function quantityLimit(stock: number | undefined): number {
  return stock === undefined ? MAX_LINE_QUANTITY : Math.min(stock, MAX_LINE_QUANTITY);
}

/**
 * A line's variant, said once: 'Size: M · Color: Black' for a variant titled 'M / Black', and the variant
 * title's other parts ('Black · Size: M' for a tee in black with a size from the fallback sizes).
 */
export function variantText(line: { variantTitle: string; selectedSize: string | null; selectedColor: string | null }): string {
  const chosen = [line.selectedSize, line.selectedColor].filter((v): v is string => Boolean(v));
  const rest = line.variantTitle
    .split(" / ")
    .map((part) => part.trim())
    .filter((part) => part && part !== "Default Title" && !chosen.includes(part));
  const labelled = [
    ...(line.selectedSize ? [`Size: ${line.selectedSize}`] : []),
    ...(line.selectedColor ? [`Color: ${line.selectedColor}`] : []),
  ];
  return [...rest, ...labelled].join(" · ");
}

/** The checkout summary's figures: the items, shipping on its own (null until the address is known), their sum. */
export interface CheckoutFigures {
  subtotalCents: number;
  shippingCents: number | null;
  totalCents: number;
}

export function checkoutFigures(subtotalCents: number, shippingCents: number | null): CheckoutFigures {
  return { subtotalCents, shippingCents, totalCents: subtotalCents + (shippingCents ?? 0) };
}

/** One line of the server cart (the page, the widgets, GET /api/cart): the spec's item with the catalogue's facts now. */
export interface CartLineView extends CartItem<string> {
  id: string;
  priceCents: number;
  updatedAt: string;
  productUrl: string | null;
  maxQuantity: number;
  problem: LineProblem | null;
  problemMessage: string | null;
}

export interface CartView {
  items: CartLineView[];
  subtotalCents: number;
  itemCount: number;
  /** Lines that block paying (gone, out of stock, price changed), as messages. */
  problems: string[];
}
