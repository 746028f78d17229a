import { createHmac, timingSafeEqual } from "node:crypto";
import type { Request, RequestHandler, Response } from "express";
import { randomId } from "./randomIds.ts";
import { cookieValue } from "./cookies.ts";

/**
 * Stateless CSRF protection: a random visitor id in an HttpOnly cookie, and a token that is the HMAC of that id
 * under the session secret. Nothing is stored on the server, so browsing writes no session; the same token stays
 * valid when a session starts or its id is renewed (checkout). A forged request carries the victim's cookie but
 * cannot compute the token. In production the cookie is `__Host-` prefixed (Secure, path /, no Domain), so a
 * sibling subdomain cannot plant an id whose token it knows.
 */
export interface Csrf {
  /** Checks the token of every unsafe request (header `x-csrf-token`, or the form field `_csrf`). */
  protect: RequestHandler;
  /** The visitor's token; sets the visitor cookie on this response when the visitor has none yet. */
  token(req: Request, res: Response): string;
  /** Whether the request carries its visitor's token (the header, or a `_csrf` field already read). */
  valid(req: Request): boolean;
}

const SAFE = new Set(["GET", "HEAD", "OPTIONS"]);
const ID = /^[A-Za-z0-9_-]{43}$/;
const YEAR_MS = 365 * 24 * 60 * 60 * 1000;

export class CsrfError extends Error {
  readonly code = "EBADCSRFTOKEN";
  readonly status = 403;
}

export function createCsrf(secret: string, secure: boolean): Csrf {
  const cookieName = secure ? "__Host-vid" : "vid";
  const sign = (id: string) => createHmac("sha256", secret).update(`csrf:${id}`).digest("base64url");
  const visitorId = (req: Request): string | undefined => {
    const value = cookieValue(req, cookieName);
    return value !== undefined && ID.test(value) ? value : undefined;
  };
  const sentToken = (req: Request): string | undefined => {
    const header = req.headers["x-csrf-token"];
    if (typeof header === "string") return header;
    const body = req.body as Record<string, unknown> | undefined;
    return typeof body?._csrf === "string" ? body._csrf : undefined;
  };
  const valid = (req: Request): boolean => {
    const id = visitorId(req);
    const sent = sentToken(req);
    if (!id || !sent) return false;
    const expected = Buffer.from(sign(id));
    const given = Buffer.from(sent);
    return given.length === expected.length && timingSafeEqual(given, expected);
  };
  return {
    valid,
    protect: (req, res, next) => {
      if (SAFE.has(req.method)) return next();
      if (!valid(req)) return next(new CsrfError("invalid csrf token"));
      // The checked visitor id: what a request's work may be tied to (src/http/visitor.ts).
      res.locals.visitorId = visitorId(req);
      next();
    },
    token: (req, res) => {
      let id = visitorId(req) ?? (res.locals.visitorId as string | undefined);
      if (!id) {
        id = randomId(32);
        res.locals.visitorId = id;
        res.cookie(cookieName, id, { httpOnly: true, sameSite: "lax", secure, path: "/", maxAge: YEAR_MS });
      }
      return sign(id);
    },
  };
}
