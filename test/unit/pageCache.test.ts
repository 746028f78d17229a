import { describe, expect, it } from "vitest";
import type { Request, Response } from "express";
import { createPageCache } from "../../src/http/pageCache.ts";

/** A stateless visitor's GET of `url`, and a response that records what the cache sent. */
function visit(url: string) {
  const req = { method: "GET", session: { cookie: {} }, protocol: "https", originalUrl: url, get: () => "shop.test" } as unknown as Request;
  const sent: { body?: string } = {};
  const res = {
    locals: { page: { visitorCsrfToken: () => "token" } },
    getHeader: () => undefined,
    set: () => res,
    status: () => res,
    type: () => res,
    send: (body: string) => ((sent.body = body), res),
  } as unknown as Response;
  return { req, res, sent };
}

/** Whether the cache answered the URL itself (true) or let the route render it (false). */
function served(cache: ReturnType<typeof createPageCache>, url: string): boolean {
  const { req, res, sent } = visit(url);
  let rendered = false;
  cache.serve(req, res, () => (rendered = true));
  return !rendered && sent.body !== undefined;
}

describe("createPageCache", () => {
  it("keeps at most maxPages pages, the oldest going first", () => {
    const cache = createPageCache({ ttlMs: 60_000, maxPages: 3 });
    for (const url of ["/a", "/b", "/c", "/d"]) {
      const { req, res } = visit(url);
      cache.keep(req, res, `<p>${url}</p>`);
    }
    expect(["/a", "/b", "/c", "/d"].map((u) => served(cache, u))).toEqual([false, true, true, true]);
  });

  it("forgets everything on clear", () => {
    const cache = createPageCache({ ttlMs: 60_000 });
    const { req, res } = visit("/a");
    cache.keep(req, res, "<p>a</p>");
    expect(served(cache, "/a")).toBe(true);
    cache.clear();
    expect(served(cache, "/a")).toBe(false);
  });

  it("does not keep a page whose request began before a clear (it may show what was cleared)", () => {
    const cache = createPageCache({ ttlMs: 60_000 });
    const { req, res } = visit("/events/2");
    cache.serve(req, res, () => undefined);
    cache.clear();
    cache.keep(req, res, "<p>rendered from the data read before the clear</p>");
    expect(served(cache, "/events/2")).toBe(false);
    const again = visit("/events/2");
    cache.serve(again.req, again.res, () => undefined);
    cache.keep(again.req, again.res, "<p>rendered after it</p>");
    expect(served(cache, "/events/2")).toBe(true);
  });
});
