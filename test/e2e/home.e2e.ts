import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser, Page } from "playwright-core";
import { DESKTOP, e2eDb, hydratedInView, launchBrowser, MOBILE, newVisit, seriousA11yViolations } from "../support/browser.ts";
import { scaledMs } from "../support/timeouts.ts";

let browser: Browser;
beforeAll(async () => {
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
});

const loadedAtStart = (page: Page, widget: string) => page.locator(`[data-widget="${widget}"]`).getAttribute("data-hydrated");
const activeInside = (page: Page, selector: string) => page.evaluate((s) => Boolean(document.activeElement?.closest(s)), selector);

describe("home page in Chromium", () => {
  it("opens the team modal with the mouse and lands on /team-registration?eventId=2", async () => {
    const { page, context, problems } = await newVisit(browser);
    const loaded: string[] = [];
    page.on("request", (r) => r.resourceType() === "script" && loaded.push(r.url()));
    await page.goto("/", { waitUntil: "networkidle" });
    // The modal's code (and React) load on the first hover, focus or touch of a trigger; a click that comes first is replayed.
    expect(await loadedAtStart(page, "TeamEventModal")).toBeNull();
    const { entries } = (await (await page.request.get("/build/manifest.json")).json()) as { entries: Record<string, { url: string; imports: string[] }> };
    const boot = [entries["boot.js"]!.url, ...entries["boot.js"]!.imports];
    expect(loaded.map((u) => new URL(u).pathname).filter((u) => !boot.includes(u))).toEqual([]);
    const dialog = page.getByRole("dialog", { name: "Choose Your Team Event" });
    expect(await dialog.isVisible()).toBe(false);
    await page.locator(".home-hero").getByRole("link", { name: "Register as Team" }).click();
    await expect.poll(() => dialog.isVisible()).toBe(true);
    expect(page.url()).toMatch(/\/$/);
    expect(await dialog.getByRole("link").count()).toBe(3);
    await dialog.getByRole("link", { name: /National Champ Camp/ }).click();
    await page.waitForURL(/\/team-registration\?eventId=2$/);
    expect(problems.filter((p) => !p.includes("404"))).toEqual([]);
    await context.close();
  });

  it("works from the keyboard: focus stays in the modal, Escape closes it and focus returns", async () => {
    const { page, context } = await newVisit(browser);
    await page.goto("/");
    const trigger = page.locator("#signup-portal").getByRole("link", { name: "Register as Team" });
    await trigger.focus();
    await page.waitForSelector('[data-widget="TeamEventModal"][data-hydrated="true"]', { state: "attached" });
    await page.keyboard.press("Enter");
    const dialog = page.getByRole("dialog", { name: "Choose Your Team Event" });
    await expect.poll(() => dialog.isVisible()).toBe(true);
    expect(await activeInside(page, "dialog")).toBe(true);
    for (let i = 0; i < 6; i += 1) {
      await page.keyboard.press("Tab");
      expect(await activeInside(page, "dialog")).toBe(true);
    }
    await page.keyboard.press("Escape");
    await expect.poll(() => dialog.isVisible()).toBe(false);
    expect(await trigger.evaluate((el) => el === document.activeElement)).toBe(true);

    await page.keyboard.press("Enter");
    await expect.poll(() => dialog.isVisible()).toBe(true);
    // Close button, then the three events in order: the second is the National Champ Camp.
    await page.keyboard.press("Tab");
    await page.keyboard.press("Tab");
    expect(await page.evaluate(() => document.activeElement?.getAttribute("href"))).toBe("/team-registration?eventId=2");
    await page.keyboard.press("Enter");
    await page.waitForURL(/\/team-registration\?eventId=2$/);
    await context.close();
  });

  it("leads to the same choice on a page of its own without JavaScript", async () => {
    const { page, context } = await newVisit(browser, { javaScript: false });
    await page.goto("/");
    await page.locator(".home-hero").getByRole("link", { name: "Register as Team" }).click();
    await page.waitForURL(/\/team-events$/);
    await page.locator(".team-choices").getByRole("link", { name: /National Champ Camp/ }).click();
    await page.waitForURL(/\/team-registration\?eventId=2$/);
    await context.close();
  });

  it("scrolls to the registration section from the sticky banner and 'Register as Individual'", async () => {
    const { page, context } = await newVisit(browser);
    await page.goto("/");
    expect(await page.locator(".team-banner").evaluate((el) => getComputedStyle(el).position)).toBe("sticky");
    await page.getByRole("link", { name: "Register as Individual" }).click();
    await page.waitForURL(/#signup-portal$/);
    // The page scrolls smoothly: on a busy machine that takes more than expect.poll's default second.
    await expect.poll(() => page.locator("#signup-portal h2").evaluate((el) => el.getBoundingClientRect().top < window.innerHeight), { timeout: scaledMs(10_000) }).toBe(true);
    await context.close();
  });

  it("takes a pasted and an autofilled address in the newsletter form (trimmed, any case)", async () => {
    const db = e2eDb();
    try {
      const { page, context } = await newVisit(browser);
      await context.grantPermissions(["clipboard-read", "clipboard-write"]);
      await page.goto("/");
      await hydratedInView(page, "NewsletterForm");
      const form = page.getByRole("form", { name: "Newsletter sign-up" });
      // A real paste from the clipboard, spaces around the address as copied from a message.
      await page.evaluate(() => navigator.clipboard.writeText("  Pasted.Fan@Example.COM  "));
      await form.getByLabel("Email address").focus();
      await page.keyboard.press("ControlOrMeta+V");
      await form.getByRole("button", { name: "Subscribe" }).click();
      await page.getByTestId("newsletter-sent").waitFor();
      expect(await db("newsletter_subscribers").where({ email: "pasted.fan@example.com" })).toHaveLength(1);
      await context.close();

      // An autofill the way password managers and extensions do it: the value set by script, then input and change
      // events (React's change tracking records the scripted value, so it reports no change).
      const second = await newVisit(browser);
      await second.page.goto("/");
      await hydratedInView(second.page, "NewsletterForm");
      await second.page.getByRole("form", { name: "Newsletter sign-up" }).getByLabel("Email address").evaluate((el: HTMLInputElement) => {
        el.value = "Autofill.Fan@example.com";
        el.dispatchEvent(new Event("input", { bubbles: true }));
        el.dispatchEvent(new Event("change", { bubbles: true }));
      });
      await second.page.getByRole("button", { name: "Subscribe" }).click();
      await second.page.getByTestId("newsletter-sent").waitFor();
      expect(await db("newsletter_subscribers").where({ email: "autofill.fan@example.com" })).toHaveLength(1);
      await second.context.close();
    } finally {
      await db.destroy();
    }
  });

  it("subscribes to the newsletter with JavaScript and without, keeping one row per address", async () => {
    const db = e2eDb();
    try {
      const { page, context } = await newVisit(browser);
      await page.goto("/");
      await hydratedInView(page, "NewsletterForm");
      const form = page.getByRole("form", { name: "Newsletter sign-up" });
      await form.getByLabel("Email address").fill("e2e-fan@example.com");
      await form.getByRole("button", { name: "Subscribe" }).click();
      await page.getByTestId("newsletter-sent").waitFor();
      expect(await page.getByTestId("newsletter-sent").textContent()).toContain("You're on the list!");
      await context.close();

      const noJs = await newVisit(browser, { javaScript: false });
      await noJs.page.goto("/");
      await noJs.page.getByLabel("Email address").fill("e2e-fan@example.com");
      await noJs.page.getByRole("button", { name: "Subscribe" }).click();
      await noJs.page.waitForURL(/\/#newsletter$/);
      expect(await noJs.page.getByTestId("newsletter-sent").textContent()).toContain("You're on the list!");
      await noJs.context.close();
      expect(await db("newsletter_subscribers").where({ email: "e2e-fan@example.com" })).toHaveLength(1);
    } finally {
      await db.destroy();
    }
  });

  for (const [label, viewport] of [["mobile", MOBILE], ["desktop", DESKTOP]] as const) {
    it(`has no serious accessibility violations at ${label} width, modal closed and open`, async () => {
      const { page, context } = await newVisit(browser, { viewport });
      await page.goto("/", { waitUntil: "networkidle" });
      expect(await seriousA11yViolations(page)).toEqual([]);
      await page.locator(".home-hero").getByRole("link", { name: "Register as Team" }).click();
      await page.getByRole("dialog", { name: "Choose Your Team Event" }).waitFor();
      expect(await seriousA11yViolations(page)).toEqual([]);
      const page2 = await context.newPage();
      await page2.goto("/team-events");
      expect(await seriousA11yViolations(page2)).toEqual([]);
      await context.close();
    });
  }
});
