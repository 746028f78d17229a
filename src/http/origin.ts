import type { Request } from "express";

/** A host as a browser sends it: a DNS name or IPv4 address, or a bracketed IPv6 address, and an optional port. */
const HOST = /^(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*|\[[0-9a-f:.]+\])(?::\d{1,5})?$/i;

/**
 * The site's origin for canonical links, Open Graph and JSON-LD: PUBLIC_URL (required in production).
 * Without it (development), the request's protocol and Host, but only when they are a plain http(s) origin;
 * anything else falls back to http://localhost, so a forged Host or X-Forwarded-Proto never reaches a link.
 */
export function siteOrigin(req: Request, publicUrl: string | undefined): string {
  if (publicUrl) return publicUrl;
  const protocol = req.protocol === "https" ? "https" : "http";
  const host = req.get("host") ?? "";
  return HOST.test(host) ? `${protocol}://${host.toLowerCase()}` : "http://localhost";
}
