/**
 * What a visitor sees on a phone (375 px wide, 667 px tall) when something is refused: after a declined card the
 * inline error has the focus with the card field in view and the toast covers neither; the same message never shows
 * as two toasts; an empty cart checkout takes the focus and the eye to the first field in error; a toast stays while
 * its Dismiss button has focus or the pointer is over it (on Playwright's clock); the cart line's title link is a
 * touch target of at least 44 px.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser, Locator, Page } from "playwright-core";
import { launchBrowser, newVisit } from "../support/browser.ts";
import { fillCard, fillRegistrationStep1, formStarted } from "../support/registrationForm.ts";
import { scaledMs } from "../support/timeouts.ts";

const PHONE = { width: 375, height: 667 };

let browser: Browser;
beforeAll(async () => {
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
});

interface Box { top: number; bottom: number; left: number; right: number }
const boxOf = (l: Locator): Promise<Box> => l.evaluate((el) => {
  const r = el.getBoundingClientRect();
  return { top: r.top, bottom: r.bottom, left: r.left, right: r.right };
});
const overlaps = (a: Box, b: Box) => a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;

/** Whether the box is on the screen below the fixed header (a box under the header is not seen). */
async function seen(page: Page, box: Box): Promise<boolean> {
  const headerBottom = await page.locator(".site-header").evaluate((el) => el.getBoundingClientRect().bottom);
  return box.top >= headerBottom - 0.5 && box.bottom <= PHONE.height + 0.5;
}

/**
 * Waits until the element is on the screen below the header (a fragment link scrolls smoothly: it takes a moment).
 * Polled from here: in a page without JavaScript, waitForFunction's own polling never runs.
 */
async function cameIntoView(page: Page, l: Locator): Promise<void> {
  await expect.poll(async () => seen(page, await boxOf(l)), { timeout: scaledMs(10_000) }).toBe(true);
}

/** The toasts on the screen now (not dismissed). */
const shownToasts = (page: Page) => page.locator("#toast-region .toast:not([hidden])");

async function addCapFromShop(page: Page) {
  await page.goto("/shop");
  await page.locator(".product-card", { hasText: "Snapback Cap" }).getByRole("button", { name: "Add to Cart" }).click();
  await page.waitForURL("**/shop");
}

/** The cart's widgets load at the first hover, focus or touch of the cart: hover it and wait for both. */
async function cartStarted(page: Page): Promise<void> {
  await page.locator(".cart-layout").hover({ position: { x: 5, y: 5 } });
  await page.locator('[data-widget="CartStepper"][data-hydrated="true"]').waitFor();
  await page.locator('[data-widget="CardForm"][data-hydrated="true"]').waitFor();
}

describe("a declined card on a phone", () => {
  it("focuses the inline error with the card field in view, the toast covering neither, and one toast however often it is declined", async () => {
    const { page, context } = await newVisit(browser, { viewport: PHONE });
    try {
      await page.goto("/register/2");
      await formStarted(page, "RegistrationSteps");
      await fillRegistrationStep1(page, { firstName: "Jordan", lastName: "Reyes", email: "declined.phone@example.com", phone: "(205) 555-0100", grade: "10th", gender: "Male", schoolName: "Central High", emergencyContactName: "Maria Reyes", emergencyContactPhone: "205-555-0199" });
      await page.getByRole("button", { name: "Proceed to Payment" }).click();
      await page.getByRole("heading", { name: "Order Summary" }).waitFor();
      await page.locator(".card-element").waitFor();
      await fillCard(page, "4000 0000 0000 0002", "35203");
      for (let attempt = 1; attempt <= 3; attempt++) {
        await page.getByRole("button", { name: /^Complete Payment - / }).click();
        await page.locator(".payment-error").waitFor();
        await page.waitForFunction(() => document.activeElement?.classList.contains("payment-error"));
        const error = await boxOf(page.locator(".payment-error"));
        const card = await boxOf(page.locator(".card-element"));
        expect(await seen(page, error), `attempt ${attempt}: the error is on the screen`).toBe(true);
        expect(await seen(page, card), `attempt ${attempt}: the card field is on the screen`).toBe(true);
        expect(await shownToasts(page).count()).toBe(1);
        const toast = await boxOf(shownToasts(page));
        expect(overlaps(toast, error), `attempt ${attempt}: the toast covers the error`).toBe(false);
        expect(overlaps(toast, card), `attempt ${attempt}: the toast covers the card field`).toBe(false);
        // One toast of this message, dismissed ones included: they do not pile up in the region.
        expect(await page.locator("#toast-region .toast", { hasText: "Payment Failed" }).count()).toBe(1);
      }
    } finally {
      await context.close();
    }
  });
});

describe("an empty cart checkout on a phone", () => {
  it("with JavaScript, takes the focus to the first field in error, on the screen and not under the toast", async () => {
    const { page, context } = await newVisit(browser, { viewport: PHONE });
    try {
      await addCapFromShop(page);
      await page.goto("/cart");
      await cartStarted(page);
      await page.getByRole("button", { name: /^Pay \$/ }).click();
      const first = page.getByLabel("First Name");
      await page.waitForFunction(() => document.activeElement?.getAttribute("aria-invalid") === "true");
      expect(await first.evaluate((el) => el === document.activeElement)).toBe(true);
      const field = await boxOf(first);
      expect(await seen(page, field)).toBe(true);
      for (const toast of await shownToasts(page).all()) expect(overlaps(await boxOf(toast), field)).toBe(false);
    } finally {
      await context.close();
    }
  });

  it("without JavaScript, opens on the form's errors, focused and on the screen, the first field right below", async () => {
    const { page, context } = await newVisit(browser, { viewport: PHONE, javaScript: false });
    try {
      await addCapFromShop(page);
      await page.goto("/cart");
      await page.getByRole("button", { name: "Check Details and Shipping" }).click();
      await page.locator(".form-errors").waitFor();
      expect(await page.locator(".form-errors").evaluate((el) => el === document.activeElement)).toBe(true);
      await cameIntoView(page, page.locator(".form-errors"));
      // Its first link goes to the first field in error.
      await page.locator(".form-errors a").first().click();
      await expect.poll(() => page.evaluate(() => document.activeElement?.getAttribute("name")), { timeout: scaledMs(10_000) }).toBe("firstName");
      await cameIntoView(page, page.getByLabel("First Name"));
    } finally {
      await context.close();
    }
  });
});

describe("a toast being read on a phone", () => {
  // The page's clock is Playwright's (installed before the page loads, paused once the cart has started): the toast's
  // 6 s pass when the test says, never while the machine is slow.
  it("stays while its Dismiss button has focus or the pointer is over it, and hides 6 s after it is left", async () => {
    const { page, context } = await newVisit(browser, { viewport: PHONE });
    try {
      await page.clock.install();
      await addCapFromShop(page);
      await page.goto("/cart");
      await cartStarted(page);
      await page.clock.pauseAt(Date.now() + 60_000);
      const toast = page.locator("#toast-region .toast", { hasText: "Please fill in all required fields." });

      await page.getByRole("button", { name: /^Pay \$/ }).click();
      await toast.waitFor();
      // The next frame takes the focus to the first field in error (the form's own move); then it goes to the toast.
      await page.clock.runFor(100);
      expect(await page.getByLabel("First Name").evaluate((el) => el === document.activeElement)).toBe(true);
      await toast.getByRole("button", { name: "Dismiss notification" }).focus();
      await page.clock.runFor(7_000);
      expect(await toast.isVisible(), "the toast with focus on its Dismiss button is shown 7 s after it came").toBe(true);
      await page.keyboard.press("Tab");
      expect(await toast.evaluate((el) => el.contains(document.activeElement))).toBe(false);
      await page.clock.runFor(5_500);
      expect(await toast.isVisible(), "5.5 s after focus left, the toast is shown: leaving starts the 6 s again").toBe(true);
      await page.clock.runFor(1_000);
      expect(await toast.isVisible(), "6.5 s after focus left, the toast is hidden").toBe(false);

      // The same message again: a new toast, now with the pointer over it.
      await page.getByRole("button", { name: /^Pay \$/ }).click();
      await toast.waitFor();
      await page.clock.runFor(100);
      await toast.hover();
      await page.clock.runFor(7_000);
      expect(await toast.isVisible(), "the toast under the pointer is shown 7 s after it came").toBe(true);
      // Away to the foot of the screen (the toast is at its top).
      expect((await boxOf(toast)).bottom).toBeLessThan(PHONE.height - 20);
      await page.mouse.move(10, PHONE.height - 10);
      await page.clock.runFor(5_500);
      expect(await toast.isVisible(), "5.5 s after the pointer left, the toast is shown").toBe(true);
      await page.clock.runFor(1_000);
      expect(await toast.isVisible(), "6.5 s after the pointer left, the toast is hidden").toBe(false);
    } finally {
      await context.close();
    }
  });
});

describe("the cart line on a phone", () => {
  it("has a title link at least 44 px tall, the line no wider than the screen", async () => {
    const { page, context } = await newVisit(browser, { viewport: PHONE });
    try {
      await addCapFromShop(page);
      await page.goto("/cart");
      const link = page.locator(".cart-line-title a").first();
      const box = await boxOf(link);
      expect(box.bottom - box.top).toBeGreaterThanOrEqual(44);
      expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
    } finally {
      await context.close();
    }
  });
});
