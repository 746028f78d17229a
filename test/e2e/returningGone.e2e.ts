import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser } from "playwright-core";
import { DESKTOP, launchBrowser, MOBILE, newVisit, seriousA11yViolations } from "../support/browser.ts";
import { RETURNING_TEXT } from "../../src/shared/registrations/returning.ts";

/** The page a "Registered before?" link answers once it is used, expired or unknown (410): axe and the width. */
let browser: Browser;
beforeAll(async () => {
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
});

describe("a Registered before? link that no longer opens", () => {
  it.each([MOBILE, DESKTOP])("answers 410 with a page that fits %j and has no serious axe violations", async (viewport) => {
    const { page, context } = await newVisit(browser, { viewport });
    try {
      const res = await page.goto(`/returning/${randomBytes(32).toString("base64url")}`);
      expect(res?.status()).toBe(410);
      await expect(page.locator("h1").textContent()).resolves.toContain(RETURNING_TEXT.usedTitle);
      expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
      expect(await seriousA11yViolations(page), "axe").toEqual([]);
    } finally {
      await context.close();
    }
  });
});
