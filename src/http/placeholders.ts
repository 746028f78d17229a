// The placeholders a page rendered for a visitor without state carries (src/http/pageCache.ts keeps such pages),
// and their filling on the way out. Apart from the cache, so that the render function fills them without importing it.
import { randomBytes } from "node:crypto";

/** Per process, so no page or request can know it in advance. */
export const CSRF_PLACEHOLDER = `csrf-placeholder-${randomBytes(16).toString("hex")}`;
/**
 * A registration form's id (it ties the form to the registration it holds) rendered into a page kept for visitors
 * without state: each response gets its own new id in its place, so two families served one kept page never share one.
 */
export const FORM_ID_PLACEHOLDER = `formid${randomBytes(16).toString("hex")}`;

/** A page's HTML for this visitor: the placeholders replaced by their CSRF token (made, with its cookie, only if needed) and a new form id. */
export function withVisitorToken(html: string, token: () => string): string {
  const withToken = html.includes(CSRF_PLACEHOLDER) ? html.replaceAll(CSRF_PLACEHOLDER, token()) : html;
  return withToken.includes(FORM_ID_PLACEHOLDER) ? withToken.replaceAll(FORM_ID_PLACEHOLDER, randomBytes(16).toString("base64url")) : withToken;
}
