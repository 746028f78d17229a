/**
 * Product descriptions come from the catalogue (a file we ship or the merchant's Shopify admin) and are
 * shown as HTML. Only simple formatting survives: allowed tags without attributes (links keep an http(s)
 * or site-relative href); scripts, styles and embeds are dropped with their content; stray < and > are escaped.
 */
const ALLOWED = new Set(["p", "br", "strong", "b", "em", "i", "u", "ul", "ol", "li", "h3", "h4", "h5", "blockquote", "span", "a"]);
const DROPPED_WITH_CONTENT = /<(script|style|iframe|object|embed|template|noscript|svg|math)\b[\s\S]*?<\/\1\s*>/gi;
const TAG = /<(\/?)([a-zA-Z][a-zA-Z0-9]*)\b((?:[^>"']|"[^"]*"|'[^']*')*)>/g;

const escapeText = (s: string) => s.replace(/</g, "&lt;").replace(/>/g, "&gt;");
const escapeAttr = (s: string) => s.replace(/&/g, "&amp;").replace(/"/g, "&quot;").replace(/</g, "&lt;");

function safeHref(attrs: string): string | null {
  const m = /\bhref\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]+))/i.exec(attrs);
  const href = (m?.[1] ?? m?.[2] ?? m?.[3] ?? "").trim();
  return /^(https?:\/\/|\/(?!\/))/i.test(href) ? href : null;
}

export function sanitizeDescriptionHtml(html: string): string {
  const source = html.replace(DROPPED_WITH_CONTENT, "").replace(/<!--[\s\S]*?-->/g, "");
  let out = "";
  let last = 0;
  const open: string[] = [];
  for (const m of source.matchAll(TAG)) {
    out += escapeText(source.slice(last, m.index));
    last = m.index + m[0].length;
    const closing = m[1] === "/";
    const tag = m[2]!.toLowerCase();
    if (!ALLOWED.has(tag)) continue;
    if (tag === "br") out += closing ? "" : "<br>";
    else if (closing) {
      // Close only what is open (and anything opened inside it), so a description cannot leak into the page.
      const at = open.lastIndexOf(tag);
      if (at !== -1) out += open.splice(at).reverse().map((t) => `</${t}>`).join("");
    } else if (tag === "a") {
      open.push(tag);
      const href = safeHref(m[3] ?? "");
      out += href ? `<a href="${escapeAttr(href)}" rel="nofollow noopener">` : "<a>";
    } else {
      open.push(tag);
      out += `<${tag}>`;
    }
  }
  return out + escapeText(source.slice(last)) + open.reverse().map((t) => `</${t}>`).join("");
}
