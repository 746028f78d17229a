/**
 * Siblings in one registration (issue 43) on a phone (375 px): a parent adds a sister on step 1, sees the sibling
 * discount and the total, pays once, and both athletes are registered; without JavaScript "Add a sibling" posts the
 * form and it comes back with the second athlete, then step 2 lists both.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser, Page } from "playwright-core";
import { e2eDb, launchBrowser, MOBILE, newVisit, seriousA11yViolations, sentMails } from "../support/browser.ts";
import { fillCard, fillRegistrationStep1, formStarted } from "../support/registrationForm.ts";
import { scaledMs } from "../support/timeouts.ts";
import { bumpEventsVersion } from "../../src/events/version.ts";

let browser: Browser;
beforeAll(async () => {
  browser = await launchBrowser();
  // Event 1 (Slam Camp, full $249): $25.00 off each additional athlete; the running server sees it at its next request.
  await e2eDb().transaction(async (trx) => {
    await trx("events").where({ id: 1 }).update({ sibling_discount_kind: "fixed", sibling_discount_value: 2500 });
    await bumpEventsVersion(trx);
  });
});
afterAll(async () => {
  await e2eDb().transaction(async (trx) => {
    await trx("events").where({ id: 1 }).update({ sibling_discount_kind: "none", sibling_discount_value: 0 });
    await bumpEventsVersion(trx);
  });
  await browser?.close();
});

const parent = (email: string) => ({
  firstName: "Jordan", lastName: "Sibling", email, phone: "(205) 555-0100", grade: "10th", gender: "Male" as const, schoolName: "Central High",
  emergencyContactName: "Maria Sibling", emergencyContactPhone: "205-555-0199", guardian: { name: "Maria Sibling", email, phone: "205-555-0199" },
});

/** The register page once it offers the event's sibling discount (the server reads the change within a moment). */
async function openRegister(page: Page, eventId: number): Promise<void> {
  await expect
    .poll(async () => {
      await page.goto(`/register/${eventId}`);
      return page.getByText("$25.00 off each additional athlete").count();
    }, { timeout: scaledMs(10_000) })
    .toBeGreaterThan(0);
}

async function fillSister(page: Page): Promise<void> {
  const sister = page.getByRole("group", { name: "Athlete 2", exact: true });
  await sister.getByLabel("First Name").fill("Ana");
  await sister.getByLabel("Last Name").fill("Sibling");
  await sister.getByLabel("Grade").fill("7th");
  await sister.getByLabel("Gender").selectOption("Female");
  await sister.getByLabel("School Name").fill("Central Middle");
}

describe("two siblings on one registration", () => {
  it("adds a sister on step 1, shows the discount and total, pays once at 375 px; both are registered", async () => {
    const email = `siblings.js.${Date.now()}@example.com`;
    const { page, context, problems } = await newVisit(browser, { viewport: MOBILE });
    await openRegister(page, 1);
    await formStarted(page, "RegistrationSteps");
    await fillRegistrationStep1(page, parent(email));
    await page.getByRole("button", { name: "Add a sibling" }).click();
    await fillSister(page);
    // Step 1: each athlete's price, the sibling discount and the total.
    expect(await page.getByTestId("sibling-discount").first().textContent()).toBe("-$25.00");
    expect(await page.getByTestId("family-total").textContent()).toBe("$473.00");
    expect(await seriousA11yViolations(page), "axe").toEqual([]);
    await page.getByRole("button", { name: "Proceed to Payment" }).click();
    await page.getByRole("heading", { name: "Order Summary" }).waitFor();
    expect(await page.getByTestId("family-athlete").allInnerTexts()).toEqual([expect.stringContaining("Jordan Sibling"), expect.stringContaining("Ana Sibling")]);
    expect(await page.getByTestId("sibling-discount").textContent()).toBe("-$25.00");
    expect(await page.getByTestId("registration-total").textContent()).toBe("$473.00");
    expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);

    await fillCard(page, "4242 4242 4242 4242", "35203");
    await page.getByRole("button", { name: "Complete Payment - $473.00" }).click();
    await page.waitForURL(/\/event-registration\/1\?paymentSuccess=true/, { timeout: scaledMs(15_000) });
    await page.locator(".registration-confirmed").waitFor();

    const registration = await e2eDb()("registrations").where({ contact_email: email }).first();
    expect(registration).toMatchObject({ status: "paid", places: 2, amount_paid_cents: 47300 });
    const athletes = await e2eDb()("registration_athletes").where({ registration_id: registration.id }).orderBy("position").pluck("first_name");
    expect(athletes).toEqual(["Jordan", "Ana"]);
    await expect.poll(() => sentMails().filter((m) => m.includes(registration.reference) && m.includes("Ana Sibling")).length, { timeout: scaledMs(15_000) }).toBeGreaterThan(0);
    expect(problems, "console").toEqual([]);
    await context.close();
  }, scaledMs(90_000));

  it("without JavaScript: 'Add a sibling' brings the form back with athlete 2, and step 2 lists both with the discount", async () => {
    const email = `siblings.nojs.${Date.now()}@example.com`;
    const { page, context } = await newVisit(browser, { viewport: MOBILE, javaScript: false });
    await openRegister(page, 1);
    await fillRegistrationStep1(page, parent(email));
    await page.getByRole("button", { name: "Add a sibling" }).click();
    await page.getByRole("group", { name: "Athlete 2", exact: true }).waitFor();
    // The first athlete's details came back with the form.
    // (Step 1's form: the "Registered before?" box above it has an Email too.)
    expect(await page.getByRole("form", { name: "Registration" }).getByRole("textbox", { name: "Email", exact: true }).inputValue()).toBe(email);
    await fillSister(page);
    await page.getByRole("button", { name: "Proceed to Payment" }).click();
    await page.getByRole("heading", { name: "Order Summary" }).waitFor();
    expect(await page.getByTestId("family-athlete").allInnerTexts()).toEqual([expect.stringContaining("Jordan Sibling"), expect.stringContaining("Ana Sibling")]);
    expect(await page.getByTestId("sibling-discount").textContent()).toBe("-$25.00");
    expect(await page.getByTestId("registration-total").textContent()).toBe("$473.00");
    expect(await e2eDb()("registrations").where({ contact_email: email }).first()).toMatchObject({ status: "pending_payment", places: 2, amount_cents: 47300 });
    await context.close();
  }, scaledMs(90_000));
});
