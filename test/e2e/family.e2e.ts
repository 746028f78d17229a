import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser } from "playwright-core";
import { e2eDb, launchBrowser, MOBILE, newVisit } from "../support/browser.ts";
import { checked, familyAddress, familyLinksFor, fits, mailsTo, payTeam } from "../support/manageJourney.ts";

let browser: Browser;
beforeAll(async () => {
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
});

for (const javaScript of [true, false]) {
  describe(`a family's own link, e-mailed when the team is paid, JavaScript ${javaScript ? "on" : "off"}`, () => {
    it("opens in a fresh browser; the family completes the details and signs the waiver; the coach's roster shows the athlete complete", async () => {
      const tag = javaScript ? "auto-js" : "auto-nojs";
      const coachLink = await payTeam(browser, `coach.${tag}@example.com`, tag);
      // Every family got its own link at payment: the coach pressed nothing.
      for (const i of [1, 2, 3, 4, 5]) expect(await familyLinksFor(familyAddress(i, tag))).toHaveLength(1);
      const [mail] = mailsTo(familyAddress(2, tag));
      for (const part of ["Hi Parent 2,", "Dana Rivera has registered Kid2 Rivera for National Champ Camp with Rivera WC", "- sign the waiver and medical release", "- Saturday, June 5: 9:00 AM - 4:00 PM PDT"]) {
        expect(mail, part).toContain(part);
      }
      const [link] = await familyLinksFor(familyAddress(2, tag));

      const { page, context } = await newVisit(browser, { javaScript, viewport: MOBILE });
      await page.goto(link!);
      expect(await page.getByRole("heading", { level: 1 }).textContent()).toBe("Kid2 Rivera");
      expect(await page.locator("body").innerText()).not.toContain("Kid3 Rivera");
      await checked(page, javaScript);
      await page.setViewportSize({ width: 320, height: 700 });
      await fits(page);
      await page.setViewportSize(MOBILE);

      const details = page.getByRole("form", { name: "Change the athlete's details" });
      await details.getByLabel("Parent Phone Number").fill("205-555-0177");
      await details.getByLabel(/Medical conditions, allergies/).fill("Peanut allergy");
      await details.getByRole("button", { name: "Save Changes" }).click();
      await page.getByText("Your changes are saved.").waitFor();
      await page.getByLabel("Your full name").fill("Parent Two");
      await page.getByLabel("Relationship to the athlete").selectOption("Legal guardian");
      await page.getByLabel(/I have read and agree/).check();
      await page.getByRole("button", { name: "Sign" }).click();
      await page.getByText(/Signed by Parent Two \(Legal guardian\) on .*, version 2026-11-26\./).waitFor();
      await checked(page, javaScript);
      await context.close();

      const db = e2eDb();
      try {
        const registration = await db("registrations").where({ contact_email: `coach.${tag}@example.com` }).first();
        const kid2 = await db("registration_athletes").where({ registration_id: registration.id, position: 2 }).first();
        expect(kid2).toMatchObject({ emergency_contact_phone: "205-555-0177", special_requirements: "Peanut allergy", waiver_signed_name: "Parent Two", waiver_signer_relationship: "Legal guardian", waiver_version: "2026-11-26" });
      } finally {
        await db.destroy();
      }

      // The coach, in a browser of their own: Kid2 is complete, the four others still miss the waiver.
      const coach = await newVisit(browser, { javaScript, viewport: MOBILE });
      await coach.page.goto(coachLink);
      const kid2Row = coach.page.locator("li", { hasText: "Kid2 Rivera" });
      expect(await kid2Row.locator(".manage-complete").innerText()).toBe("Complete");
      expect(await kid2Row.innerText()).toContain("Medical notes: Peanut allergy");
      expect(await coach.page.locator(".manage-missing").count()).toBe(4);
      await checked(coach.page, javaScript);
      await coach.context.close();

      // After the freeze date the family's page shows the details as stored, says why, and still fits and passes axe.
      const frozenDb = e2eDb();
      try {
        await frozenDb("events").where({ id: 2 }).update({ changes_freeze_at: new Date(Date.now() - 60_000) });
        const late = await newVisit(browser, { javaScript, viewport: MOBILE });
        await late.page.goto(link!);
        expect(await late.page.locator(".family-stored").innerText()).toContain("Parent 2, 205-555-0177");
        expect(await late.page.locator("body").innerText()).toMatch(/Changes had to be made by .*: only the medical notes can still change/);
        expect(await late.page.getByLabel("Parent Phone Number").count()).toBe(0);
        await checked(late.page, javaScript);
        await late.context.close();
      } finally {
        await frozenDb("events").where({ id: 2 }).update({ changes_freeze_at: null });
        await frozenDb.destroy();
      }
    });
  });
}
