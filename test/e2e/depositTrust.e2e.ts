import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser, Page } from "playwright-core";
import { launchBrowser, MOBILE, newVisit } from "../support/browser.ts";
import { checked } from "../support/manageJourney.ts";
import { checkoutStarted, fillCard, fillRegistrationStep1, formStarted } from "../support/registrationForm.ts";
import { scaledMs } from "../support/timeouts.ts";

/**
 * Deposits a family can trust, at 375 px (issue 41): the team form's button says what is paid today, the team's
 * confirmation shows the money, no page says "paid" of a registration that owes, "Pay the balance now" offers the saved
 * card first, and paying the balance or saving a card says what happened.
 */
let browser: Browser;
beforeAll(async () => {
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
});

const SIZES = ["Small", "Medium", "Large", "XL", "XXL"];
const toast = (page: Page) => page.locator("#toast-region .toast:not([hidden])").last();

async function fillTeam(page: Page, email: string) {
  const coach = page.getByRole("group", { name: "Coach Information" });
  await coach.getByLabel("First Name").fill("Dana");
  await coach.getByLabel("Last Name").fill("Brooks");
  await coach.getByLabel("Email").fill(email);
  await coach.getByLabel("Phone").fill("(205) 555-0142");
  await coach.getByLabel("Team Name (optional)").fill("Deposit Trust WC");
  for (let n = 1; n <= 5; n++) {
    if (n > 1) await page.getByRole("button", { name: "Add athlete" }).click();
    const row = page.getByRole("group", { name: `Athlete ${n}`, exact: true });
    await row.getByLabel("First Name").fill(`Trust${n}`);
    await row.getByLabel("Last Name").fill("Brooks");
    await row.getByLabel("Age").fill(String(10 + n));
    await row.getByLabel("Email").fill(`trust${n}@example.com`);
    await row.getByLabel("Parent Name").fill(`Parent ${n}`);
    await row.getByLabel("Parent Phone").fill("205-555-0100");
    await row.getByLabel("Shirt Size").selectOption(SIZES[n - 1]!);
  }
}

describe("a team's deposit at 375 px", () => {
  it("the button says the $375 paid today, and the confirmation shows the reference, what was paid and the $620 owed on May 22, 2027", async () => {
    const { page, context } = await newVisit(browser, { viewport: MOBILE });
    try {
      await page.goto("/team-registration?eventId=2");
      await formStarted(page, "TeamForm");
      await fillTeam(page, "coach.trust@example.com");
      expect(await page.getByRole("button", { name: /^Register Team - / }).textContent()).toBe("Register Team - $995.00");
      await page.getByLabel("Pay today $375.00, then $620.00 on May 22, 2027").check();
      const register = page.getByRole("button", { name: "Register Team - Pay $375.00 today" });
      await checked(page);
      await register.click();
      await page.waitForURL(/\/stripe-checkout\?.*option=team$/, { timeout: scaledMs(15_000) });
      await checkoutStarted(page);
      await fillCard(page, "4242 4242 4242 4242", "35203");
      await page.getByRole("button", { name: "Complete Payment - $375.00" }).click();
      await page.waitForURL(/option=team&success=true/, { timeout: scaledMs(15_000) });
      const done = page.locator(".registration-confirmed");
      await done.getByText("Registration reference").waitFor();
      const text = await done.innerText();
      expect(text).toMatch(/Registration reference [A-Z0-9]{6,}/);
      expect(text).toMatch(/Amount paid\s+\$375\.00/);
      expect(text).toMatch(/Balance due\s+\$620\.00 due on May 22, 2027/);
      expect(text).not.toMatch(/\bis paid\b/);
      await checked(page);
    } finally {
      await context.close();
    }
  });
});

describe("an individual's deposit at 375 px", () => {
  it("another browser is not told it is paid; Use another card and Pay the balance now (the saved card first) each say what happened", async () => {
    const email = "deposit.trust@example.com";
    const { page, context } = await newVisit(browser, { viewport: MOBILE });
    const other = await newVisit(browser, { viewport: MOBILE });
    try {
      await page.goto("/register/2");
      await formStarted(page, "RegistrationSteps");
      await page.getByLabel("Pay today $75.00, then $224.00 on May 22, 2027").check();
      await fillRegistrationStep1(page, { firstName: "Tess", lastName: "Ortiz", email, phone: "(702) 555-0102", grade: "9th", gender: "Female", schoolName: "Desert High", emergencyContactName: "Ana Ortiz", emergencyContactPhone: "702-555-0199" });
      await page.getByRole("button", { name: "Proceed to Payment" }).click();
      await page.getByRole("heading", { name: "Order Summary" }).waitFor();
      await fillCard(page, "4242 4242 4242 4242", "89101");
      await page.getByRole("button", { name: "Complete Payment - $75.00" }).click();
      await page.waitForURL(/\/event-registration\/2\?paymentSuccess=true/, { timeout: scaledMs(15_000) });
      await page.getByText("$224.00 due on May 22, 2027").waitFor();
      const link = (await page.getByRole("link", { name: "See, change or cancel this registration" }).getAttribute("href"))!;

      // The confirmation's address opened in another browser.
      await other.page.goto(page.url());
      const seen = other.page.getByTestId("registration-seen-elsewhere");
      await seen.getByText("The deposit is paid and the place is booked; the balance below is still to pay.").waitFor();
      expect(await seen.innerText()).toMatch(/Balance due\s+\$224\.00 due on May 22, 2027/);
      expect(await seen.innerText()).not.toContain("This registration is paid.");
      await checked(other.page);

      // Use another card: saved, and the registration's page says so.
      await page.goto(link);
      await page.getByRole("link", { name: "Use another card" }).click();
      await page.getByRole("heading", { name: "Use Another Card" }).waitFor();
      const save = page.getByRole("button", { name: "Save This Card" });
      await expect.poll(async () => {
        await page.locator(".registration-page").hover({ position: { x: 10, y: 10 } });
        return (await save.count()) > 0 && (await save.isEnabled());
      }).toBe(true);
      await fillCard(page, "5555 5555 5555 4444", "89101");
      await save.click();
      await page.waitForURL((url) => !url.pathname.endsWith("/card"));
      await expect.poll(() => toast(page).innerText()).toContain("New card saved: the balance will be charged to it on its due date.");
      await page.getByTestId("manage-balance").getByText(/Mastercard ending 4444/).waitFor();

      // Pay the balance now: the saved card is offered first, and paying with it needs no typing.
      await page.getByRole("link", { name: "Pay the balance now" }).click();
      await page.getByRole("heading", { name: "Pay Your Balance" }).waitFor();
      const pay = page.getByRole("button", { name: "Pay $224.00 with Mastercard ending 4444" });
      await expect.poll(async () => {
        await page.locator(".registration-page").hover({ position: { x: 10, y: 10 } });
        return (await pay.count()) > 0 && (await pay.isEnabled());
      }).toBe(true);
      expect(await page.getByRole("button", { name: "Use another card" }).count()).toBe(1);
      expect(await page.getByLabel("Card number").count()).toBe(0);
      await checked(page);
      await pay.click();
      await page.waitForURL((url) => !url.pathname.endsWith("/balance"), { timeout: scaledMs(15_000) });
      await expect.poll(() => toast(page).innerText()).toMatch(/Balance paid: registration [A-Z0-9]+ is paid in full\./);
      expect(await page.locator(".manage-facts").innerText()).toMatch(/Amount paid\s+\$299\.00/);
      await checked(page);
    } finally {
      await other.context.close();
      await context.close();
    }
  });
});
