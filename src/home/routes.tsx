import { Router } from "express";
import type { Db } from "../db/knex.ts";
import type { Site } from "../site.ts";
import { renderPage } from "../http/render.tsx";
import { emptyForm } from "../http/forms.ts";
import { listEvents } from "../events/repository.ts";
import { takeSent } from "../messages/session.ts";
import { findPortfolioItem } from "./apparelContent.ts";
import { homeOffers } from "./eventOffers.ts";
import { renderCustomApparel, renderHome } from "./pages.tsx";
import { AboutPage } from "../../views/pages/AboutPage.tsx";
import { TeamEventsPage } from "../../views/pages/home/TeamEventsPage.tsx";

export function homeRoutes({ site, db }: { site: Site; db: Db }): Router {
  const router = Router();
  router.get("/", async (req, res) => {
    await renderHome(req, res, { db, site }, { form: emptyForm, subscribed: takeSent(req, "newsletter") });
  });
  router.get("/team-events", async (req, res) => {
    const { teamEvents } = homeOffers(await listEvents(db));
    renderPage(req, res, <TeamEventsPage events={teamEvents} />, {
      title: "Choose Your Team Event",
      description: "Register your team at team pricing: choose the camp, then add your coach and athletes under one payment.",
    });
  });
  router.get("/custom-apparel", (req, res) => {
    const design = findPortfolioItem(typeof req.query.design === "string" ? req.query.design : undefined);
    const form = design ? { values: { referenceDesign: design.name }, errors: {} } : emptyForm;
    renderCustomApparel(req, res, { form, sent: takeSent(req, "quote") });
  });
  router.get("/about", (req, res) =>
    renderPage(req, res, <AboutPage site={site} />, {
      title: "About",
      description: `${site.displayName}: premium wrestling apparel and summer camps from Birmingham, Alabama.`,
    }),
  );
  return router;
}
