/** The header's cart badge: 99+ on desktop and 9+ on mobile past those counts. Browser-safe. */
export const DESKTOP_BADGE_CAP = 99;
export const MOBILE_BADGE_CAP = 9;

export function badgeText(count: number, cap: number): string {
  return count > cap ? `${cap}+` : String(count);
}

/** Browser: sets both header badges (and the cart link's label) after a cart change. */
export function updateCartBadges(count: number): void {
  for (const [selector, cap] of [['[data-cart-badge="desktop"]', DESKTOP_BADGE_CAP], ['[data-cart-badge="mobile"]', MOBILE_BADGE_CAP]] as const) {
    for (const badge of document.querySelectorAll<HTMLElement>(selector)) {
      badge.textContent = badgeText(count, cap);
      badge.hidden = count === 0;
    }
  }
  document.querySelector("[data-cart-link]")?.setAttribute("aria-label", `Cart, ${count} ${count === 1 ? "item" : "items"}`);
}

/** The event sent after a cart change (the card form listens); detail is the server's cart answer. */
export const CART_UPDATED_EVENT = "cart:updated";

let lastAnnounced: unknown = null;

/** The last cart a widget announced on this page, for a widget that starts later (its props are older). */
export function latestAnnouncedCart<T>(): T | null {
  return lastAnnounced as T | null;
}

/** Browser: every widget that changes the cart reports the server's answer here: badges, then listeners. */
export function announceCartChange(cart: { itemCount: number }): void {
  lastAnnounced = cart;
  updateCartBadges(cart.itemCount);
  window.dispatchEvent(new CustomEvent(CART_UPDATED_EVENT, { detail: cart }));
}
