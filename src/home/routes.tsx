import { Router } from "express";
import type { Site } from "../site.ts";
import { renderPage } from "../http/render.tsx";
import { HomePage } from "../../views/pages/HomePage.tsx";
import { AboutPage } from "../../views/pages/AboutPage.tsx";

export function homeRoutes({ site }: { site: Site }): Router {
  const router = Router();
  router.get("/", (req, res) =>
    renderPage(req, res, <HomePage site={site} />, {
      title: "Premium Wrestling Apparel & Summer Camps",
      description: `${site.displayName}: heavyweight wrestling apparel, custom team gear and elite summer camps for athletes 10+ through high school.`,
    }),
  );
  router.get("/about", (req, res) =>
    renderPage(req, res, <AboutPage site={site} />, {
      title: "About",
      description: `${site.displayName}: premium wrestling apparel and summer camps from Birmingham, Alabama.`,
    }),
  );
  return router;
}
