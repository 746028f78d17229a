/**
 * The cart's pure rules (browser-safe): a line is a product variant (plus a size chosen from the
 * fallback sizes when the product has no Size option) and a quantity. Prices are integer cents.
 */

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

export function clearCart(): SessionCartItem[] {
  return [];
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

/** Cents as the server cart's decimal string: 3200 -> "32.00". */
export function centsToDecimal(cents: number): string {
  return `${Math.floor(cents / 100)}.${String(cents % 100).padStart(2, "0")}`;
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
