import { Router, type NextFunction, type Request, type RequestHandler, type Response } from "express";
import type { Db } from "../db/knex.ts";
import type { PageCache } from "../http/pageCache.ts";
import { findEvent, shownPlacesLeft } from "./repository.ts";
import { EVENT_LOAD_FAILED, EVENT_NOT_FOUND, eventApiBody, parseEventId } from "../shared/events/rules.ts";
import { withPictures } from "./pictures.ts";

export interface EventApiDeps {
  db: Db;
  now: () => Date;
  /** The kept pages: the answer is kept beside the event's page, as long and forgotten at the same time. */
  pageCache: PageCache;
  /** The events' version check (src/events/version.ts): another process's change of events empties the kept answers first. */
  checkVersion: RequestHandler;
}

/**
 * GET /api/events/:id: one event's public facts and places left, the same for every visitor. It reads no session
 * and no token, so it is mounted before the body parsers, compression and the session (src/app.ts), and kept like
 * the event's page (`/events/:id` shows the same places left): a hold shows within PAGE_CACHE_MS, an event's change
 * at once. Only a 200 is kept; 404 and 503 are answered each time.
 */
export function eventApiRoutes({ db, now, pageCache, checkVersion }: EventApiDeps): Router {
  const router = Router();

  router.get("/api/events/:id", checkVersion, async (req, res) => {
    const id = parseEventId(req.params.id);
    if (id === null) {
      res.status(404).json({ error: EVENT_NOT_FOUND });
      return;
    }
    if (pageCache.answerPublic(req, res)) return;
    try {
      const event = await findEvent(db, id);
      if (!event) {
        res.status(404).json({ error: EVENT_NOT_FOUND });
        return;
      }
      const at = now();
      const left = (await shownPlacesLeft(db, at))(event);
      pageCache.sendPublic(req, res, JSON.stringify(eventApiBody(withPictures(event), left, at)));
    } catch (err) {
      req.log.error({ err, eventId: id }, "event could not be loaded");
      res.set("retry-after", "30").status(503).json({ error: EVENT_LOAD_FAILED });
    }
  });

  // A path that is not even valid percent-encoding ('/api/events/%E0%A4%A') names no event either: 404, like any unknown id.
  router.use("/api/events", (err: unknown, _req: Request, res: Response, next: NextFunction) => {
    if (!(err instanceof URIError)) return next(err);
    res.status(404).json({ error: EVENT_NOT_FOUND });
  });

  return router;
}
