/**
 * What a parent, a coach and a shopper see on a phone (375 and 320 px wide) and a laptop: each step lands where the
 * eye is (focus and scroll read from the browser), a failed save opens at its error summary, the roster reads as a
 * list of athletes, a confirmation address says paid in any browser, and every link and control is big enough to tap.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser, Page } from "playwright-core";
import { DESKTOP, e2eDb, launchBrowser, MOBILE, newVisit } from "../support/browser.ts";
import { familyAddress, familyLinksFor, mailsTo, payTeam } from "../support/manageJourney.ts";
import { fillCard, fillRegistrationStep1, formStarted } from "../support/registrationForm.ts";
import { focusSeen, scrollSettled, smallTargets } from "../support/screens.ts";
import { scaledMs } from "../support/timeouts.ts";

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
  await page.waitForURL(/\/event-registration\/2\?paymentSuccess=true/, { timeout: scaledMs(15_000) });
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
        expect(declined.className, JSON.stringify(declined)).toBe("payment-error");
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
        expect(seen.className, JSON.stringify(seen)).toBe("form-errors");
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

describe("the individual form asks for a parent or guardian of an athlete under 18", () => {
  it("without JavaScript at 375 px: leaving them out opens the page at the error summary, naming each field", async () => {
    const { page, context } = await newVisit(browser, { javaScript: false, viewport: PHONE });
    try {
      await page.goto("/register/2");
      const step1 = page.locator("form", { has: page.getByLabel(/I agree to the terms and conditions/) });
      const kid = maya("guardian.nojs@example.com");
      for (const [label, value] of [["First Name", kid.firstName], ["Last Name", kid.lastName], ["Email", kid.email], ["Phone Number", kid.phone], ["Grade", kid.grade], ["School Name", kid.schoolName], ["Emergency Contact Name", kid.emergencyContactName], ["Emergency Contact Phone", kid.emergencyContactPhone]] as const) {
        await (label === "Email" ? step1.getByRole("textbox", { name: "Email", exact: true }) : step1.getByLabel(label)).fill(value);
      }
      await step1.getByLabel("Gender").selectOption("Female");
      await step1.getByLabel(/I agree to the terms and conditions/).check();
      await step1.getByRole("button", { name: "Proceed to Payment" }).click();
      await page.locator(".form-errors").waitFor();
      await scrollSettled(page);
      const seen = await focusSeen(page);
      expect(seen.className, JSON.stringify(seen)).toBe("form-errors");
      expect(seen.onScreen, JSON.stringify(seen)).toBe(true);
      for (const line of ["Parent or guardian name: This field is required", "Parent or guardian email: This field is required", "Parent or guardian phone: This field is required"]) expect(seen.text).toContain(line);
      // What was typed is kept.
      expect(await step1.getByLabel("School Name").inputValue()).toBe("Desert High");
    } finally {
      await context.close();
    }
  });

  it("with JavaScript: the e-mail goes to the guardian and greets them", async () => {
    const { page, context } = await newVisit(browser, { viewport: PHONE });
    try {
      await page.goto("/register/2");
      await formStarted(page, "RegistrationSteps");
      await fillRegistrationStep1(page, { ...maya("maya.kid.e2e@example.com"), guardian: { name: "Ana Ortiz", email: "ana.guardian.e2e@example.com", phone: "(702) 555-0188" } });
      await page.getByRole("button", { name: "Proceed to Payment" }).click();
      await page.getByRole("heading", { name: "Order Summary" }).waitFor();
      await fillCard(page, "4242 4242 4242 4242", "89101");
      await page.getByRole("button", { name: "Complete Payment - $299.00" }).click();
      await page.waitForURL(/\/event-registration\/2\?paymentSuccess=true/, { timeout: scaledMs(15_000) });
      expect(await page.locator(".registration-confirmed").innerText()).toContain("ana.guardian.e2e@example.com");
      let mail: string | undefined;
      for (let i = 0; i < 100 && !mail; i++) {
        mail = mailsTo("ana.guardian.e2e@example.com").find((m) => m.includes("National Champ Camp"));
        if (!mail) await new Promise((r) => setTimeout(r, 200));
      }
      expect(mail).toBeDefined();
      expect(mail).toMatch(/Hi Ana,/);
      expect(mail).not.toMatch(/Hi Maya,/);
      expect(mailsTo("maya.kid.e2e@example.com")).toEqual([]);
    } finally {
      await context.close();
    }
  });
});

describe("the waiting list of an event with fewer places than a team needs", () => {
  it("never offers '5 to 2 for a team'", async () => {
    const db = e2eDb();
    const { page, context } = await newVisit(browser, { viewport: PHONE });
    try {
      const before = (await db("events").where({ id: 4 }).first()) as { capacity: number };
      await db("events").where({ id: 4 }).update({ capacity: 2 });
      try {
        await page.goto("/waiting-list/4");
        const form = await page.getByRole("form", { name: "Join the waiting list" }).innerText();
        expect(form).not.toContain("5 to 2");
        expect(form).toContain("1 for one athlete, 2 for siblings, no team: a team needs at least 5 places");
        expect(await page.getByLabel("Who is joining").locator("option").allTextContents()).toEqual(["Please choose", "An athlete, or up to 2 siblings"]);
      } finally {
        await db("events").where({ id: 4 }).update({ capacity: before.capacity });
      }
    } finally {
      await context.close();
      await db.destroy();
    }
  });
});

describe("the shop's thank-you page", () => {
  it("links the order's status page", async () => {
    const { page, context } = await newVisit(browser, { viewport: PHONE });
    try {
      await page.goto("/shop");
      await page.locator(".product-card", { hasText: "Snapback Cap" }).getByRole("button", { name: "Add to Cart" }).click();
      await page.waitForURL("**/shop");
      await page.goto("/cart");
      await page.locator(".cart-layout").hover({ position: { x: 5, y: 5 } });
      await page.locator('[data-widget="CardForm"][data-hydrated="true"]').waitFor();
      for (const [label, value] of [["First Name", "Jordan"], ["Last Name", "Burroughs"], ["Email", "thanks.e2e@example.com"], ["Full Name", "Jordan Burroughs"], ["Address Line 1", "2100 1st Avenue North"], ["City", "Birmingham"]] as const) {
        await page.getByLabel(label).fill(value);
      }
      await page.getByLabel("State").selectOption("AL");
      await page.getByLabel(/^ZIP Code/).fill("35203");
      await page.getByLabel("Card number").fill("4242 4242 4242 4242");
      await page.getByLabel("Expiration date MM / YY").fill("1234");
      await page.getByLabel("Security code (CVC)").fill("123");
      await page.getByLabel("ZIP code", { exact: true }).fill("35203");
      await page.getByRole("button", { name: /^Pay \$/ }).click();
      await page.waitForURL("**/shop?success=true", { timeout: scaledMs(15_000) });
      await page.getByRole("link", { name: "Follow your order" }).click();
      await page.waitForURL("**/orders/just-paid");
      expect(await page.locator("main").innerText()).toContain("Snapback Cap");
      expect(await smallTargets(page)).toEqual([]);
    } finally {
      await context.close();
    }
  });
});

describe("a family's waiver signed without ticking the box, JavaScript off at 375 px", () => {
  it("opens at the error summary, focused, whose link leads to the box", async () => {
    await payTeam(browser, "waiver.coach@example.com", "waiverfocus");
    const [link] = await familyLinksFor(familyAddress(1, "waiverfocus"));
    const { page, context } = await newVisit(browser, { javaScript: false, viewport: PHONE });
    try {
      await page.goto(link!);
      const waiver = page.getByRole("form", { name: "Sign the waiver and medical release" });
      await waiver.getByLabel("Your full name").fill("Parent 1");
      await waiver.getByLabel("Relationship to the athlete").selectOption({ index: 1 });
      await waiver.getByRole("button", { name: "Sign" }).click();
      await page.locator(".form-errors").waitFor();
      await scrollSettled(page);
      const seen = await focusSeen(page);
      expect(seen.className, JSON.stringify(seen)).toBe("form-errors");
      expect(seen.onScreen, JSON.stringify(seen)).toBe(true);
      const toBox = page.locator(".form-errors a").first();
      expect(await page.locator(`${(await toBox.getAttribute("href"))!}[type=checkbox]`).count()).toBe(1);
    } finally {
      await context.close();
    }
  });
});
