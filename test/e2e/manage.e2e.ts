import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser } from "playwright-core";
import { e2eDb, launchBrowser, MOBILE, newVisit } from "../support/browser.ts";
import { checked, familyAddress, familyLinksFor, fits, payTeam } from "../support/manageJourney.ts";
import { fillCard, fillRegistrationStep1, formStarted } from "../support/registrationForm.ts";
import { scaledMs } from "../support/timeouts.ts";

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
  await page.waitForURL(/\/event-registration\/2\?paymentSuccess=true/, { timeout: scaledMs(15_000) });
  const href = await page.getByRole("link", { name: "See, change or cancel this registration" }).getAttribute("href");
  await context.close();
  expect(href).toMatch(/^\/my-registration\/[A-Za-z0-9_-]{43}$/);
  return href!;
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
      // The narrowest phones too.
      await page.setViewportSize({ width: 320, height: 700 });
      await fits(page);
      await page.setViewportSize(MOBILE);

      const details = page.getByRole("form", { name: "Change the registration's details" });
      await details.getByLabel("T-Shirt Size").selectOption("Large");
      await details.getByLabel("Emergency Contact Name").fill("Luis Ortiz");
      await details.getByLabel("Monday, June 7").uncheck();
      await details.getByLabel("Sunday, June 6").check();
      await details.getByRole("button", { name: "Save Changes" }).click();
      await page.getByText("Your changes are saved.").waitFor();
      expect(await page.locator(".manage-facts").innerText()).toContain("Saturday, June 5; Sunday, June 6");
      expect(await page.locator(".manage-athletes").innerText()).toContain("Shirt: Large");

      // A wrong phone: registration's own message, nothing changed.
      await details.getByLabel("Emergency Contact Phone").fill("555");
      await details.getByRole("button", { name: "Save Changes" }).click();
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
      for (const path of ["/camp-waiver", "/camp-medical-release", "/camp-cancellation-policy", "/terms", "/my-registration/not-a-real-link", "/events/2"]) {
        await page.goto(path);
        await checked(page, javaScript);
        await page.setViewportSize({ width: 320, height: 700 });
        await fits(page);
        await page.setViewportSize(MOBILE);
      }
      await page.goto("/events/2");
      await page.locator("#lost-confirmation").getByLabel("Email").fill("nobody@example.com");
      // The same answer for every address: back to the event page, whose toast the integration test reads.
      const posted = page.waitForResponse((r) => r.request().method() === "POST" && new URL(r.url()).pathname === "/events/2/lost-confirmation");
      await page.getByRole("button", { name: "Send My Link" }).click();
      const answer = await posted;
      expect(answer.status()).toBe(303);
      expect(answer.headers().location).toBe("/events/2#lost-confirmation");
      await page.waitForLoadState("load");
      await checked(page, javaScript);
      await context.close();
    }
  });
});

for (const javaScript of [true, false]) {
  describe(`a coach's roster and a family's link, JavaScript ${javaScript ? "on" : "off"}`, () => {
    it("sends a family its link; the family changes the shirt size and signs the waiver; the roster says who is missing what", async () => {
      const tag = javaScript ? "js" : "nojs";
      const coachLink = await payTeam(browser, `coach.${tag}@example.com`, tag);
      const { page, context } = await newVisit(browser, { javaScript, viewport: MOBILE });
      await page.goto(coachLink);
      expect(await page.locator(".manage-missing").count()).toBe(5);
      await checked(page, javaScript);
      await page.getByRole("button", { name: "Send family link again for Kid3 Rivera" }).click();
      await page.getByText("We've e-mailed Kid3 Rivera's family their own link.").waitFor();

      const db = e2eDb();
      try {
        const registration = await db("registrations").where({ contact_email: `coach.${tag}@example.com` }).first();
        // The family's link from the payment, then the one the coach sent again: both open Kid3.
        const [familyLink] = await familyLinksFor(familyAddress(3, tag), 2);
        await page.goto(familyLink!);
        expect(await page.getByRole("heading", { level: 1 }).textContent()).toBe("Kid3 Rivera");
        await checked(page, javaScript);
        await page.setViewportSize({ width: 320, height: 700 });
        await fits(page);
        await page.setViewportSize(MOBILE);
        await page.getByLabel("Shirt Size").selectOption("Large");
        await page.getByRole("button", { name: "Save Changes" }).click();
        await page.getByText("Your changes are saved.").waitFor();
        await page.getByLabel("Your full name").fill("Parent Three");
        await page.getByLabel("Relationship to the athlete").selectOption("Parent");
        await page.getByLabel(/I have read and agree/).check();
        await page.getByRole("button", { name: "Sign" }).click();
        await page.getByText(/Signed by Parent Three \(Parent\)/).waitFor();
        await checked(page, javaScript);
        const kid3 = await db("registration_athletes").where({ registration_id: registration.id, position: 3 }).first();
        expect(kid3).toMatchObject({ shirt_size: "Large", waiver_signed_name: "Parent Three", waiver_signer_relationship: "Parent", waiver_version: "2026-11-26" });

        await page.goto(coachLink);
        expect(await page.locator(".manage-missing").count()).toBe(4);
        expect(await page.locator(".manage-complete").count()).toBe(1);
      } finally {
        await db.destroy();
      }
      await context.close();
    });
  });
}
