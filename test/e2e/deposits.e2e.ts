import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser } from "playwright-core";
import { e2eDb, launchBrowser, MOBILE, newVisit } from "../support/browser.ts";
import { checked } from "../support/manageJourney.ts";
import { fillCard, fillRegistrationStep1, formStarted } from "../support/registrationForm.ts";
import { scaledMs } from "../support/timeouts.ts";

/** A parent pays a $75 deposit on the $299 camp at 375 px, then finds what is owed and when on the manage page (README: Deposits). */
let browser: Browser;
beforeAll(async () => {
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
});

const PLAN = "Pay today $75.00, then $224.00 on May 22, 2027";
const CONSENT = /I authorize .+ to save this card and charge it for the remaining balance of \$224\.00 on May 22, 2027/;

describe("a deposit at 375 px, JavaScript on", () => {
  it("chooses the deposit, pays $75 with 4242, and the manage page shows $224 owed on May 22, 2027 with 'Pay the balance now'", async () => {
    const email = "deposit.js@example.com";
    const { page, context } = await newVisit(browser, { viewport: MOBILE });
    await page.goto("/events/2");
    await page.getByText(`Pay in full $299.00 · ${PLAN}`).waitFor();
    await page.goto("/register/2");
    await formStarted(page, "RegistrationSteps");
    await page.getByLabel(PLAN).check();
    await fillRegistrationStep1(page, { firstName: "Maya", lastName: "Ortiz", email, phone: "(702) 555-0100", grade: "9th", gender: "Female", schoolName: "Desert High", emergencyContactName: "Ana Ortiz", emergencyContactPhone: "702-555-0199" });
    await checked(page);
    await page.getByRole("button", { name: "Proceed to Payment" }).click();
    await page.getByRole("heading", { name: "Order Summary" }).waitFor();
    expect(await page.getByTestId("registration-balance").innerText()).toBe("$224.00");
    // The consent's one sentence beside Pay opens to its full text (a disclosure: without JavaScript too).
    await page.locator("details.card-consent summary").click();
    expect(await page.getByTestId("card-consent").innerText()).toMatch(CONSENT);
    await checked(page);
    await fillCard(page, "4242 4242 4242 4242", "89101");
    await page.getByRole("button", { name: "Complete Payment - $75.00" }).click();
    await page.waitForURL(/\/event-registration\/2\?paymentSuccess=true/, { timeout: scaledMs(15_000) });
    await page.getByText("$224.00 due on May 22, 2027").waitFor();
    const link = (await page.getByRole("link", { name: "See, change or cancel this registration" }).getAttribute("href"))!;

    await page.goto(link);
    const summary = await page.locator(".manage-facts").innerText();
    for (const part of ["Deposit paid", "$75.00", "$224.00 on May 22, 2027"]) expect(summary, part).toContain(part);
    await page.getByTestId("manage-balance").getByText("$224.00 is due on May 22, 2027.").waitFor();
    await checked(page);
    await page.getByRole("link", { name: "Pay the balance now" }).click();
    await page.getByRole("heading", { name: "Pay Your Balance" }).waitFor();
    await checked(page);

    const db = e2eDb();
    try {
      const r = await db("registrations").where({ contact_email: email }).first();
      expect(r).toMatchObject({ status: "deposit_paid", amount_cents: 29900, amount_paid_cents: 7500, payment_plan: "deposit" });
      expect(r.card_consent_text).toMatch(CONSENT);
    } finally {
      await db.destroy();
    }
    await context.close();
  });
});

describe("the plan radio without JavaScript at 375 px", () => {
  it("posts the deposit plan with the form: the payment step shows today's $75, the balance and the consent", async () => {
    const email = "deposit.nojs@example.com";
    const { page, context } = await newVisit(browser, { javaScript: false, viewport: MOBILE });
    await page.goto("/register/2");
    await page.getByLabel(PLAN).check();
    await fillRegistrationStep1(page, { firstName: "Leo", lastName: "Ortiz", email, phone: "(702) 555-0101", grade: "8th", gender: "Male", schoolName: "Desert High", emergencyContactName: "Ana Ortiz", emergencyContactPhone: "702-555-0199" });
    await page.getByRole("button", { name: "Proceed to Payment" }).click();
    await page.waitForURL(/\/register\/2\?step=payment/);
    expect(await page.getByTestId("registration-total").innerText()).toBe("$75.00");
    expect(await page.getByTestId("registration-balance").innerText()).toBe("$224.00");
    // The consent's one sentence beside Pay opens to its full text (a disclosure: without JavaScript too).
    await page.locator("details.card-consent summary").click();
    expect(await page.getByTestId("card-consent").innerText()).toMatch(CONSENT);
    await checked(page, false);
    await context.close();
  });
});
