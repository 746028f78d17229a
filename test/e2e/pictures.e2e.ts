import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser } from "playwright-core";
import { launchBrowser, MOBILE, newVisit } from "../support/browser.ts";

let browser: Browser;
beforeAll(async () => {
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
});

/** The pages whose largest paint is a picture, on a phone. */
const PAGES = ["/", "/shop", "/events", "/events/2", "/custom-apparel"];

describe("pictures in Chromium", () => {
  it.each(PAGES)("%s paints its one high-priority picture first, from a content-hashed file cached for a year", async (path) => {
    const { page, context, problems } = await newVisit(browser, { viewport: MOBILE });
    const pictures: { url: string; cacheControl: string | undefined }[] = [];
    page.on("response", (r) => {
      if (r.request().resourceType() === "image") pictures.push({ url: new URL(r.url()).pathname, cacheControl: r.headers()["cache-control"] });
    });
    await page.goto(path, { waitUntil: "networkidle" });

    const first = page.locator('img[fetchpriority="high"]');
    expect(await first.count()).toBe(1);
    expect(await first.getAttribute("loading")).toBeNull();
    expect(Number(await first.getAttribute("width"))).toBeGreaterThan(0);
    expect(Number(await first.getAttribute("height"))).toBeGreaterThan(0);
    // Chromium's own largest contentful paint is that picture.
    const lcpUrl = await page.evaluate(
      () =>
        new Promise<string>((resolve) => {
          new PerformanceObserver((list) => resolve((list.getEntries().at(-1) as PerformanceEntry & { url: string }).url)).observe({ type: "largest-contentful-paint", buffered: true });
        }),
    );
    expect(new URL(lcpUrl).pathname).toBe(await first.getAttribute("src"));
    // Every other picture in the page (outside the widgets, which load their own) waits until it is near the viewport.
    const eager = await page.locator('main img:not([fetchpriority="high"]):not([loading="lazy"]):not([data-widget] img)').count();
    expect(eager).toBe(0);

    expect(pictures.length).toBeGreaterThan(0);
    for (const p of pictures) {
      expect(p.url, p.url).toMatch(/^\/build\/[a-z0-9-]+-[0-9a-f]{12}\.svg$/);
      expect(p.cacheControl, p.url).toBe("public, max-age=31536000, immutable");
    }
    expect(problems).toEqual([]);
    await context.close();
  });
});
