import type { ErrorRequestHandler, Request, RequestHandler } from "express";
import { createElement } from "react";
import { renderPage } from "./render.tsx";
import { ErrorPage } from "../../views/pages/ErrorPage.tsx";
import { NotFoundPage } from "../../views/pages/NotFoundPage.tsx";
import type { Logger } from "../logger.ts";

/** An error whose message is safe to show the visitor. */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly title?: string,
  ) {
    super(message);
  }
}

export const SERVICE_UNAVAILABLE =
  "The site is having a moment: one of our services is not answering. Please try again in a minute.";
export const SESSION_UNAVAILABLE =
  "We can't save changes right now because our session service is unavailable. Please try again in a minute.";
export const CSRF_MESSAGE = "Your form has expired or did not come from this site. Please reload the page and try again.";

export function wantsJson(req: Request): boolean {
  return req.path.startsWith("/api/") || (req.accepts(["html", "json"]) === "json");
}

const UNSAFE = new Set(["POST", "PUT", "PATCH", "DELETE"]);

/** Writes need a session (cart, CSRF token); while the store is down they answer 503 instead of hanging. */
export const requireSessionForWrites: RequestHandler = (req, _res, next) => {
  if (UNSAFE.has(req.method) && !req.session) return next(new HttpError(503, SESSION_UNAVAILABLE, "Temporarily unavailable"));
  next();
};

function isUnavailable(err: unknown): boolean {
  const e = err as { name?: string; code?: string; errno?: number; message?: string };
  return (
    e?.name === "KnexTimeoutError" ||
    e?.name === "ClientClosedError" ||
    e?.name === "ConnectionTimeoutError" ||
    ["ECONNREFUSED", "ECONNRESET", "ETIMEDOUT", "PROTOCOL_CONNECTION_LOST", "EPIPE", "ENOTFOUND"].includes(e?.code ?? "") ||
    /The client is closed|Socket closed|connect ECONNREFUSED/i.test(e?.message ?? "")
  );
}

function classify(err: unknown): { status: number; title: string; message: string } {
  const e = err as { code?: string; type?: string; status?: number; message?: string };
  if (err instanceof HttpError) return { status: err.status, title: err.title ?? "Something went wrong", message: err.message };
  if (e?.code === "EBADCSRFTOKEN") return { status: 403, title: "Form expired", message: CSRF_MESSAGE };
  if (e?.status === 403) return { status: 403, title: "Request refused", message: "Cross-site requests are not accepted." };
  if (e?.type === "entity.parse.failed") return { status: 400, title: "Bad request", message: "The request body is not valid JSON." };
  if (e?.type === "entity.too.large") return { status: 413, title: "Too large", message: "The request is too large." };
  if (e?.status === 400) return { status: 400, title: "Bad request", message: "The request could not be read." };
  if (isUnavailable(err)) return { status: 503, title: "Temporarily unavailable", message: SERVICE_UNAVAILABLE };
  return { status: 500, title: "Something went wrong", message: "An unexpected error occurred. Please try again, or contact us if it keeps happening." };
}

export function notFound(): RequestHandler {
  return (req, res) => {
    if (wantsJson(req)) {
      res.status(404).json({ error: "Not found" });
      return;
    }
    renderPage(req, res, createElement(NotFoundPage), {
      title: "Page Not Found",
      description: "The page you are looking for does not exist or has moved.",
      status: 404,
      noindex: true,
    });
  };
}

/** The one error handler: JSON for APIs, the error page otherwise; never a stack trace. */
export function errorHandler(logger: Logger): ErrorRequestHandler {
  return (err, req, res, _next) => {
    const { status, title, message } = classify(err);
    if (status >= 500) logger.error({ err, path: req.path }, "request failed");
    else logger.warn({ status, path: req.path, reason: (err as Error)?.message }, "request refused");
    if (res.headersSent) {
      res.end();
      return;
    }
    if (status === 503) res.set("retry-after", "30");
    if (wantsJson(req) || !res.locals.page) {
      res.status(status).json({ success: false, error: message });
      return;
    }
    try {
      renderPage(req, res, createElement(ErrorPage, { title, message }), { title, description: message, status, noindex: true });
    } catch (renderErr) {
      logger.error({ err: renderErr }, "error page failed to render");
      res.status(status).type("text").send(message);
    }
  };
}
