import type { ErrorRequestHandler, Request, RequestHandler } from "express";
import { createElement } from "react";
import { renderPage } from "./render.tsx";
import { ErrorPage } from "../../views/pages/ErrorPage.tsx";
import { NotFoundPage } from "../../views/pages/NotFoundPage.tsx";
import { pathForLog, type Logger } from "../logger.ts";
import { DomainError, type DomainErrorKind } from "../errors.ts";
import { ForbiddenOriginError } from "./security.ts";
import { buildPageContext, type PageContextOptions } from "./pageContext.ts";
import { toText } from "../shared/toText.ts";

/** The one table from a use case's refusal to an HTTP status (and the error page's title). */
const DOMAIN_ERROR_STATUS: Record<DomainErrorKind, { status: number; title: string }> = {
  invalid: { status: 400, title: "Please check your request" },
  unprocessable: { status: 422, title: "Please check your request" },
  not_found: { status: 404, title: "Not found" },
  forbidden: { status: 403, title: "Request refused" },
  conflict: { status: 409, title: "Something changed" },
  unavailable: { status: 503, title: "Temporarily unavailable" },
  upstream_failed: { status: 502, title: "Temporarily unavailable" },
};

export function domainErrorStatus(err: DomainError): number {
  return DOMAIN_ERROR_STATUS[err.kind].status;
}

/** An HTTP-layer refusal (middleware, routes) whose message is safe to show; use cases throw a DomainError instead. */
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

/** APIs, clients that prefer JSON, and clients that sent JSON get JSON answers; browsers get pages. */
export function wantsJson(req: Request): boolean {
  return req.path.startsWith("/api/") || req.accepts(["html", "json"]) === "json" || Boolean(req.is("application/json"));
}

const UNSAFE = new Set(["POST", "PUT", "PATCH", "DELETE"]);

/** Writes need a session (cart, checkout, flash); while the store is down they answer 503 instead of hanging. */
export const requireSessionForWrites: RequestHandler = (req, _res, next) => {
  if (UNSAFE.has(req.method) && !req.session) return next(new HttpError(503, SESSION_UNAVAILABLE, "Temporarily unavailable"));
  next();
};

/** A database, Redis or network failure: answered with 503 (or, for the session, by going on without one). */
export function isUnavailable(err: unknown): boolean {
  const e = err as { name?: string; code?: string; errno?: number; message?: string };
  return (
    e?.name === "KnexTimeoutError" ||
    e?.name === "ClientClosedError" ||
    e?.name === "ClientOfflineError" ||
    e?.name === "ConnectionTimeoutError" ||
    e?.name === "RedisUnavailableError" ||
    ["ECONNREFUSED", "ECONNRESET", "ETIMEDOUT", "PROTOCOL_CONNECTION_LOST", "EPIPE", "ENOTFOUND"].includes(e?.code ?? "") ||
    /The client is closed|Socket closed|connect ECONNREFUSED/i.test(e?.message ?? "")
  );
}

/** What the visitor reads for a 4xx that a body parser or the static file server raised (their own texts may quote the body). */
const CLIENT_ERRORS: Record<number, { title: string; message: string }> = {
  400: { title: "Bad request", message: "The request could not be read." },
  403: { title: "Request refused", message: "This request is not allowed." },
  404: { title: "Not found", message: "There is nothing at this address." },
  405: { title: "Not allowed", message: "This method is not allowed here." },
  408: { title: "Too slow", message: "The request took too long to arrive." },
  413: { title: "Too large", message: "The request is too large." },
  415: { title: "Unsupported request", message: "The request's content type, character set or encoding is not supported." },
};

/** The 4xx status of an http-errors error (body-parser, serve-static): those mark client mistakes with `expose`. */
function clientStatus(err: unknown): number | undefined {
  const e = err as { status?: unknown; statusCode?: unknown; expose?: unknown };
  const status = e?.status ?? e?.statusCode;
  return e?.expose === true && typeof status === "number" && status >= 400 && status < 500 ? status : undefined;
}

function classify(err: unknown): { status: number; title: string; message: string } {
  const e = err as { code?: string; type?: string };
  if (err instanceof DomainError) return { ...DOMAIN_ERROR_STATUS[err.kind], message: err.message };
  if (err instanceof HttpError) return { status: err.status, title: err.title ?? "Something went wrong", message: err.message };
  if (e?.code === "EBADCSRFTOKEN") return { status: 403, title: "Form expired", message: CSRF_MESSAGE };
  if (err instanceof ForbiddenOriginError) return { status: 403, title: "Request refused", message: "Cross-site requests are not accepted." };
  if (e?.type === "entity.parse.failed") return { status: 400, title: "Bad request", message: "The request body is not valid JSON." };
  const status = clientStatus(err);
  if (status) return { status, ...(CLIENT_ERRORS[status] ?? CLIENT_ERRORS[400]!) };
  if (isUnavailable(err)) return { status: 503, title: "Temporarily unavailable", message: SERVICE_UNAVAILABLE };
  return { status: 500, title: "Something went wrong", message: "An unexpected error occurred. Please try again, or contact us if it keeps happening." };
}

/**
 * What the log keeps of an error: never a request body (body-parser errors carry it in `body`), never a
 * parser's message (it may quote the body); quoted snippets in other messages are cut out too.
 */
export function errorForLog(err: unknown): Record<string, unknown> {
  const e = (err ?? {}) as { name?: unknown; message?: unknown; stack?: unknown; code?: unknown; type?: unknown };
  const redact = (text: string) => text.replace(/"[^"\n]*"?/g, '"[redacted]"');
  if (typeof e.type === "string") return { name: toText(e.name ?? "Error"), type: e.type };
  return {
    name: toText(e.name ?? "Error"),
    message: redact(String(e.message ?? err)),
    ...(typeof e.code === "string" ? { code: e.code } : {}),
    ...(typeof e.stack === "string" ? { stack: redact(e.stack) } : {}),
  };
}

/** Why a request was refused, for the log: our own message, a parser's error type, or an error code (never a parser's text). */
function refusalReason(err: unknown): string {
  if (err instanceof HttpError) return err.message;
  const e = err as { type?: unknown; code?: unknown; name?: unknown };
  return toText(e?.type ?? e?.code ?? e?.name ?? "refused");
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

/**
 * The one error handler: JSON for APIs, the error page otherwise (form posts included, even when the body
 * could not be read); never a stack trace. Client mistakes keep their 4xx and are logged without a stack.
 */
export function errorHandler(logger: Logger, pages: PageContextOptions): ErrorRequestHandler {
  return (err, req, res, _next) => {
    const { status, title, message } = classify(err);
    if (status >= 500) logger.error({ err: errorForLog(err), method: req.method, path: pathForLog(req.path) }, "request failed");
    else if (status === 404 || status === 405) logger.info({ status, method: req.method, path: pathForLog(req.path) }, "not found");
    else logger.warn({ status, method: req.method, path: pathForLog(req.path), reason: refusalReason(err) }, "request refused");
    if (res.headersSent) {
      res.end();
      return;
    }
    if (status === 503) res.set("retry-after", "30");
    if (wantsJson(req) || req.path.startsWith("/build/")) {
      res.status(status).json({ success: false, error: message });
      return;
    }
    try {
      // Errors raised before the page context existed (an unreadable form body) still get the HTML page.
      res.locals.page ??= buildPageContext(req, res, pages, { sessionNotice: false });
      renderPage(req, res, createElement(ErrorPage, { title, message }), { title, description: message, status, noindex: true });
    } catch (renderErr) {
      logger.error({ err: errorForLog(renderErr) }, "error page failed to render");
      res.status(status).type("text").send(message);
    }
  };
}
