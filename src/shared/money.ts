/** Money is integer cents inside; this module is the one way amounts are read from text and written out. Browser-safe. */

/** "$1,234.50" from 123450. */
export function formatPrice(cents: number): string {
  const sign = cents < 0 ? "-" : "";
  const abs = Math.abs(Math.round(cents));
  const dollars = Math.floor(abs / 100).toLocaleString("en-US");
  return `${sign}$${dollars}.${String(abs % 100).padStart(2, "0")}`;
}

/** "$50" for whole dollars (as in 'SAVE $50'), "$50.50" otherwise. */
export function formatDollars(cents: number): string {
  return cents % 100 === 0 ? formatPrice(cents).replace(/\.00$/, "") : formatPrice(cents);
}

/** "1234.50" from 123450: the decimal strings of the spec's cart, schema.org offers, Stripe and Shopify. */
export function centsToDecimal(cents: number): string {
  const sign = cents < 0 ? "-" : "";
  const abs = Math.abs(Math.round(cents));
  return `${sign}${Math.floor(abs / 100)}.${String(abs % 100).padStart(2, "0")}`;
}

/** 1234.5 from 123450: the dollar numbers of the spec's JSON answers (exact cents travel beside them). */
export function centsToDollars(cents: number): number {
  return Math.round(cents) / 100;
}

/**
 * Integer cents from a catalogue price: "30", "30.5", "$1,234.56", 30.5. Rounds half up past two
 * decimals. Throws RangeError for anything else (the sources validate prices, so a throw is a bug).
 */
export function parsePriceCents(price: string | number | null | undefined): number {
  if (typeof price === "number") {
    if (!Number.isFinite(price) || price < 0) throw new RangeError(`Invalid price: ${price}`);
    return Math.round(price * 100);
  }
  const text = (price ?? "").trim().replace(/^\$\s*/, "").replace(/,/g, "");
  const m = /^(\d+)(?:\.(\d*))?$/.exec(text);
  if (!m) throw new RangeError(`Invalid price: ${String(price)}`);
  const whole = Number(m[1]);
  const fraction = (m[2] ?? "").padEnd(3, "0");
  const cents = Number(fraction.slice(0, 2)) + (Number(fraction[2]) >= 5 ? 1 : 0);
  return whole * 100 + cents;
}

/** True when the value is a price parsePriceCents accepts. */
export function isPrice(price: string | number | null | undefined): boolean {
  try {
    parsePriceCents(price);
    return true;
  } catch {
    return false;
  }
}
