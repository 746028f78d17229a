/** The header's cart badge: 99+ on desktop and 9+ on mobile past those counts. Browser-safe. */
export const DESKTOP_BADGE_CAP = 99;
export const MOBILE_BADGE_CAP = 9;

export function badgeText(count: number, cap: number): string {
  return count > cap ? `${cap}+` : String(count);
}
