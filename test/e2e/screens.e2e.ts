/**
 * What a parent, a coach and a shopper see on a phone (375 and 320 px wide) and a laptop: each step lands where the
 * eye is (focus and scroll read from the browser), a failed save opens at its error summary, the roster reads as a
 * list of athletes, a confirmation address says paid in any browser, and every link and control is big enough to tap.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser, Page } from "playwright-core";
import { DESKTOP, launchBrowser, MOBILE, newVisit } from "../support/browser.ts";
import { payTeam } from "../support/manageJourney.ts";
import { fillCard, fillRegistrationStep1, formStarted } from "../support/registrationForm.ts";
import { focusSeen, scrollSettled, smallTargets } from "../support/screens.ts";

const PHONE = { width: 375, height: 812 };
const NARROW = { width: 320, height: 640 };

let browser: Browser;
beforeAll(async () => {
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
});

const maya = (email: string) => ({ firstName: "Maya", lastName: "Ortiz", email, phone: "(702) 555-0100", grade: "9th", gender: "Female" as const, schoolName: "Desert High", emergencyContactName: "Ana Ortiz", emergencyContactPhone: "702-555-0199" });

/** Step 1 of /register/2 filled for 2 days (June 5 and 7) and sent: the page is on step 2. */
async function toStep2(page: Page, email: string): Promise<void> {
  await page.goto("/register/2");
  await formStarted(page, "RegistrationSteps");
  await page.getByLabel(/2 Days/).check();
  await page.getByLabel("Saturday, June 5").check();
  await page.getByLabel("Monday, June 7").check();
  await fillRegistrationStep1(page, maya(email));
  await page.getByRole("button", { name: "Proceed to Payment" }).click();
  await page.getByRole("heading", { name: "Order Summary" }).waitFor();
}

/** Pays step 2 with the good test card and returns the confirmation page's address. */
async function payStep2(page: Page): Promise<string> {
  await fillCard(page, "4242 4242 4242 4242", "89101");
  await page.getByRole("button", { name: "Complete Payment - $238.00" }).click();
  await page.waitForURL(/\/event-registration\/2\?paymentSuccess=true/, { timeout: 15_000 });
  return page.url();
}

describe("a registration's steps land where the eye is", () => {
  for (const viewport of [PHONE, NARROW, DESKTOP]) {
    it(`at ${viewport.width} px: 'Proceed to Payment' focuses the order summary's heading on screen; a declined card focuses its message, which says nothing was charged`, async () => {
      const { page, context } = await newVisit(browser, { viewport });
      try {
        await toStep2(page, `steps.${viewport.width}@example.com`);
        await scrollSettled(page);
        const summary = await focusSeen(page);
        expect(summary, JSON.stringify(summary)).toMatchObject({ tag: "h2", text: "ORDER SUMMARY", onScreen: true });

        await fillCard(page, "4000 0000 0000 0002", "89101");
        await page.getByRole("button", { name: "Complete Payment - $238.00" }).click();
        await page.locator(".payment-error").waitFor();
        await scrollSettled(page);
        const declined = await focusSeen(page);
        expect(declined.text, JSON.stringify(declined)).toContain("Your card was declined.");
        expect(declined.text).toContain("Nothing was charged.");
        expect(declined.onScreen, JSON.stringify(declined)).toBe(true);
      } finally {
        await context.close();
      }
    });
  }
});

describe("a confirmation address opened in another browser", () => {
  for (const javaScript of [true, false]) {
    it(`says paid with the package, days and amount, and nothing about who registered (JavaScript ${javaScript ? "on" : "off"})`, async () => {
      const email = `elsewhere.${javaScript ? "js" : "nojs"}@example.com`;
      const first = await newVisit(browser, { viewport: PHONE });
      let url: string;
      try {
        await toStep2(first.page, email);
        url = await payStep2(first.page);
        // The browser that paid sees the same facts beside its reference.
        const own = await first.page.locator(".registration-confirmed").innerText();
        for (const part of ["2 Days", "Saturday, June 5; Monday, June 7", "$238.00"]) expect(own, part).toContain(part);
      } finally {
        await first.context.close();
      }
      const other = await newVisit(browser, { javaScript, viewport: PHONE });
      try {
        await other.page.goto(url);
        const text = await other.page.locator("main").innerText();
        expect(await other.page.getByRole("heading", { level: 2 }).first().textContent()).toBe("Payment Confirmed - Registration Complete!");
        for (const part of ["National Champ Camp", "2 Days", "Saturday, June 5; Monday, June 7", "$238.00", "private link"]) expect(text, part).toContain(part);
        for (const secret of [email, "Maya", "Ortiz", "my-registration", "If you were charged"]) expect(text, secret).not.toContain(secret);
        expect(await other.page.locator('a[href*="/my-registration/"]').count()).toBe(0);
      } finally {
        await other.context.close();
      }
    });
  }
});

describe("a failed save opens at its error summary", () => {
  for (const javaScript of [false, true]) {
    it(`the manage page's details at 375 px, JavaScript ${javaScript ? "on" : "off"}: the summary is focused and on screen, and links to the field`, async () => {
      const payer = await newVisit(browser, { viewport: PHONE });
      let link: string;
      try {
        await toStep2(payer.page, `save.${javaScript ? "js" : "nojs"}@example.com`);
        await payStep2(payer.page);
        link = (await payer.page.getByRole("link", { name: "See, change or cancel this registration" }).getAttribute("href"))!;
      } finally {
        await payer.context.close();
      }
      const { page, context } = await newVisit(browser, { javaScript, viewport: PHONE });
      try {
        await page.goto(link);
        const details = page.getByRole("form", { name: "Change the registration's details" });
        await details.getByLabel("Emergency Contact Phone").fill("555");
        await details.getByRole("button", { name: "Save Changes" }).click();
        await page.locator(".form-errors").waitFor();
        await scrollSettled(page);
        const seen = await focusSeen(page);
        expect(seen.text, JSON.stringify(seen)).toContain("Please correct the highlighted fields.");
        expect(seen.text).toContain("Emergency contact phone: Please enter a valid 10-digit phone number");
        expect(seen.onScreen, JSON.stringify(seen)).toBe(true);

        await page.locator(".form-errors a", { hasText: "Emergency contact phone" }).click();
        await scrollSettled(page);
        const field = details.getByLabel("Emergency Contact Phone");
        const box = (await field.boundingBox())!;
        expect(box.y).toBeGreaterThanOrEqual(0);
        expect(box.y + box.height).toBeLessThanOrEqual(PHONE.height);
        expect(await field.inputValue()).toBe("555");
      } finally {
        await context.close();
      }
    });
  }
});

describe("the coach's roster", () => {
  it("at 375 px: a count above the list, one card per athlete with a badge, each fact on its own line, every target tappable", async () => {
    const link = await payTeam(browser, "roster.coach@example.com", "roster");
    const { page, context } = await newVisit(browser, { viewport: PHONE });
    try {
      await page.goto(link);
      expect(await page.getByTestId("roster-count").innerText()).toBe("0 of 5 complete");
      const cards = page.locator(".manage-athletes > li");
      expect(await cards.count()).toBe(5);
      const first = cards.first();
      expect(await first.locator(".roster-badge").textContent()).toBe("Missing: waiver and medical release");
      const style = await first.evaluate((el) => ({ border: getComputedStyle(el).borderTopWidth, bullet: getComputedStyle(el).listStyleType }));
      expect(style).toEqual({ border: "1px", bullet: "none" });
      const name = (await first.locator(".roster-name").boundingBox())!;
      const tops = await first.locator(".roster-facts > li").evaluateAll((lis) => lis.map((li) => Math.round(li.getBoundingClientRect().top)));
      expect(tops.length).toBeGreaterThanOrEqual(4);
      expect(new Set(tops).size, `facts share a line: ${tops.join(", ")}`).toBe(tops.length);
      expect(Math.min(...tops)).toBeGreaterThanOrEqual(name.y + name.height - 1);
      expect(await first.locator(".roster-facts").innerText()).toContain("Shirt: Medium");
      expect(await smallTargets(page)).toEqual([]);
    } finally {
      await context.close();
    }
  });
});

describe("every link and control is at least 24 × 24 px at 375 px (WCAG 2.2 2.5.8)", () => {
  const pages = ["/", "/shop", "/shop/heavyweight-tee", "/events", "/events/2", "/events/3", "/register/2", "/team-register/2", "/cart", "/contact", "/custom-apparel", "/waiting-list/2", "/stripe-checkout?eventId=2"];
  for (const path of pages) {
    it(path, async () => {
      const { page, context } = await newVisit(browser, { viewport: MOBILE });
      try {
        await page.goto(path);
        expect(await smallTargets(page), path).toEqual([]);
      } finally {
        await context.close();
      }
    });
  }
});
