import { Router, type NextFunction, type Request, type Response } from "express";
import type { Db } from "../db/knex.ts";
import type { Site } from "../shared/site.ts";
import { renderPage, type PageContext } from "../http/render.tsx";
import { findEvent, listEvents, shownPlacesLeft, shownWaiting } from "./repository.ts";
import {
  EVENT_LOAD_FAILED,
  EVENT_NOT_FOUND_TITLE,
  EVENT_NOT_FOUND_TEXT,
  eventJsonLd,
  parseEventId,
  registrationStatus,
  seasonYear,
} from "../shared/events/rules.ts";
import { withPictures } from "./pictures.ts";
import { coachRegistrationState } from "../shared/collegeCoachRequests/rules.ts";
import { EventsPage, EVENTS_HERO_POSTER } from "../../views/pages/events/EventsPage.tsx";
import { EventDetailPage } from "../../views/pages/events/EventDetailPage.tsx";
import { depositOfferOf } from "../../components/PaymentPlanChoice.tsx";
import { EventNotFoundPage } from "../../views/pages/events/EventNotFoundPage.tsx";
import { siteOrigin } from "../http/origin.ts";

export interface EventRoutesDeps {
  db: Db;
  site: Site;
  /** EVENTS_HERO_VIDEO_URL: the /events hero plays it over the poster when set. */
  heroVideoUrl?: string | undefined;
  now: () => Date;
}

function origin(req: Request, res: Response): string {
  const ctx = res.locals.page as PageContext;
  return siteOrigin(req, ctx.publicUrl);
}

/** The heading of an event page that could not be read (a database outage): never "Not Found". */
const EVENT_UNAVAILABLE_TITLE = "Temporarily Unavailable";

function renderNotFound(req: Request, res: Response, status: number, message = EVENT_NOT_FOUND_TEXT): void {
  const title = status === 503 ? EVENT_UNAVAILABLE_TITLE : EVENT_NOT_FOUND_TITLE;
  renderPage(req, res, <EventNotFoundPage message={message} title={title} />, {
    title,
    description: message,
    status,
    noindex: true,
  });
}

/** /events and /events/:id (GET /api/events/:id: ./apiRoute.ts). */
export function eventRoutes({ db, site, heroVideoUrl, now }: EventRoutesDeps): Router {
  const router = Router();

  router.get("/events", async (req, res) => {
    const description = `Summer wrestling camps, clinics and tours from ${site.displayName}: elite coaching for athletes 10+ through high school.`;
    try {
      const events = (await listEvents(db)).map(withPictures);
      const at = now();
      const placesLeft = await shownPlacesLeft(db, at);
      const statuses = Object.fromEntries(events.map((e) => [e.id, registrationStatus(e, placesLeft(e), at)] as const));
      renderPage(req, res, <EventsPage events={events} statuses={statuses} seasonYear={seasonYear(events, at)} heroVideoUrl={heroVideoUrl} />, {
        title: "Events",
        description,
        sameForStatelessVisitors: true,
        openGraph: { image: EVENTS_HERO_POSTER },
      });
    } catch (err) {
      req.log.error({ err }, "events list could not be loaded");
      renderPage(req, res, <EventsPage events={[]} statuses={{}} seasonYear={null} heroVideoUrl={heroVideoUrl} loadError={EVENT_LOAD_FAILED} />, {
        title: "Events",
        description,
        status: 503,
        noindex: true,
      });
    }
  });

  router.get("/events/:id", async (req, res) => {
    const id = parseEventId(req.params.id);
    if (id === null) return renderNotFound(req, res, 404);
    try {
      const found = await findEvent(db, id);
      if (!found) return renderNotFound(req, res, 404);
      const at = now();
      const waiting = (await shownWaiting(db, at))(found.id);
      const left = (await shownPlacesLeft(db, at))(found);
      const status = registrationStatus(found, left, at);
      const event = withPictures(found);
      const coaches = coachRegistrationState(event, at);
      renderPage(req, res, <EventDetailPage event={event} placesLeft={left} status={status} coachRegistration={coaches} waiting={waiting} depositOffer={depositOfferOf(event, at)} />, {
        title: event.title,
        description: event.shortDescription,
        sameForStatelessVisitors: true,
        openGraph: { type: "website", image: event.image },
        jsonLd: [eventJsonLd(event, { origin: origin(req, res), brand: site.displayName, image: event.image, placesLeft: left, status })],
        noindex: !event.listed,
      });
    } catch (err) {
      req.log.error({ err, eventId: id }, "event could not be loaded");
      res.set("retry-after", "30");
      renderNotFound(req, res, 503, EVENT_LOAD_FAILED);
    }
  });

  // A path that is not even valid percent-encoding ('/events/%E0%A4%A') names no event either: 404, like any unknown id.
  router.use("/events", (err: unknown, req: Request, res: Response, next: NextFunction) => {
    if (!(err instanceof URIError)) return next(err);
    renderNotFound(req, res, 404);
  });

  return router;
}
