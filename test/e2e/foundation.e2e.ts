import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser } from "playwright-core";
import { DESKTOP, launchBrowser, MOBILE, newVisit, seriousA11yViolations } from "../support/browser.ts";

let browser: Browser;
beforeAll(async () => {
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
});

describe("page shell in Chromium", () => {
  it("has a fixed header that turns solid after 50 px of scroll", async () => {
    const { page, context } = await newVisit(browser);
    await page.goto("/about");
    const alpha = () =>
      page.locator(".site-header").evaluate((el) => {
        const m = /rgba?\(([^)]+)\)/.exec(getComputedStyle(el).backgroundColor);
        const parts = (m?.[1] ?? "").split(",").map((p) => Number(p.trim()));
        return parts.length === 4 ? parts[3] : 1;
      });
    expect(await alpha()).toBe(0);
    await page.mouse.wheel(0, 400);
    await page.waitForFunction(() => window.scrollY > 50);
    await expect.poll(alpha).toBeGreaterThan(0.9);
    expect(await page.locator(".site-header").evaluate((el) => getComputedStyle(el).position)).toBe("fixed");
    await context.close();
  });

  it("opens the mobile menu with the same six links, and caps the badge for mobile", async () => {
    const { page, context } = await newVisit(browser, { viewport: MOBILE, javaScript: false });
    await page.goto("/");
    await expect.poll(() => page.locator(".nav-desktop").isVisible()).toBe(false);
    await page.getByRole("button", { name: "Menu" }).click();
    const menu = page.getByRole("navigation", { name: "Mobile" });
    await expect.poll(() => menu.isVisible()).toBe(true);
    expect(await menu.getByRole("link").allInnerTexts()).toEqual(["HOME", "EVENTS", "SHOP", "CUSTOM APPAREL", "ABOUT", "CONTACT"]);
    await page.keyboard.press("Escape");
    await expect.poll(() => menu.isVisible()).toBe(false);
    await context.close();
  });

  it("loads no JavaScript on a page without widgets", async () => {
    const { page, context } = await newVisit(browser);
    const scripts: string[] = [];
    page.on("request", (r) => {
      if (r.resourceType() === "script") scripts.push(r.url());
    });
    for (const path of ["/about", "/shipping", "/returns", "/privacy", "/terms"]) {
      await page.goto(path, { waitUntil: "networkidle" });
    }
    expect(scripts).toEqual([]);
    await context.close();
  });

  it("hydrates a widget without warnings and it responds to clicks", async () => {
    const { page, context, problems } = await newVisit(browser);
    const scripts: string[] = [];
    page.on("request", (r) => {
      if (r.resourceType() === "script") scripts.push(new URL(r.url()).pathname);
    });
    await page.goto("/__test/widget", { waitUntil: "networkidle" });
    await page.waitForSelector('[data-widget="TestCounter"][data-hydrated="true"]');
    const count = page.getByTestId("count");
    expect(await count.textContent()).toBe("3");
    await page.getByRole("button", { name: "Add one" }).click();
    await expect.poll(() => count.textContent()).toBe("4");
    expect(problems).toEqual([]);
    expect(scripts.every((s) => s.startsWith("/build/"))).toBe(true);
    await context.close();
  });

  it("submits a form without JavaScript: errors with kept values, then a toast after the redirect", async () => {
    const { page, context } = await newVisit(browser, { javaScript: false });
    await page.goto("/__test/widget");
    await page.getByLabel("Name").fill("J");
    await page.getByRole("button", { name: "Save" }).click();
    expect(await page.locator(".field-error").textContent()).toBe("Name must be at least 2 characters");
    expect(await page.getByLabel("Name").inputValue()).toBe("J");
    await page.getByLabel("Name").fill("Jordan");
    await page.getByRole("button", { name: "Save" }).click();
    await page.waitForURL("**/__test/widget");
    expect(await page.locator("#toast-region .toast").innerText()).toContain("Hello Jordan");
    await context.close();
  });

  it("the accessibility check finds a serious violation: an image without a text alternative, a nameless button", async () => {
    const { page, context } = await newVisit(browser, { viewport: MOBILE });
    await page.goto("/about");
    await page.locator("main").evaluate((main) => main.insertAdjacentHTML("beforeend", '<img src="/favicon.ico"><button type="button"></button>'));
    const found = await seriousA11yViolations(page);
    expect(found.map((line) => line.split(":")[0])).toEqual(expect.arrayContaining(["image-alt", "button-name"]));
    await context.close();
  });

  for (const [label, viewport] of [["mobile", MOBILE], ["desktop", DESKTOP]] as const) {
    it(`has no serious accessibility violations on /, /about, the policy pages and the 404 page (${label})`, async () => {
      const { page, context } = await newVisit(browser, { viewport });
      for (const path of ["/", "/about", "/shipping", "/returns", "/privacy", "/terms", "/no-such-page"]) {
        await page.goto(path);
        expect(await seriousA11yViolations(page), path).toEqual([]);
      }
      await context.close();
    });
  }
});
