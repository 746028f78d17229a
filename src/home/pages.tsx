/** Rendering of the home-side pages, shared by their GET routes and the form posts that re-render them with errors. */
import type { Request, Response } from "express";
import type { Db } from "../db/knex.ts";
import type { Site } from "../site.ts";
import { renderPage } from "../http/render.tsx";
import type { FormState } from "../http/forms.ts";
import { listEvents } from "../events/repository.ts";
import { homeOffers } from "./eventOffers.ts";
import { HomePage } from "../../views/pages/home/HomePage.tsx";
import { CustomApparelPage } from "../../views/pages/apparel/CustomApparelPage.tsx";

export async function renderHome(
  req: Request,
  res: Response,
  deps: { db: Db; site: Site },
  newsletter: { form: FormState; subscribed: boolean },
  status?: number,
): Promise<void> {
  const offers = homeOffers(await listEvents(deps.db));
  renderPage(req, res, <HomePage site={deps.site} offers={offers} newsletter={newsletter} />, {
    title: "Premium Wrestling Apparel & Summer Camps",
    description: `${deps.site.displayName}: heavyweight wrestling apparel, custom team gear and elite summer camps for athletes 10+ through high school.`,
    status,
  });
}

export function renderCustomApparel(req: Request, res: Response, quote: { form: FormState; sent: boolean }, status?: number): void {
  renderPage(req, res, <CustomApparelPage quote={quote} />, {
    title: "Custom Team Apparel",
    description: "Custom wrestling singlets, rashguards, warmups and team packages designed for your program. Request a free quote.",
    status,
  });
}
