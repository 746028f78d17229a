import { afterEach, describe, expect, it, vi } from "vitest";
import type { Request, Response } from "express";
import { createPageCache } from "../../src/http/pageCache.ts";

const csrf = { token: () => "token" };

/** A stateless visitor's GET of `url`, and a response that records what the cache sent. */
function visit(url: string, cookie?: string) {
  const req = { method: "GET", headers: { cookie }, session: { cookie: {} }, protocol: "https", originalUrl: url, get: () => "shop.test", acceptsEncodings: () => "identity" } as unknown as Request;
  const sent: { body?: string } = {};
  const chunks: Buffer[] = [];
  const res = {
    locals: {},
    getHeader: () => undefined,
    set: () => res,
    status: () => res,
    type: () => res,
    vary: () => res,
    cork: () => undefined,
    uncork: () => undefined,
    write: (chunk: Buffer) => chunks.push(chunk),
    end: () => ((sent.body = Buffer.concat(chunks).toString()), res),
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

afterEach(() => {
  vi.useRealTimers();
});

describe("createPageCache", () => {
  it("once a page's time is up, lets one request render it again while the others get the kept copy, for at most the time a page is kept", () => {
    vi.useFakeTimers();
    const cache = createPageCache({ ttlMs: 3000, csrf });
    const { req, res } = visit("/events/2");
    cache.serve(req, res, () => undefined);
    cache.keep(req, res, "<p>first</p>");
    vi.advanceTimersByTime(3000);
    const renderer = visit("/events/2");
    let rendering = false;
    cache.serve(renderer.req, renderer.res, () => (rendering = true));
    expect(rendering).toBe(true);
    // Meanwhile (a render takes a while under load) the next visitors are answered from the copy, not rendered.
    expect([served(cache, "/events/2"), served(cache, "/events/2")]).toEqual([true, true]);
    // A render that never kept its page (it failed) holds the others back no longer than a page is kept.
    vi.advanceTimersByTime(3000);
    expect(served(cache, "/events/2")).toBe(false);
    const again = visit("/events/2");
    cache.serve(again.req, again.res, () => undefined);
    cache.keep(again.req, again.res, "<p>second</p>");
    expect(served(cache, "/events/2")).toBe(true);
  });

  it("after a clear nothing is served from before it, not even while a page is rendered again", () => {
    const cache = createPageCache({ ttlMs: 60_000, csrf });
    const { req, res } = visit("/a");
    cache.keep(req, res, "<p>a</p>");
    cache.clear();
    const renderer = visit("/a");
    cache.serve(renderer.req, renderer.res, () => undefined);
    expect(served(cache, "/a")).toBe(false);
  });

  it("keeps at most maxPages pages, the oldest going first", () => {
    const cache = createPageCache({ ttlMs: 60_000, maxPages: 3, csrf });
    for (const url of ["/a", "/b", "/c", "/d"]) {
      const { req, res } = visit(url);
      cache.keep(req, res, `<p>${url}</p>`);
    }
    expect(["/a", "/b", "/c", "/d"].map((u) => served(cache, u))).toEqual([false, true, true, true]);
  });

  it("forgets everything on clear", () => {
    const cache = createPageCache({ ttlMs: 60_000, csrf });
    const { req, res } = visit("/a");
    cache.keep(req, res, "<p>a</p>");
    expect(served(cache, "/a")).toBe(true);
    cache.clear();
    expect(served(cache, "/a")).toBe(false);
  });

  it("does not keep a page whose request began before a clear (it may show what was cleared)", () => {
    const cache = createPageCache({ ttlMs: 60_000, csrf });
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

  describe("serveBeforeSession", () => {
    const early = (cache: ReturnType<typeof createPageCache>, ready = true, beforeServing: () => void = () => undefined) =>
      cache.serveBeforeSession({ sessionCookie: "sid", sessionStoreReady: () => ready, beforeServing: (_req, _res, next) => (beforeServing(), next()) });
    /** Whether the early answer came (true), or the request went on to the session (false). */
    const answeredEarly = (handler: ReturnType<typeof early>, url: string, cookie?: string) => {
      const { req, res, sent } = visit(url, cookie);
      let passed = false;
      handler(req, res, () => (passed = true));
      return { answered: !passed && sent.body !== undefined, req, res };
    };

    it("answers a visitor without a session cookie while the store is up, after the version check; anyone else goes on to the session", () => {
      const cache = createPageCache({ ttlMs: 60_000, csrf });
      const { req, res } = visit("/about");
      cache.keep(req, res, "<p>about</p>");
      expect(answeredEarly(early(cache), "/about").answered).toBe(true);
      expect(answeredEarly(early(cache), "/about", "vid=abc").answered).toBe(true);
      expect(answeredEarly(early(cache), "/about", "vid=abc; sid=s%3Aabc.def").answered).toBe(false);
      expect(answeredEarly(early(cache, false), "/about").answered).toBe(false);
      expect(answeredEarly(early(cache), "/contact").answered).toBe(false);
      // The version check found a change by another process: it empties the cache before the page is looked for.
      expect(answeredEarly(early(cache, true, () => cache.clear()), "/about").answered).toBe(false);
    });

    it("lets the first request after a copy's time is up render it: serve does not answer it the old copy", () => {
      vi.useFakeTimers();
      const cache = createPageCache({ ttlMs: 3000, csrf });
      const { req, res } = visit("/events/2");
      cache.keep(req, res, "<p>first</p>");
      vi.advanceTimersByTime(3000);
      const first = answeredEarly(early(cache), "/events/2");
      expect(first.answered).toBe(false);
      let rendering = false;
      cache.serve(first.req, first.res, () => (rendering = true));
      expect(rendering).toBe(true);
      expect(answeredEarly(early(cache), "/events/2").answered).toBe(true);
    });
  });
});
