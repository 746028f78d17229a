import type { ReactElement } from "react";
import type { Request, Response } from "express";
import { renderToStaticMarkup, renderToString } from "react-dom/server";
import { Layout, type ShellProps } from "../../views/layout/Layout.tsx";
import { collectWidgets, serializeProps, WidgetCollector } from "../../views/components/Widget.tsx";
import { islandComponents } from "../../widgets/islands.gen.ts";
import type { Assets } from "./assets.ts";
import type { ToastMessage } from "../../views/components/Toast.tsx";
import { CsrfContext } from "../../components/Form.tsx";
import { ImageUrlContext } from "../../views/layout/imageUrl.ts";
import { siteOrigin } from "./origin.ts";
import { withVisitorToken } from "./placeholders.ts";

export interface PageOptions {
  /** The page's own name; the document title is "{title} | {brand}". */
  title: string;
  description: string;
  status?: number;
  /** schema.org objects, each emitted as JSON-LD. */
  jsonLd?: object[];
  openGraph?: { type?: string; image?: string };
  /** Third-party or test-mode scripts the page needs before its widgets (Stripe.js on card pages only). */
  scripts?: string[];
  bare?: boolean;
  noindex?: boolean;
  /** The page is the same for every visitor without state (src/http/pageCache.ts): it may be kept for a few seconds. */
  sameForStatelessVisitors?: boolean;
}

/** What every page needs from the request; set by the page-context middleware. */
export interface PageContext {
  shell: Omit<ShellProps, "toast" | "bare" | "path">;
  /** What pages embed: the visitor's token, or for a visitor without state a placeholder renderPage replaces. */
  csrfToken: string;
  /** The visitor's own token (sets the visitor cookie when it is new). */
  visitorCsrfToken: () => string;
  /** A new registration form's id: for a visitor without state a placeholder that each response replaces with its own. */
  newFormId: () => string;
  /** Keeps a rendered page for the next visitors without state (a no-op for a visitor with state), or under its `pageKey`. */
  keepPage: (html: string) => void;
  /**
   * For a page all of whose parts for this visitor's state `key` names (the layout's own, the cart badge and the
   * notices, are added here): answers from the page kept under it and returns true; or returns false, and the page
   * rendered next carries the placeholders (csrfToken, newFormId) and is kept under the key. A page with a toast to
   * show is neither answered nor kept.
   */
  fromKeptPage: (key: string) => boolean;
  /** The key the page being rendered is kept under (set by fromKeptPage). */
  pageKey: string | undefined;
  assets: Assets;
  publicUrl: string | undefined;
  takeToast: () => ToastMessage | undefined;
}

const escapeAttr = (s: string) => s.replace(/&/g, "&amp;").replace(/"/g, "&quot;").replace(/</g, "&lt;");

/** The one render function: a page component inside the layout, as a whole HTML document. */
export function renderPage(req: Request, res: Response, page: ReactElement, options: PageOptions): void {
  const ctx = res.locals.page as PageContext;
  const collector = new WidgetCollector(islandComponents);
  const shell: ShellProps = { ...ctx.shell, path: req.path, toast: ctx.takeToast(), bare: options.bare ?? false };
  const body = collectWidgets(collector, () => renderToString(
      <CsrfContext value={ctx.csrfToken}>
        <ImageUrlContext value={ctx.assets.image}>
          <Layout shell={shell}>{page}</Layout>
        </ImageUrlContext>
      </CsrfContext>,
    ));

  const brand = ctx.shell.site.brandName;
  const fullTitle = `${options.title} | ${brand}`;
  const origin = siteOrigin(req, ctx.publicUrl);
  const canonical = `${origin}${req.path}`;
  const scripts = collector.used.size > 0 ? ctx.assets.entry("boot.js") : [];
  // Only what starts at load is preloaded: React and the eager widgets; the others load when they are needed.
  const eager = [...collector.eager];
  const preloads = [...scripts.slice(1), ...(eager.length ? ctx.assets.widget("runtime") : []), ...eager.flatMap((w) => ctx.assets.widget(w))];

  const head = renderToStaticMarkup(
    <>
      <meta charSet="utf-8" />
      <meta name="viewport" content="width=device-width, initial-scale=1" />
      <title>{fullTitle}</title>
      <meta name="description" content={options.description} />
      {options.noindex ? <meta name="robots" content="noindex" /> : null}
      <meta name="csrf-token" content={ctx.csrfToken} />
      <meta name="theme-color" content="#0b0b0d" />
      <link rel="canonical" href={canonical} />
      <link rel="icon" href="/favicon.svg" type="image/svg+xml" />
      {ctx.assets.fonts.map((href) => <link key={href} rel="preload" href={href} as="font" type="font/woff2" crossOrigin="anonymous" />)}
      <link rel="stylesheet" href={ctx.assets.css} />
      <meta property="og:site_name" content={ctx.shell.site.displayName} />
      <meta property="og:title" content={fullTitle} />
      <meta property="og:description" content={options.description} />
      <meta property="og:type" content={options.openGraph?.type ?? "website"} />
      <meta property="og:url" content={canonical} />
      {options.openGraph?.image ? <meta property="og:image" content={new URL(ctx.assets.image(options.openGraph.image), origin).href} /> : null}
      {[...new Set(preloads)].map((href) => <link key={href} rel="modulepreload" href={href} />)}
    </>,
  );
  const jsonLd = (options.jsonLd ?? [])
    .map((o) => `<script type="application/ld+json">${serializeProps(o)}</script>`)
    .join("");
  // Classic scripts (Stripe.js) run before the deferred module that boots the widgets.
  const scriptTags = [
    ...(options.scripts ?? []).map((src) => `<script src="${escapeAttr(src)}"></script>`),
    ...scripts.slice(0, 1).map((src) => `<script type="module" src="${escapeAttr(src)}"></script>`),
  ].join("");

  const html = `<!doctype html><html lang="en"><head>${head}${jsonLd}</head><body>${body}${scriptTags}</body></html>`;
  const status = options.status ?? 200;
  if ((options.sameForStatelessVisitors || ctx.pageKey !== undefined) && status === 200) ctx.keepPage(html);
  res.status(status).type("html").send(withVisitorToken(html, ctx.visitorCsrfToken));
}
