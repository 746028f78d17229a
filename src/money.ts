/** Money is integer cents inside; these are the one way it is shown. Browser-safe. */

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
