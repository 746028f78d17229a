import type { Request, RequestHandler, Response } from "express";
import type { Metrics } from "./registry.ts";

/** The label of requests no route answered (a 404, a body refused by a parser) and of those answered before the routes. */
export const UNMATCHED = "unmatched";

/**
 * The route a request matched, as its pattern (`/manage/:token`), never its path: a path can hold a token, and one
 * label per path would grow without end. Built files (/build/...) are one label; a kept page (src/http/pageCache.ts,
 * answered before the routes, with an Age header) is "kept page"; anything else no route answered is "unmatched".
 */
export function routeLabel(req: Request, res: Response): string {
  const pattern = (req.route as { path?: unknown } | undefined)?.path;
  if (typeof pattern === "string") return `${req.baseUrl}${pattern}` || "/";
  if (Array.isArray(pattern)) return `${req.baseUrl}${pattern.filter((p) => typeof p === "string").join("|")}`;
  if (req.originalUrl.startsWith("/build/")) return "/build/*";
  if (res.statusCode === 200 && res.getHeader("age") !== undefined) return "kept page";
  return UNMATCHED;
}

/** First in the middleware order: times every request to its last byte, and counts those in flight. */
export function httpMetrics(metrics: Metrics): RequestHandler {
  const { duration, inFlight } = metrics.http;
  return (req, res, next) => {
    const end = duration.startTimer();
    inFlight.inc();
    let done = false;
    const finish = () => {
      if (done) return;
      done = true;
      inFlight.dec();
      // A client that went away before the answer: 499, as nginx logs it.
      const status = res.writableFinished ? res.statusCode : 499;
      end({ route: routeLabel(req, res), method: req.method, status_class: `${Math.floor(status / 100)}xx` });
    };
    res.once("finish", finish);
    res.once("close", finish);
    next();
  };
}
