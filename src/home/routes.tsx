import { Router, type Request, type Response } from "express";
import type { Db } from "../db/knex.ts";
import type { Site } from "../shared/site.ts";
import { renderPage } from "../http/render.tsx";
import { emptyForm, type FormState } from "../shared/forms.ts";
import { listEvents } from "../events/repository.ts";
import type { MessageForms } from "../inbox/routes.tsx";
import { homeOffers } from "../shared/home/eventOffers.ts";
import { AboutPage } from "../../views/pages/AboutPage.tsx";
import { HomePage } from "../../views/pages/home/HomePage.tsx";
import { TeamEventsPage } from "../../views/pages/home/TeamEventsPage.tsx";

/** The home side of the site: / (with its newsletter form), /team-events and /about. */
export function homeRoutes({ site, db, forms, now }: { site: Site; db: Db; forms: MessageForms; now: () => Date }): Router {
  const router = Router();

  async function home(req: Request, res: Response, newsletter: { form: FormState; subscribed: boolean }, status = 200) {
    const offers = homeOffers(await listEvents(db), now());
    renderPage(req, res, <HomePage site={site} offers={offers} newsletter={newsletter} />, {
      title: "Premium Wrestling Apparel & Summer Camps",
      description: `${site.displayName}: heavyweight wrestling apparel, custom team gear and elite summer camps for athletes 10+ through high school.`,
      sameForStatelessVisitors: true,
      status,
    });
  }

  router.get("/", (req, res) => home(req, res, { form: emptyForm, subscribed: forms.takeSent(req, "newsletter") }));
  forms.mount(router, "newsletter", (req, res, form, status) => home(req, res, { form, subscribed: false }, status));

  router.get("/team-events", async (req, res) => {
    const { teamEvents } = homeOffers(await listEvents(db), now());
    renderPage(req, res, <TeamEventsPage events={teamEvents} />, {
      title: "Choose Your Team Event",
      description: "Register your team at team pricing: choose the camp, then add your coach and athletes under one payment.",
      sameForStatelessVisitors: true,
    });
  });

  router.get("/about", (req, res) =>
    renderPage(req, res, <AboutPage site={site} />, {
      title: "About",
      description: `${site.displayName}: premium wrestling apparel and summer camps from Birmingham, Alabama.`,
      sameForStatelessVisitors: true,
    }),
  );
  return router;
}
