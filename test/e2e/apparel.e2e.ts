import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser, Page } from "playwright-core";
import { DESKTOP, e2eDb, hydratedInView, launchBrowser, MOBILE, newVisit, seriousA11yViolations } from "../support/browser.ts";
import { APPAREL_SETS, PORTFOLIO_SETS, ROTATION_MS, SCHOOL_PACKAGES } from "../../src/shared/customApparel/content.ts";

let browser: Browser;
beforeAll(async () => {
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
});

const visibleSet = (page: Page) => page.locator(".apparel-set:visible h3").textContent();
const visiblePortfolioSet = (page: Page) => page.locator(".portfolio-set:visible h3").textContent();
const firstSchoolImage = (page: Page) => page.locator(".school-card").first().locator(".school-images img:visible").getAttribute("alt");

describe("custom apparel page in Chromium", () => {
  it("rotates the carousels at the spec's intervals, pausing on hover and focus", async () => {
    const { page, context, problems } = await newVisit(browser);
    await page.clock.install();
    await page.goto("/custom-apparel");
    for (const w of ["ApparelSets", "PortfolioSets", "SchoolPackages"]) await hydratedInView(page, w);
    expect(ROTATION_MS).toEqual({ apparelSets: 10_000, portfolioSets: 4_000, schoolImages: 3_000 });

    expect(await visibleSet(page)).toBe(APPAREL_SETS[0]!.name);
    expect(await visiblePortfolioSet(page)).toBe(PORTFOLIO_SETS[0]!.name);
    expect(await firstSchoolImage(page)).toBe(SCHOOL_PACKAGES[0]!.images[0]!.name);

    await page.clock.runFor(3_100);
    expect(await firstSchoolImage(page)).toBe(SCHOOL_PACKAGES[0]!.images[1]!.name);
    await page.clock.runFor(1_000);
    expect(await visiblePortfolioSet(page)).toBe(PORTFOLIO_SETS[1]!.name);
    expect(await visibleSet(page)).toBe(APPAREL_SETS[0]!.name);

    // Choose the third item of the first set; the next set starts again from its first item.
    await page.locator(".apparel-set:visible").getByRole("button", { name: `Show ${APPAREL_SETS[0]!.items[2]!.name}` }).click();
    expect(await page.locator(".apparel-set-caption:visible").textContent()).toBe(APPAREL_SETS[0]!.items[2]!.name);
    await page.mouse.move(0, 0);
    await page.locator(":focus").evaluate((el) => (el as HTMLElement).blur());
    await page.clock.runFor(10_100);
    expect(await visibleSet(page)).toBe(APPAREL_SETS[1]!.name);
    expect(await page.locator(".apparel-set-caption:visible").textContent()).toBe(APPAREL_SETS[1]!.items[0]!.name);

    // Hover pauses.
    await page.locator(".apparel-sets").hover();
    await page.clock.runFor(25_000);
    expect(await visibleSet(page)).toBe(APPAREL_SETS[1]!.name);
    expect(await page.locator(".apparel-sets").getAttribute("data-rotating")).toBe("false");
    await page.mouse.move(0, 0);
    await page.clock.runFor(10_100);
    expect(await visibleSet(page)).toBe(APPAREL_SETS[2]!.name);

    // Focus inside pauses, too.
    const before = await visiblePortfolioSet(page);
    await page.locator(".portfolio-sets").getByRole("button", { name: /^Pause/ }).focus();
    await page.clock.runFor(12_000);
    expect(await visiblePortfolioSet(page)).toBe(before);
    // The pause button stops it even after focus leaves.
    await page.keyboard.press("Enter");
    await page.locator(":focus").evaluate((el) => (el as HTMLElement).blur());
    await page.clock.runFor(12_000);
    expect(await visiblePortfolioSet(page)).toBe(before);
    expect(problems).toEqual([]);
    await context.close();
  });

  it("does not rotate under prefers-reduced-motion", async () => {
    const { page, context: ctx } = await newVisit(browser);
    await page.emulateMedia({ reducedMotion: "reduce" });
    await page.clock.install();
    await page.goto("/custom-apparel");
    for (const w of ["ApparelSets", "PortfolioSets"]) await hydratedInView(page, w);
    await page.clock.runFor(30_000);
    expect(await visibleSet(page)).toBe(APPAREL_SETS[0]!.name);
    expect(await visiblePortfolioSet(page)).toBe(PORTFOLIO_SETS[0]!.name);
    expect(await page.locator(".apparel-sets").getAttribute("data-rotating")).toBe("false");
    // Still browsable by hand.
    await page.getByRole("button", { name: `Show ${APPAREL_SETS[3]!.name}` }).click();
    expect(await visibleSet(page)).toBe(APPAREL_SETS[3]!.name);
    await ctx.close();
  });

  it("shows every set, design and school picture without JavaScript", async () => {
    const { page, context } = await newVisit(browser, { javaScript: false });
    await page.goto("/custom-apparel");
    expect(await page.locator(".apparel-set:visible").count()).toBe(APPAREL_SETS.length);
    expect(await page.locator(".portfolio-set:visible").count()).toBe(PORTFOLIO_SETS.length);
    expect(await page.locator(".school-images img:visible").count()).toBe(SCHOOL_PACKAGES.reduce((n, s) => n + s.images.length, 0));
    // The colorway selector works with CSS alone.
    expect(await page.locator('[data-colorway="black"]').isVisible()).toBe(true);
    await page.getByText("Purple", { exact: true }).click();
    expect(await page.locator('[data-colorway="purple"]').isVisible()).toBe(true);
    expect(await page.locator('[data-colorway="black"]').isVisible()).toBe(false);
    await context.close();
  });

  it("opens a portfolio design's dialog and asks for a similar one in the quote form", async () => {
    const { page, context } = await newVisit(browser);
    await page.goto("/custom-apparel");
    await page.getByRole("button", { name: /Senior Night Singlet/ }).click();
    const dialog = page.getByRole("dialog", { name: "Senior Night Singlet" });
    await expect.poll(() => dialog.isVisible()).toBe(true);
    await page.keyboard.press("Escape");
    await expect.poll(() => dialog.isVisible()).toBe(false);
    await page.getByRole("button", { name: /Senior Night Singlet/ }).click();
    await dialog.getByRole("link", { name: "Request Similar Design" }).click();
    await page.waitForURL(/\/custom-apparel\?design=senior-night-singlet#contact-form$/);
    expect(await page.locator("#contact-form .reference-design").textContent()).toBe("Similar to: Senior Night Singlet");
    await context.close();
  });

  it("sends a quote request with JavaScript: checked first, then stored and confirmed", async () => {
    const db = e2eDb();
    try {
      const { page, context } = await newVisit(browser);
      await page.goto("/custom-apparel#contact-form");
      await hydratedInView(page, "QuoteForm");
      const form = page.getByRole("form", { name: "Request a custom quote" });
      await form.getByRole("button", { name: "Request Quote" }).click();
      expect(await form.locator(".field-error").allTextContents()).toEqual([
        "Please enter your team or organization name",
        "Please enter a contact name",
        "Please enter a valid email address",
      ]);
      await form.getByLabel("Team or Organization Name").fill("E2E Grapplers");
      expect(await form.locator(".field-error").count()).toBe(2);
      await form.getByLabel("Contact Name").fill("Coach Okafor");
      await form.getByLabel("Email").fill("okafor@example.com");
      await form.getByLabel("Rashguards").check();
      await form.getByLabel("Team Warmups").check();
      await form.getByLabel("Estimated Quantity").selectOption("51-100");
      await form.getByLabel("Additional Details").fill("Purple and gold, need them for the spring season.");
      await form.getByRole("button", { name: "Request Quote" }).click();
      await page.getByTestId("quote-sent").waitFor();
      const row = await db("quote_requests").where({ organization: "E2E Grapplers" }).first();
      expect(row).toMatchObject({ contact_name: "Coach Okafor", apparel_needs: "Rashguards, Team Warmups", estimated_quantity: "51-100" });
      await context.close();
    } finally {
      await db.destroy();
    }
  });

  it("sends a quote request without JavaScript", async () => {
    const db = e2eDb();
    try {
      const { page, context } = await newVisit(browser, { javaScript: false });
      await page.goto("/custom-apparel");
      await page.getByLabel("Team or Organization Name").fill("NoJS Wrestling Club");
      await page.getByLabel("Contact Name").fill("Coach Berg");
      await page.getByLabel("Email").fill("not-an-email");
      await page.getByLabel("Competition Singlets").check();
      await page.getByRole("button", { name: "Request Quote" }).click();
      expect(await page.locator("#contact-form .field-error").textContent()).toBe("Please enter a valid email address");
      expect(await page.getByLabel("Competition Singlets").isChecked()).toBe(true);
      await page.getByLabel("Email").fill("berg@example.com");
      await page.getByRole("button", { name: "Request Quote" }).click();
      await page.getByTestId("quote-sent").waitFor();
      expect(await db("quote_requests").where({ organization: "NoJS Wrestling Club", apparel_needs: "Competition Singlets" })).toHaveLength(1);
      await context.close();
    } finally {
      await db.destroy();
    }
  });

  for (const [label, viewport] of [["mobile", MOBILE], ["desktop", DESKTOP]] as const) {
    it(`has no serious accessibility violations at ${label} width`, async () => {
      const { page, context } = await newVisit(browser, { viewport });
      await page.goto("/custom-apparel", { waitUntil: "networkidle" });
      await hydratedInView(page, "QuoteForm");
      expect(await seriousA11yViolations(page)).toEqual([]);
      await page.getByRole("button", { name: /Coaches Quarter-Zip/ }).click();
      await page.getByRole("dialog", { name: "Coaches Quarter-Zip" }).waitFor();
      expect(await seriousA11yViolations(page)).toEqual([]);
      await context.close();
    });
  }
});
