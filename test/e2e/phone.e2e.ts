/**
 * Every page type and state at phone widths (320, 375 and 414 px), with JavaScript on and off: nothing may be wider
 * than the viewport (`scrollWidth > innerWidth` fails, naming the elements that stick out).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser, Page } from "playwright-core";
import { launchBrowser, newVisit } from "../support/browser.ts";
import { checkoutStarted, fillCard, fillRegistrationStep1, formStarted } from "../support/registrationForm.ts";
import { scaledMs } from "../support/timeouts.ts";

/** The cart's widgets load at the first hover, focus or touch of the cart: hover it and wait for both. */
async function cartStarted(page: Page): Promise<void> {
  await page.locator(".cart-layout").hover({ position: { x: 5, y: 5 } });
  await page.locator('[data-widget="CartStepper"][data-hydrated="true"]').waitFor();
  await page.locator('[data-widget="CardForm"][data-hydrated="true"]').waitFor();
}

let browser: Browser;
beforeAll(async () => {
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
});

const WIDTHS = [320, 375, 414] as const;

const PAGES = [
  "/", "/shop", "/shop/heavyweight-tee", "/events", "/events/1", "/events/2", "/events/3", "/events/4", "/custom-apparel",
  "/contact", "/about", "/shipping", "/returns", "/privacy", "/terms", "/cart", "/no-such-page", "/team-registration?eventId=2",
  "/coach-registration?eventId=3", "/register/2", "/register/4", "/team-register/2", "/stripe-checkout?eventId=2",
];

/** null when the page fits; else the page's width and the elements whose right edge passes the viewport. */
async function overflow(page: Page): Promise<string | null> {
  return page.evaluate(() => {
    const width = window.innerWidth;
    const scroll = document.documentElement.scrollWidth;
    if (scroll <= width) return null;
    const wide: string[] = [];
    for (const el of document.querySelectorAll("body *")) {
      const r = el.getBoundingClientRect();
      if (r.width > 0 && r.right > width + 0.5) wide.push(`${el.tagName.toLowerCase()}${el.className && typeof el.className === "string" ? `.${el.className.trim().split(/\s+/).join(".")}` : ""} (right ${Math.round(r.right)})`);
    }
    return `${scroll} px wide at ${width} px: ${wide.slice(0, 6).join(", ")}`;
  });
}

/** Collects every state that overflows, so one run names them all. */
function checker(width: number, js: boolean) {
  const found: string[] = [];
  return {
    found,
    async check(page: Page, state: string) {
      const o = await overflow(page);
      if (o) found.push(`${state} (${width} px, JavaScript ${js ? "on" : "off"}): ${o}`);
    },
  };
}

const person = (email: string) => ({ firstName: "Jordan", lastName: "Reyes", email, phone: "(205) 555-0100", grade: "10th", gender: "Male" as const, schoolName: "Central High", emergencyContactName: "Maria Reyes", emergencyContactPhone: "205-555-0199" });

async function addCapFromShop(page: Page) {
  await page.goto("/shop");
  await page.locator(".product-card", { hasText: "Snapback Cap" }).getByRole("button", { name: "Add to Cart" }).click();
  await page.waitForURL("**/shop");
}

async function fillTeam(page: Page, email: string) {
  const coach = page.getByRole("group", { name: "Coach Information" });
  await coach.getByLabel("First Name").fill("Dana");
  await coach.getByLabel("Last Name").fill("Brooks");
  await coach.getByLabel("Email").fill(email);
  await coach.getByLabel("Phone").fill("(205) 555-0142");
  for (let n = 1; n <= 5; n++) {
    if ((await page.getByRole("group", { name: `Athlete ${n}`, exact: true }).count()) === 0) await page.getByRole("button", { name: "Add athlete" }).click();
    const row = page.getByRole("group", { name: `Athlete ${n}`, exact: true });
    await row.getByLabel("First Name").fill(`Wrestler${n}`);
    await row.getByLabel("Last Name").fill("Brooks");
    await row.getByLabel("Age").fill(String(12 + n));
    await row.getByLabel("Email").fill(`wrestler${n}.${email}`);
    await row.getByLabel("Parent Name").fill(`Parent ${n}`);
    await row.getByLabel("Parent Phone").fill("205-555-0100");
    await row.getByLabel("Shirt Size").selectOption("Large");
  }
}

// The tests mostly wait on the browser and the server, so they run side by side (each in its own browser context);
// side by side, with the unit and integration tests running beside the journeys, each takes longer than alone.
describe.concurrent("phone widths: no page is wider than the viewport", { timeout: scaledMs(120_000) }, () => {
  for (const width of WIDTHS) {
    const viewport = { width, height: 740 };

    for (const javaScript of [true, false]) {
      it(`every page type at ${width} px, JavaScript ${javaScript ? "on" : "off"}`, async () => {
        const { page, context } = await newVisit(browser, { javaScript, viewport });
        const c = checker(width, javaScript);
        for (const path of PAGES) {
          await page.goto(path, { waitUntil: javaScript ? "networkidle" : "load" });
          await c.check(page, path);
        }
        await page.goto("/");
        await page.getByRole("button", { name: /menu/i }).first().click();
        await page.locator(".mobile-menu:popover-open").waitFor();
        await c.check(page, "the mobile menu");
        expect(c.found).toEqual([]);
        await context.close();
      }, scaledMs(120_000));
    }

    it(`dialogs and form errors at ${width} px`, async () => {
      const { page, context } = await newVisit(browser, { viewport });
      const c = checker(width, true);
      await page.goto("/", { waitUntil: "networkidle" });
      const trigger = page.locator(".home-hero").getByRole("link", { name: "Register as Team" });
      await trigger.hover();
      await page.locator('[data-widget="TeamEventModal"][data-hydrated="true"]').waitFor({ state: "attached" });
      await trigger.click();
      await page.getByRole("dialog", { name: "Choose Your Team Event" }).waitFor();
      await c.check(page, "the team event dialog");

      await page.goto("/events/3", { waitUntil: "networkidle" });
      await page.getByRole("link", { name: "College Coach Registration" }).click();
      const dialog = page.getByRole("dialog", { name: "College Coach Registration" });
      await dialog.waitFor();
      await c.check(page, "the coach dialog");
      await dialog.getByRole("button", { name: "Submit Registration" }).click();
      await dialog.locator(".field-error").first().waitFor();
      await c.check(page, "the coach dialog with errors and its toast");

      await page.goto("/contact", { waitUntil: "networkidle" });
      await page.getByRole("button", { name: /Send/ }).click();
      await page.locator(".field-error").first().waitFor();
      await c.check(page, "/contact with errors");
      expect(c.found).toEqual([]);
      await context.close();
    });

    // Apart from the dialogs: one journey through every page of both would near the e2e timeout with the other
    // widths running beside it.
    it(`the cart's toast and errors, and the team form, at ${width} px`, async () => {
      const { page, context } = await newVisit(browser, { viewport });
      const c = checker(width, true);
      await addCapFromShop(page);
      await page.locator("#toast-region .toast").first().waitFor();
      await c.check(page, "/shop with the 'Added to Cart' toast");
      await page.goto("/cart");
      await cartStarted(page);
      await c.check(page, "/cart with an item");
      await page.getByRole("button", { name: /^Pay / }).click();
      await page.locator(".form-errors").waitFor();
      await page.locator("#toast-region .toast:not([hidden])").first().waitFor();
      await c.check(page, "/cart with errors and a toast");

      await page.goto("/team-register/2");
      await formStarted(page, "TeamForm");
      await fillTeam(page, `team${width}.phone@example.com`);
      await c.check(page, "/team-register/2 with 5 athletes");
      await page.getByRole("button", { name: /^Register Team - / }).click();
      await page.waitForURL(/\/stripe-checkout\?.*option=team/, { timeout: scaledMs(15_000) });
      await checkoutStarted(page);
      await c.check(page, "the team's /stripe-checkout");
      expect(c.found).toEqual([]);
      await context.close();
    });

    it(`pays a registration from /events/2 to the confirmation at ${width} px without scrolling sideways`, async () => {
      const { page, context } = await newVisit(browser, { viewport });
      const c = checker(width, true);
      await page.goto("/events/2");
      await page.getByRole("link", { name: "Secure Registration" }).click();
      await formStarted(page, "RegistrationSteps");
      await c.check(page, "step 1");
      await page.getByRole("button", { name: "Proceed to Payment" }).click();
      await page.locator(".field-error").first().waitFor();
      await c.check(page, "step 1 with errors");
      await fillRegistrationStep1(page, person(`pay${width}.phone@example.com`));
      await page.getByRole("button", { name: "Proceed to Payment" }).click();
      await page.getByRole("heading", { name: "Order Summary" }).waitFor();
      await c.check(page, "step 2");
      await page.goto("/stripe-checkout?eventId=2&eventName=National%20Champ%20Camp");
      await checkoutStarted(page);
      await c.check(page, "/stripe-checkout");
      await fillCard(page, "4000 0000 0000 0002", "35203");
      await page.getByRole("button", { name: /^Complete Payment - / }).click();
      await page.locator(".payment-error").waitFor();
      await c.check(page, "/stripe-checkout with a declined card and its toast");
      await fillCard(page, "4242 4242 4242 4242", "35203");
      const pay = page.getByRole("button", { name: /^Complete Payment - / });
      // The button is inside the viewport, so a tap lands on it.
      const box = (await pay.boundingBox())!;
      expect(box.x + box.width).toBeLessThanOrEqual(width);
      await pay.click();
      await page.waitForURL(/\/event-registration\/2\?paymentSuccess=true/, { timeout: scaledMs(15_000) });
      await page.locator(".registration-confirmed").waitFor();
      await c.check(page, "the confirmation");
      expect(c.found).toEqual([]);
      await context.close();
    });

    it(`registers without JavaScript at ${width} px: errors, step 2, the checkout page, the cart's errors`, async () => {
      const { page, context } = await newVisit(browser, { javaScript: false, viewport });
      const c = checker(width, false);
      await page.goto("/register/2");
      await page.getByRole("button", { name: "Proceed to Payment" }).click();
      await page.waitForURL("**/register/2");
      await c.check(page, "step 1 with errors");
      await fillRegistrationStep1(page, person(`nojs${width}.phone@example.com`));
      await page.getByRole("button", { name: "Proceed to Payment" }).click();
      await page.waitForURL("**/register/2?step=payment");
      await c.check(page, "step 2");
      await page.goto("/stripe-checkout?eventId=2&eventName=National%20Champ%20Camp");
      await c.check(page, "/stripe-checkout");
      await page.goto("/contact");
      await page.getByRole("button", { name: /Send/ }).click();
      await page.locator(".field-error").first().waitFor();
      await c.check(page, "/contact with errors");
      await addCapFromShop(page);
      await c.check(page, "/shop with the 'Added to Cart' toast");
      await page.goto("/cart");
      await page.getByRole("button", { name: "Check Details and Shipping" }).click();
      await page.waitForURL("**/cart/checkout");
      await c.check(page, "/cart/checkout with errors");
      expect(c.found).toEqual([]);
      await context.close();
    });
  }
});
