import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser, Page } from "playwright-core";
import { e2eDb, launchBrowser, MOBILE, newVisit, seriousA11yViolations } from "../support/browser.ts";
import { fillCard, fillRegistrationStep1, formStarted } from "../support/registrationForm.ts";

let browser: Browser;
beforeAll(async () => {
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
});

/** Pays a 2-day registration for event 2 (June 5 and 7) in Chromium and returns the manage link its confirmation page shows. */
async function payTwoDays(email: string): Promise<string> {
  const { page, context } = await newVisit(browser);
  await page.goto("/register/2");
  await formStarted(page, "RegistrationSteps");
  await page.getByLabel(/2 Days/).check();
  await page.getByLabel("Saturday, June 5").check();
  await page.getByLabel("Monday, June 7").check();
  await fillRegistrationStep1(page, { firstName: "Maya", lastName: "Ortiz", email, phone: "(702) 555-0100", grade: "9th", gender: "Female", schoolName: "Desert High", emergencyContactName: "Ana Ortiz", emergencyContactPhone: "702-555-0199" });
  await page.getByRole("button", { name: "Proceed to Payment" }).click();
  await page.getByRole("heading", { name: "Order Summary" }).waitFor();
  await fillCard(page, "4242 4242 4242 4242", "89101");
  await page.getByRole("button", { name: "Complete Payment - $238.00" }).click();
  await page.waitForURL(/\/event-registration\/2\?paymentSuccess=true/, { timeout: 15_000 });
  const href = await page.getByRole("link", { name: "See, change or cancel this registration" }).getAttribute("href");
  await context.close();
  expect(href).toMatch(/^\/my-registration\/[A-Za-z0-9_-]{43}$/);
  return href!;
}

async function fits(page: Page): Promise<void> {
  const widths = await page.evaluate(() => ({ scroll: document.documentElement.scrollWidth, inner: window.innerWidth }));
  expect(widths.scroll, `${page.url()} is wider than the screen`).toBeLessThanOrEqual(widths.inner);
}

/** Fits 375 px; axe runs where the page's scripts can (with JavaScript off the markup is the same, only its width is checked). */
async function checked(page: Page, javaScript = true): Promise<void> {
  await fits(page);
  if (javaScript) expect(await seriousA11yViolations(page), page.url()).toEqual([]);
}

for (const javaScript of [true, false]) {
  describe(`managing a paid registration from another browser, JavaScript ${javaScript ? "on" : "off"}`, () => {
    it("views it, changes the shirt size, the emergency contact and a day, then cancels 30+ days before with a full refund", async () => {
      const email = `maya.${javaScript ? "js" : "nojs"}@example.com`;
      const link = await payTwoDays(email);
      const { page, context } = await newVisit(browser, { javaScript, viewport: MOBILE });
      await page.goto(link);
      expect(await page.getByRole("heading", { level: 1 }).textContent()).toBe("Maya Ortiz");
      const summary = await page.locator(".manage-facts").innerText();
      for (const part of ["Paid", "National Champ Camp", "9:00 AM - 4:00 PM PDT", "2 Days", "Saturday, June 5; Monday, June 7", "$238.00"]) expect(summary, part).toContain(part);
      await checked(page, javaScript);

      await page.getByLabel("T-Shirt Size").selectOption("Large");
      await page.getByLabel("Emergency Contact Name").fill("Luis Ortiz");
      await page.getByLabel("Monday, June 7").uncheck();
      await page.getByLabel("Sunday, June 6").check();
      await page.getByRole("button", { name: "Save Changes" }).click();
      await page.getByText("Your changes are saved.").waitFor();
      expect(await page.locator(".manage-facts").innerText()).toContain("Saturday, June 5; Sunday, June 6");
      expect(await page.locator(".manage-athletes").innerText()).toContain("Shirt: Large");

      // A wrong phone: registration's own message, nothing changed.
      await page.getByLabel("Emergency Contact Phone").fill("555");
      await page.getByRole("button", { name: "Save Changes" }).click();
      await page.getByText("Please enter a valid 10-digit phone number").first().waitFor();
      await checked(page, javaScript);

      await page.goto(`${link}/cancel`);
      expect(await page.locator(".cancel-refund").first().innerText()).toBe("You get back $238.00 (100% of $238.00).");
      await checked(page, javaScript);
      await page.getByRole("button", { name: "Cancel Registration" }).click();
      await page.waitForURL(`**${link}`);
      expect(await page.locator(".manage-facts").innerText()).toMatch(/Canceled|Refunded/);
      await checked(page, javaScript);

      const db = e2eDb();
      try {
        const r = await db("registrations").where({ contact_email: email }).first();
        expect(r).toMatchObject({ withdrawal_refund_cents: 23800 });
        expect(["withdrawn", "refunded"]).toContain(r.status);
        const athlete = await db("registration_athletes").where({ registration_id: r.id }).first();
        expect(athlete).toMatchObject({ shirt_size: "Large", emergency_contact_name: "Luis Ortiz", emergency_contact_phone: "702-555-0199" });
      } finally {
        await db.destroy();
      }
      await context.close();
    });
  });
}

describe("the camp's pages and the lost-link form at 375 px", () => {
  it("fit the screen and pass axe, with and without JavaScript", async () => {
    for (const javaScript of [true, false]) {
      const { page, context } = await newVisit(browser, { javaScript, viewport: MOBILE });
      for (const path of ["/camp-waiver", "/camp-medical-release", "/camp-cancellation-policy", "/terms", "/my-registration/not-a-real-link"]) {
        await page.goto(path);
        await checked(page, javaScript);
      }
      await page.goto("/events/2");
      await page.locator("#lost-confirmation").getByLabel("Email").fill("nobody@example.com");
      await page.getByRole("button", { name: "Send My Link" }).click();
      await page.getByText("If that address registered for this event").waitFor();
      await checked(page, javaScript);
      await context.close();
    }
  });
});
