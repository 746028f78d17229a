import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser, Page } from "playwright-core";
import { DESKTOP, e2eDb, launchBrowser, MOBILE, newVisit, seriousA11yViolations } from "../support/browser.ts";
import { runDiscountCommand } from "../../src/cli/discount.ts";
import { parseDiscountArgs } from "../../src/cli/discountArgs.ts";
import { checkoutStarted, fillCard as fillCardElement, fillRegistrationStep1, formStarted } from "../support/registrationForm.ts";
import { scaledMs } from "../support/timeouts.ts";

let browser: Browser;
beforeAll(async () => {
  browser = await launchBrowser();
  const db = e2eDb();
  try {
    for (const args of ["create E2E10 --percent 10", "create E2EFREE --percent 100", "create E2ENOJS --percent 100 --max 1", "create E2EA11Y --percent 100"]) {
      const cmd = parseDiscountArgs(args.split(" "), new Date());
      if ("error" in cmd) throw new Error(cmd.error);
      await runDiscountCommand(db, cmd, new Date());
    }
  } finally {
    await db.destroy();
  }
});
afterAll(async () => {
  await browser?.close();
});

const fillStep1 = (page: Page, email: string) =>
  fillRegistrationStep1(page, { firstName: "Riley", lastName: "Chen", email, phone: "(702) 555-0100", grade: "9th", gender: "Female", schoolName: "Desert High", emergencyContactName: "Sam Chen", emergencyContactPhone: "702-555-0199" });

const fillCard = (page: Page, card: string) => fillCardElement(page, card, "89101");

const toast = (page: Page) => page.locator("#toast-region .toast:not([hidden])").last();

async function toStep2(page: Page, eventId: number, email: string) {
  await page.goto(`/register/${eventId}`);
  await formStarted(page, "RegistrationSteps");
  await fillStep1(page, email);
  await page.getByRole("button", { name: "Proceed to Payment" }).click();
  await page.getByRole("heading", { name: "Order Summary" }).waitFor();
}

async function registration(email: string) {
  const db = e2eDb();
  try {
    const row = await db("registrations").where({ contact_email: email }).first();
    const redemption = await db("discount_redemptions").where({ registration_id: row.id }).first();
    const payments = await db("payments").where({ kind: "registration", reference: row.reference });
    return { row, redemption, payments };
  } finally {
    await db.destroy();
  }
}

describe("discount codes in Chromium", () => {
  it("a code applied in another tab changes the amount: the first tab's button is refused before any charge, and says the new amount", async () => {
    const { page, context } = await newVisit(browser);
    await toStep2(page, 2, "riley.tabs@example.com");
    expect(await page.getByTestId("registration-total").textContent()).toBe("$299.00");
    const other = await context.newPage();
    await other.goto("/register/2?step=payment");
    await formStarted(other, "RegistrationSteps");
    await other.getByLabel("Have a discount code?").fill("e2e10");
    await other.getByRole("button", { name: "Apply" }).click();
    await other.getByRole("button", { name: "Applied" }).waitFor();
    await fillCard(page, "4242 4242 4242 4242");
    await page.getByRole("button", { name: "Complete Payment - $299.00" }).click();
    await page.locator(".payment-error").waitFor();
    expect(await page.locator(".payment-error").innerText()).toContain("The amount to pay changed to $269.10 (in another tab or window). Nothing was charged");
    const s = await registration("riley.tabs@example.com");
    expect(s.row.status).toBe("pending_payment");
    expect(s.payments.filter((p: { status: string }) => p.status === "paid")).toHaveLength(0);
    await context.close();
  });

  it("applies a 10% code on step 2 of the 3-day National Champ Camp and pays $269.10 with 4242", async () => {
    const { page, context, problems } = await newVisit(browser);
    await toStep2(page, 2, "riley.ten@example.com");
    expect(await page.getByTestId("registration-total").textContent()).toBe("$299.00");
    await page.getByLabel("Have a discount code?").fill("e2e10");
    await page.getByRole("button", { name: "Apply" }).click();
    await page.getByRole("button", { name: "Applied" }).waitFor();
    expect(await toast(page).locator(".toast-title").textContent()).toBe("Discount Applied");
    expect(await toast(page).locator(".toast-description").textContent()).toBe("New total: $269.10 (saved $29.90)");
    expect(await page.getByLabel("Have a discount code?").getAttribute("readonly")).not.toBeNull();
    expect(await page.getByTestId("registration-discount").textContent()).toBe("-$29.90");
    expect(await page.getByTestId("registration-total").textContent()).toBe("$269.10");

    await fillCard(page, "4242 4242 4242 4242");
    await page.getByRole("button", { name: "Complete Payment - $269.10" }).click();
    await page.waitForURL(/\/event-registration\/2\?paymentSuccess=true&paymentIntentId=pi_/, { timeout: scaledMs(15_000) });
    expect(await page.locator(".registration-confirmed h2").textContent()).toBe("Payment Confirmed - Registration Complete!");
    const s = await registration("riley.ten@example.com");
    expect(s.row).toMatchObject({ status: "paid", amount_paid_cents: 26910 });
    expect(s.redemption).toMatchObject({ status: "redeemed", amount_off_cents: 2990 });
    expect(s.payments).toHaveLength(1);
    expect(problems).toEqual([]);
    await context.close();
  });

  it("completes with a 100% code and no card; the code can be removed and applied again first", async () => {
    const { page, context, problems } = await newVisit(browser, { viewport: MOBILE });
    await toStep2(page, 1, "riley.free@example.com");
    await page.getByRole("button", { name: "Apply" }).click();
    expect(await toast(page).locator(".toast-title").textContent()).toBe("Missing Discount Code");
    await page.getByLabel("Have a discount code?").fill("NOT-A-CODE");
    await page.getByRole("button", { name: "Apply" }).click();
    await toast(page).locator(".toast-title", { hasText: "Invalid Discount" }).waitFor();
    expect(await toast(page).locator(".toast-description").textContent()).toBe("This discount code does not exist. Please check it and try again.");

    await page.getByLabel("Have a discount code?").fill("E2EFREE");
    await page.getByRole("button", { name: "Apply" }).click();
    await page.getByRole("button", { name: "Complete FREE Registration" }).waitFor();
    expect(await toast(page).locator(".toast-title").textContent()).toBe("100% Discount Applied");
    expect(await toast(page).locator(".toast-description").textContent()).toBe("Your registration is free! Complete your registration below.");
    expect(await page.getByLabel("Card number").count()).toBe(0);
    await page.getByRole("button", { name: "Remove" }).click();
    await page.getByRole("button", { name: "Complete Payment - $249.00" }).waitFor();
    await page.getByLabel("Have a discount code?").fill("E2EFREE");
    await page.getByRole("button", { name: "Apply" }).click();
    await page.getByRole("button", { name: "Complete FREE Registration" }).click();
    await page.waitForURL("**/register/1?paymentSuccess=true", { timeout: scaledMs(15_000) });
    expect(await page.locator(".registration-confirmed h2").textContent()).toBe("Registration Complete!");
    const s = await registration("riley.free@example.com");
    expect(s.row).toMatchObject({ status: "paid", amount_paid_cents: 0 });
    expect(s.redemption).toMatchObject({ status: "redeemed", amount_off_cents: 24900 });
    expect(s.payments.some((p: { provider: string; status: string }) => p.provider === "none" && p.status === "paid")).toBe(true);
    // The refused code's 422 answer is logged by the browser; nothing else may be.
    expect(problems.filter((p) => !p.includes("status of 422"))).toEqual([]);
    await context.close();
  });

  it("works without JavaScript: apply the code by form, then 'Complete FREE Registration' by form", async () => {
    const { page, context } = await newVisit(browser, { javaScript: false });
    await page.goto("/register/3");
    await fillStep1(page, "riley.nojs@example.com");
    await page.getByRole("button", { name: "Proceed to Payment" }).click();
    await page.waitForURL("**/register/3?step=payment");
    await page.getByLabel("Have a discount code?").fill("e2enojs");
    await page.getByRole("button", { name: "Apply" }).click();
    await page.waitForURL("**/register/3?step=payment");
    const text = await page.locator("body").innerText();
    expect(text).toContain("100% Discount Applied");
    expect(text).toContain("Your registration is free! Complete your registration below.");
    await page.getByRole("button", { name: "Complete FREE Registration" }).click();
    await page.waitForURL("**/register/3?paymentSuccess=true");
    expect(await page.locator(".registration-confirmed h2").textContent()).toBe("Registration Complete!");
    expect((await registration("riley.nojs@example.com")).row).toMatchObject({ status: "paid", amount_paid_cents: 0 });
    await context.close();
  });

  for (const viewport of [MOBILE, DESKTOP]) {
    it(`has no serious accessibility violations with a code applied, on step 2 and the checkout page, at ${viewport.width} px`, async () => {
      const { page, context } = await newVisit(browser, { viewport });
      await toStep2(page, 4, `riley.a11y${viewport.width}@example.com`);
      expect(await seriousA11yViolations(page), "step 2").toEqual([]);
      await page.getByLabel("Have a discount code?").fill("E2EA11Y");
      await page.getByRole("button", { name: "Apply" }).click();
      await page.getByRole("button", { name: "Complete FREE Registration" }).waitFor();
      expect(await seriousA11yViolations(page), "step 2 free").toEqual([]);
      await page.goto("/stripe-checkout?eventId=4");
      await checkoutStarted(page);
      expect(await page.getByRole("button", { name: "Applied" }).count()).toBe(1);
      expect(await seriousA11yViolations(page), "checkout free").toEqual([]);
      await page.getByRole("button", { name: "Complete FREE Registration" }).click();
      await page.waitForURL("**/stripe-checkout?eventId=4&success=true");
      expect(await page.getByRole("heading", { level: 1 }).textContent()).toBe("Registration Complete!");
      expect(await seriousA11yViolations(page), "complete").toEqual([]);
      await context.close();
    });
  }
});
