import { createHash, randomBytes } from "node:crypto";

/**
 * The secret of a link that opens something without a sign-in (an order's status, a registration's manage page):
 * 256 random bits, URL-safe. Only its hash is stored, so a leaked database holds no working link.
 */
export function newSecretToken(): string {
  return randomBytes(32).toString("base64url");
}

export function secretTokenHash(token: string): string {
  return createHash("sha256").update(token).digest("hex");
}

export const SECRET_TOKEN_PATTERN = /^[A-Za-z0-9_-]{43}$/;
