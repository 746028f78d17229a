import type { RequestHandler } from "express";

/**
 * A response a shared cache may keep (`Cache-Control: public`) never carries a cookie: a cache would hand
 * one visitor's session to everyone. Mounted before the session middleware, so this runs after it has
 * set its cookie (each later writeHead wrapper runs first) and takes the cookie off again.
 */
export const noCookieOnPublicResponses: RequestHandler = (_req, res, next) => {
  // eslint-disable-next-line @typescript-eslint/unbound-method -- called below with apply(this, ...)
  const writeHead = res.writeHead;
  res.writeHead = function (this: typeof res, ...args: Parameters<typeof res.writeHead>) {
    if (/\bpublic\b/i.test(String(this.getHeader("cache-control") ?? ""))) this.removeHeader("set-cookie");
    return writeHead.apply(this, args);
  } as typeof res.writeHead;
  next();
};
