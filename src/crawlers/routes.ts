import { Router } from "express";
import type { Db } from "../db/knex.ts";
import type { Logger } from "../logger.ts";
import type { CatalogueSource } from "../catalogue/source.ts";
import { productPath } from "../shared/catalogue/rules.ts";
import { listedEventChanges } from "../events/repository.ts";
import { siteOrigin } from "../http/origin.ts";

/** Pages worth finding; the others (cart, checkout, registration steps, order status, APIs) are kept out by robots.txt. */
export const SITEMAP_PAGES = ["/", "/shop", "/events", "/team-events", "/custom-apparel", "/contact", "/about", "/shipping", "/returns", "/privacy", "/terms"];
export const ROBOTS_DISALLOW = [
  "/cart",
  "/stripe-checkout",
  "/orders/",
  "/register/",
  "/event-registration/",
  "/team-register/",
  "/team-registration",
  "/coach-registration",
  "/api/",
  "/__offline-stripe/",
];

const xml = (s: string) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");

function urlEntry(loc: string, lastmod?: Date): string {
  return `<url><loc>${xml(loc)}</loc>${lastmod ? `<lastmod>${lastmod.toISOString().slice(0, 10)}</lastmod>` : ""}</url>`;
}

/** /robots.txt and /sitemap.xml, with absolute URLs on the site's origin (PUBLIC_URL in production). */
export function crawlerRoutes(deps: { db: Db; catalogue: CatalogueSource; publicUrl: string | undefined; logger: Logger }): Router {
  const router = Router();
  router.get("/robots.txt", (req, res) => {
    const origin = siteOrigin(req, deps.publicUrl);
    const lines = ["User-agent: *", ...ROBOTS_DISALLOW.map((p) => `Disallow: ${p}`), "", `Sitemap: ${origin}/sitemap.xml`, ""];
    res.type("text/plain").set("cache-control", "public, max-age=3600").send(lines.join("\n"));
  });
  router.get("/sitemap.xml", async (req, res) => {
    const origin = siteOrigin(req, deps.publicUrl);
    let products;
    try {
      products = await deps.catalogue.listProducts();
    } catch (err) {
      // A sitemap without the products would tell crawlers they are gone; "try later" is the truth.
      deps.logger.warn({ err: (err as Error).message }, "sitemap: the catalogue did not answer");
      res.status(503).set("retry-after", "300").type("text/plain").send("The sitemap is unavailable for a moment.\n");
      return;
    }
    const events = await listedEventChanges(deps.db);
    const newestEvent = events.reduce<Date | undefined>((a, e) => (!a || e.updatedAt > a ? e.updatedAt : a), undefined);
    const entries = [
      ...SITEMAP_PAGES.map((p) => urlEntry(`${origin}${p}`, p === "/" || p === "/events" || p === "/team-events" ? newestEvent : undefined)),
      ...events.map((e) => urlEntry(`${origin}/events/${e.id}`, e.updatedAt)),
      ...products.map((p) => urlEntry(`${origin}${productPath(p)}`)),
    ];
    res
      .type("application/xml")
      .set("cache-control", "public, max-age=3600")
      .send(`<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n${entries.join("\n")}\n</urlset>\n`);
  });
  return router;
}
