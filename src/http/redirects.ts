import type { Request } from "express";

/**
 * A path on this site that is safe to put in a Location header: starts with one "/", not "//" or "/\"
 * (browsers read both as another host), and holds no control characters or backslashes.
 */
export function isSameOriginPath(value: string): boolean {
  return value.startsWith("/") && !value.startsWith("//") && !/[\\\u0000-\u001f\u007f]/.test(value);
}

/** Where a form post goes back to: the page it came from when that is this site, else the fallback. */
export function refererPath(req: Request, fallback: string): string {
  const referer = req.get("referer");
  if (!referer) return fallback;
  try {
    const url = new URL(referer);
    if (url.host !== req.get("host")) return fallback;
    const path = `${url.pathname}${url.search}`;
    return isSameOriginPath(path) ? path : fallback;
  } catch {
    return fallback;
  }
}
