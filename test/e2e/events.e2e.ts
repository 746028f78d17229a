import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser, Page } from "playwright-core";
import { DESKTOP, launchBrowser, MOBILE, newVisit, seriousA11yViolations } from "../support/browser.ts";

let browser: Browser;
beforeAll(async () => {
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
});

/** Pictures that failed to load (lazy ones are forced to load first). */
async function brokenImages(page: Page): Promise<string[]> {
  await page.evaluate(async () => {
    for (const img of document.querySelectorAll("img")) img.loading = "eager";
    await Promise.all([...document.images].map((img) => (img.complete ? Promise.resolve() : new Promise((r) => { img.onload = img.onerror = r; }))));
  });
  return page.evaluate(() => [...document.images].filter((img) => img.naturalWidth === 0).map((img) => img.src));
}

describe("events in Chromium", () => {
  it("lists the four events and each 'View Details' opens its page", async () => {
    const { page, context, problems } = await newVisit(browser);
    const scripts: string[] = [];
    page.on("request", (r) => {
      if (r.resourceType() === "script") scripts.push(r.url());
    });
    await page.goto("/events", { waitUntil: "networkidle" });
    expect(await page.getByRole("heading", { level: 1 }).textContent()).toBe("Events");
    const titles = await page.locator(".event-card-title").allTextContents();
    expect(titles).toEqual(["Birmingham Slam Camp", "National Champ Camp", "Texas Recruiting Clinic", "Panther Train Tour"]);
    const champ = page.locator(".event-card", { hasText: "National Champ Camp" });
    const struck = champ.locator(".event-price del");
    expect(await struck.innerText()).toContain("$349.00");
    expect(await struck.evaluate((el) => getComputedStyle(el).textDecorationLine)).toBe("line-through");
    expect(await champ.locator(".event-price .price").innerText()).toContain("$299.00");
    expect(await champ.locator(".save-badge").innerText()).toBe("SAVE $50");
    const clinic = page.locator(".event-card", { hasText: "Texas Recruiting Clinic" });
    expect(await clinic.locator(".event-card-overlay-text").innerText()).toMatch(/open to all ages, boys and girls/i);
    expect(await clinic.locator(".college-logos img").count()).toBe(5);
    expect(await brokenImages(page)).toEqual([]);
    expect(scripts).toEqual([]);

    for (const [id, title] of titles.entries()) {
      await page.goto("/events");
      await page.locator(".event-card", { hasText: title }).getByRole("link", { name: "View Details" }).click();
      await page.waitForURL(`**/events/${id + 1}`);
      expect(await page.getByRole("heading", { level: 1 }).textContent()).toBe(title);
      expect(await page.title()).toBe(`${title} | Ironside`);
      expect(await page.getByRole("link", { name: "Secure Registration" }).getAttribute("href")).toBe(`/register/${id + 1}`);
    }
    expect(problems).toEqual([]);
    await context.close();
  });

  it("shows event 1's coaching staff and event 3's colleges with their pictures, and no JavaScript", async () => {
    const { page, context } = await newVisit(browser, { viewport: MOBILE });
    const scripts: string[] = [];
    page.on("request", (r) => {
      if (r.resourceType() === "script") scripts.push(r.url());
    });
    await page.goto("/events/1", { waitUntil: "networkidle" });
    const staff = page.getByRole("region", { name: "Elite Coaching Staff" });
    expect(await staff.getByRole("heading", { level: 3 }).allTextContents()).toEqual(["Marcus Delgado", "Tyrell Banks", "Jake Brennan", "Dana Whitfield"]);
    expect(await staff.getByRole("img").count()).toBe(4);
    expect(await brokenImages(page)).toEqual([]);
    await page.getByRole("navigation", { name: "Breadcrumb" }).getByRole("link", { name: "Events" }).click();
    await page.waitForURL("**/events");
    expect(scripts).toEqual([]);

    // The clinic's only script is the college coach dialog's island.
    await page.goto("/events/3", { waitUntil: "networkidle" });
    const colleges = page.getByRole("region", { name: "Colleges Attending" });
    expect(await colleges.innerText()).toMatch(/open to all ages, boys and girls/i);
    expect(await colleges.locator("img").count()).toBe(5);
    expect(await brokenImages(page)).toEqual([]);
    expect(await page.getByRole("link", { name: "Register a Team" }).getAttribute("href")).toBe("/team-register/3");
    expect(scripts.length).toBeGreaterThan(0);
    expect(scripts.every((s) => new URL(s).pathname.startsWith("/build/"))).toBe(true);
    await context.close();
  });

  it("puts no page text over the artwork, and both registration choices near the top of an event page on a phone", async () => {
    const overlaps = (page: Page) =>
      page.evaluate(() => {
        // Any visible text element of the page whose box meets a card or hero picture's box.
        const pictures = [...document.querySelectorAll(".event-card-media img, .event-hero-picture")].map((i) => i.getBoundingClientRect());
        const texts = [...document.querySelectorAll("main p, main span, main h1, main h2, main h3, main li, main a")].filter((el) => !el.querySelector("img") && (el.textContent ?? "").trim() !== "");
        return texts
          .filter((el) => {
            const r = el.getBoundingClientRect();
            return r.width > 0 && pictures.some((p) => r.left < p.right && r.right > p.left && r.top < p.bottom && r.bottom > p.top);
          })
          .map((el) => (el.textContent ?? "").trim());
      });
    for (const viewport of [MOBILE, DESKTOP]) {
      const { page, context } = await newVisit(browser, { viewport });
      await page.goto("/events");
      expect(await overlaps(page)).toEqual([]);
      await page.goto("/events/3");
      expect(await overlaps(page)).toEqual([]);
      await context.close();
    }
    const { page, context } = await newVisit(browser, { viewport: MOBILE });
    await page.goto("/events/1");
    const choices = page.getByRole("navigation", { name: "Register" });
    const individual = await choices.getByRole("link", { name: /Register as Individual/ }).boundingBox();
    const team = await choices.getByRole("link", { name: /Register as Team/ }).boundingBox();
    // Side by side, within the first screen.
    expect(Math.abs(individual!.y - team!.y)).toBeLessThan(4);
    expect(individual!.y + individual!.height).toBeLessThan(MOBILE.height);
    expect(await choices.getByRole("link", { name: /Register as Team/ }).getAttribute("href")).toBe("/team-register/1");
    await context.close();
  });

  it("answers an unknown event with 'Event Not Found' and a way back", async () => {
    const { page, context } = await newVisit(browser);
    const res = await page.goto("/events/abc");
    expect(res?.status()).toBe(404);
    expect(await page.getByRole("heading", { level: 1 }).textContent()).toBe("Event Not Found");
    await page.getByRole("link", { name: "Return to Events" }).click();
    await page.waitForURL("**/events");
    await context.close();
  });

  for (const [label, viewport] of [["mobile", MOBILE], ["desktop", DESKTOP]] as const) {
    it(`has no serious accessibility violations at ${label} width`, async () => {
      const { page, context } = await newVisit(browser, { viewport });
      const found: Record<string, string[]> = {};
      for (const url of ["/events", "/events/1", "/events/2", "/events/3", "/events/4", "/events/99"]) {
        await page.goto(url, { waitUntil: "networkidle" });
        const violations = await seriousA11yViolations(page);
        if (violations.length) found[url] = violations;
      }
      expect(found).toEqual({});
      await context.close();
    });
  }

  it("keeps every target at least 44 px tall on a phone", async () => {
    const { page, context } = await newVisit(browser, { viewport: MOBILE });
    for (const url of ["/events", "/events/2"]) {
      await page.goto(url);
      const small = await page.evaluate(() =>
        [...document.querySelectorAll("main a, main button")]
          .map((el) => ({ text: (el as HTMLElement).innerText.trim(), h: el.getBoundingClientRect().height }))
          .filter((t) => t.h > 0 && t.h < 44),
      );
      expect(small, url).toEqual([]);
    }
    await context.close();
  });
});
