import { randomBytes } from "node:crypto";
import zlib from "node:zlib";
import type { Request, RequestHandler, Response } from "express";
import type { Csrf } from "./csrf.ts";
import { cookieValue } from "./cookies.ts";
import { CSRF_PLACEHOLDER, FORM_ID_PLACEHOLDER } from "./placeholders.ts";

/**
 * Rendered pages kept in process for a few seconds and served to visitors without state: no cart, no checkout,
 * no toast, no kept form values, so every one of them is shown the same page. Rendering a page costs far more
 * than sending it. The visitor's CSRF token and a registration form's id are the parts that differ: pages rendered
 * for such a visitor carry placeholders, replaced on the way out by the visitor's own token and a new form id, so a
 * kept page never holds anyone's token and no two visitors are given one form.
 * A page for a visitor with state can be kept too, under a key that names everything it shows for that state (the
 * cart page: the cart's lines as the catalogue prices them now), with the same placeholders (`answerKept`, `keepAs`).
 * Several instances each keep their own copies; a change of events is seen by the others at their next request
 * (src/events/version.ts), other changes within the time a page is kept. A page rendered while `clear()` ran may
 * hold what was cleared: it is not kept.
 */
export interface PageCache {
  /**
   * Before the body parsers and the session: answers the GET of a visitor who sends no session cookie from a fresh
   * copy, with only the CSRF cookie read (a new visitor's is set). Such a visitor has no state while the session store
   * is up (express-session would make them a new, empty session), so `serve` would answer them the same copy; most
   * page requests are theirs. `beforeServing` runs first when a copy is there (the events' version check, which may
   * empty the cache).
   */
  serveBeforeSession(opts: { sessionCookie: string; sessionStoreReady: () => boolean; beforeServing: RequestHandler }): RequestHandler;
  /** Answers a stateless visitor's GET from a fresh copy, or lets the route render it (after the page context). */
  serve: RequestHandler;
  /** Keeps a page a route marked as the same for every stateless visitor (its HTML still holds the placeholder). */
  keep(req: Request, res: Response, html: string): void;
  /**
   * Answers from a page kept under `key` for this URL (`keepAs`) and returns true, or returns false. The key must
   * name everything the page shows for the visitor's state; what differs per visitor is only the placeholders.
   */
  answerKept(req: Request, res: Response, key: string): boolean;
  /** Keeps a page rendered with placeholders under a key as `answerKept` takes it. */
  keepAs(req: Request, res: Response, key: string, html: string): void;
  /**
   * Public JSON (the same answer for every visitor, no session, no token), kept as the pages are and forgotten with
   * them: answers the GET from a fresh copy (with an Age header) and returns true, or returns false and notes the
   * time the answer is made from (a copy made while `clear()` ran is not kept).
   */
  answerPublic(req: Request, res: Response): boolean;
  /** Sends a public JSON answer just made (status 200) and keeps it for the next `answerPublic`. */
  sendPublic(req: Request, res: Response, json: string): void;
  /** Forgets every page: called after a write that pages show (places, prices, products). */
  clear(): void;
}

const SAFE = new Set(["GET", "HEAD"]);

/** A visitor with nothing kept: a session object that was never stored (or only its cookie) and a store that is up. */
export function isStateless(req: Request): boolean {
  if (!SAFE.has(req.method) || !req.session) return false;
  return Object.keys(req.session).every((key) => key === "cookie");
}

const keyOf = (req: Request) => `${req.protocol}://${req.get("host") ?? ""}${req.originalUrl}`;

interface KeptPage {
  /** The page's bytes between its placeholders, and which placeholder follows each part but the last. */
  parts: Buffer[];
  slots: ("csrf" | "formId")[];
  type: "html" | "json";
  /** The parts deflated once, each ending byte-aligned (made at the first answer that may be gzipped). */
  deflated?: Buffer[];
  cacheControl: string | undefined;
  rendered: number;
  expires: number;
  /** Past `expires`: when one request was let through to render it again (the others meanwhile get this copy). */
  refreshingSince?: number;
}

/** Pages by key for `ttlMs`, the oldest dropped beyond `maxPages`: a crawler's endless query strings or many carts push out old pages, never grow the process. */
function keptPages(ttlMs: number, maxPages: number) {
  const pages = new Map<string, KeptPage>();
  return {
    /** Whether a copy is kept for `key`, fresh or not (nothing else changes). */
    has: (key: string) => pages.has(key),
    /**
     * The page for `key`. Once its time is up the first request gets nothing (it renders the page again) and the
     * requests that come while it renders get this copy, for at most another `ttlMs`: under load every request that
     * arrived at the expiry would otherwise render the page (and read the database) at once.
     */
    get(key: string): KeptPage | undefined {
      const page = pages.get(key);
      const now = Date.now();
      if (!page || page.expires > now) return page;
      if (page.refreshingSince !== undefined && now - page.refreshingSince < ttlMs) return page;
      page.refreshingSince = now;
      return undefined;
    },
    set(key: string, res: Response, html: string, type: KeptPage["type"] = "html"): KeptPage {
      const cacheControl = res.getHeader("cache-control");
      pages.delete(key);
      const rendered = Date.now();
      const page: KeptPage = { ...(type === "html" ? atPlaceholders(html) : whole(html)), type, cacheControl: typeof cacheControl === "string" ? cacheControl : undefined, rendered, expires: rendered + ttlMs };
      pages.set(key, page);
      for (const oldest of pages.keys()) {
        if (pages.size <= maxPages) break;
        pages.delete(oldest);
      }
      return page;
    },
    clear: () => pages.clear(),
  };
}

const PLACEHOLDERS = new RegExp(`(${CSRF_PLACEHOLDER}|${FORM_ID_PLACEHOLDER})`);

/** Cut once when kept, so that each answer joins bytes instead of searching and copying the page's text. */
function atPlaceholders(html: string): Pick<KeptPage, "parts" | "slots"> {
  const pieces = html.split(PLACEHOLDERS);
  return {
    parts: pieces.filter((_, i) => i % 2 === 0).map((part) => Buffer.from(part)),
    slots: pieces.filter((_, i) => i % 2 === 1).map((p) => (p === CSRF_PLACEHOLDER ? "csrf" : "formId")),
  };
}

/** An answer with no placeholders (public JSON): its bytes as one part. */
const whole = (text: string): Pick<KeptPage, "parts" | "slots"> => ({ parts: [Buffer.from(text)], slots: [] });

/** What goes in each of the page's placeholders for this visitor, as withVisitorToken fills them: their token, and a form id of this answer's own. */
function visitorFills(page: KeptPage, token: () => string): Buffer[] {
  const formId = page.slots.includes("formId") ? Buffer.from(randomBytes(16).toString("base64url")) : undefined;
  const csrf = page.slots.includes("csrf") ? Buffer.from(token()) : undefined;
  return page.slots.map((slot) => (slot === "csrf" ? csrf! : formId!));
}

/** The page's parts with the visitor's fills between them: sent as they are, never copied into one buffer. */
function visitorChunks(page: KeptPage, fills: Buffer[]): Buffer[] {
  return page.parts.flatMap((part, i) => (i < fills.length ? [part, fills[i]!] : [part]));
}

/** Below this an answer is sent as it is (the compression middleware's own threshold). */
const GZIP_FROM_BYTES = 1024;
const GZIP_HEADER = Buffer.from([0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3]);
/** The last deflate block: empty, stored, final. */
const DEFLATE_END = Buffer.from([1, 0, 0, 0xff, 0xff]);

/** Bytes as one stored (uncompressed) deflate block, for a stream that is byte-aligned where it goes. */
function storedBlock(bytes: Buffer): Buffer[] {
  const n = bytes.length;
  return [Buffer.from([0, n & 0xff, n >> 8, ~n & 0xff, (~n >> 8) & 0xff]), bytes];
}

/**
 * A kept page gzipped for this visitor without compressing it again: its parts were deflated once (each an
 * independent run ending in a sync flush, so back-references never cross a part), the visitor's token and form id
 * go between them as stored blocks, and the gzip trailer's CRC is computed over what the visitor is sent.
 * Compressing the page per answer was most of a kept page's CPU.
 */
function gzippedChunks(page: KeptPage, fills: Buffer[]): Buffer[] {
  page.deflated ??= page.parts.map((part) => zlib.deflateRawSync(part, { level: 6, finishFlush: zlib.constants.Z_SYNC_FLUSH }));
  const chunks: Buffer[] = [GZIP_HEADER];
  let crc = 0;
  let size = 0;
  page.parts.forEach((part, i) => {
    chunks.push(page.deflated![i]!);
    crc = zlib.crc32(part, crc);
    size += part.length;
    const fill = fills[i];
    if (fill) {
      if (fill.length > 0xffff) throw new Error("a page's placeholder value is longer than one stored block");
      chunks.push(...storedBlock(fill));
      crc = zlib.crc32(fill, crc);
      size += fill.length;
    }
  });
  const trailer = Buffer.alloc(8);
  trailer.writeUInt32LE(crc >>> 0, 0);
  trailer.writeUInt32LE(size >>> 0, 4);
  chunks.push(DEFLATE_END, trailer);
  return chunks;
}

/**
 * Writes the chunks in one go (one writev with the headers) with their total as Content-Length: joining them first
 * copied the whole page per answer, most of the difference between a large kept page and a static file of its size.
 */
function sendChunks(req: Request, res: Response, chunks: Buffer[]): void {
  res.set("content-length", String(chunks.reduce((n, chunk) => n + chunk.length, 0)));
  if (req.method === "HEAD") {
    res.end();
    return;
  }
  res.cork();
  for (const chunk of chunks) res.write(chunk);
  res.end();
  res.uncork();
}

/**
 * A kept page with its own Cache-Control and, as any HTTP cache answers a kept response, its age in seconds (for
 * tests and operators, the sign of a hit); `age: false` for the answer just made.
 */
function sendKept(req: Request, res: Response, page: KeptPage, token: () => string, { age = true } = {}): void {
  if (page.cacheControl) res.set("cache-control", page.cacheControl);
  if (age) res.set("age", String(Math.floor((Date.now() - page.rendered) / 1000)));
  const fills = visitorFills(page, token);
  const length = page.parts.reduce((n, part) => n + part.length, 0) + fills.reduce((n, fill) => n + fill.length, 0);
  res.status(200).type(page.type).vary("Accept-Encoding");
  if (length >= GZIP_FROM_BYTES && req.acceptsEncodings("gzip", "identity") === "gzip") {
    res.set("content-encoding", "gzip");
    sendChunks(req, res, gzippedChunks(page, fills));
  } else sendChunks(req, res, visitorChunks(page, fills));
}

/** `csrf` gives each answer its visitor's token (and a new visitor their cookie). */
export function createPageCache({ ttlMs, maxPages = 500, csrf }: { ttlMs: number; maxPages?: number; csrf: Pick<Csrf, "token"> }): PageCache {
  // A route's own Cache-Control (registration pages: no-store) goes with its page; the rest is set on every request.
  const forStateless = keptPages(ttlMs, maxPages);
  const byState = keptPages(ttlMs, maxPages);
  const publicJson = keptPages(ttlMs, maxPages);
  const stateKey = (req: Request, key: string) => `${keyOf(req)}\n${key}`;
  // Bumped by clear(): a page whose request began before the last clear() is not kept.
  let generation = 0;
  const keepable = (req: Request) => ttlMs > 0 && SAFE.has(req.method);
  const unchanged = (res: Response) => res.locals.pageCacheGeneration === undefined || res.locals.pageCacheGeneration === generation;
  const send = (req: Request, res: Response, page: KeptPage, opts?: { age: boolean }) => sendKept(req, res, page, () => csrf.token(req, res), opts);
  return {
    serveBeforeSession: ({ sessionCookie, sessionStoreReady, beforeServing }) => (req, res, next) => {
      if (ttlMs <= 0 || !SAFE.has(req.method) || cookieValue(req, sessionCookie) !== undefined || !sessionStoreReady()) return next();
      const key = keyOf(req);
      if (!forStateless.has(key)) return next();
      beforeServing(req, res, (err?: unknown) => {
        if (err) return next(err);
        const page = forStateless.get(key);
        // Asked once per request: the first request after a copy's time is up renders it, so `serve` must not ask again.
        res.locals.keptPageAsked = true;
        if (!page) return next();
        send(req, res, page);
      });
    },
    serve: (req, res, next) => {
      res.locals.pageCacheGeneration = generation;
      const page = ttlMs > 0 && res.locals.keptPageAsked !== true && isStateless(req) ? forStateless.get(keyOf(req)) : undefined;
      if (!page) return next();
      send(req, res, page);
    },
    keep: (req, res, html) => {
      if (keepable(req) && unchanged(res) && isStateless(req)) forStateless.set(keyOf(req), res, html);
    },
    answerKept: (req, res, key) => {
      const page = keepable(req) ? byState.get(stateKey(req, key)) : undefined;
      if (page) send(req, res, page);
      return page !== undefined;
    },
    keepAs: (req, res, key, html) => {
      if (keepable(req) && unchanged(res)) byState.set(stateKey(req, key), res, html);
    },
    answerPublic: (req, res) => {
      res.locals.pageCacheGeneration = generation;
      const page = keepable(req) ? publicJson.get(keyOf(req)) : undefined;
      if (page) send(req, res, page);
      return page !== undefined;
    },
    sendPublic: (req, res, json) => {
      const page = keepable(req) && unchanged(res) ? publicJson.set(keyOf(req), res, json, "json") : { ...whole(json), type: "json" as const, cacheControl: undefined, rendered: Date.now(), expires: 0 };
      send(req, res, page, { age: false });
    },
    clear: () => {
      generation += 1;
      forStateless.clear();
      byState.clear();
      publicJson.clear();
    },
  };
}
