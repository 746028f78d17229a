import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser, Page } from "playwright-core";
import { e2eDb, launchBrowser, MOBILE, newVisit } from "../support/browser.ts";
import { checkoutStarted, fillCard, formStarted } from "../support/registrationForm.ts";
import { checked, familyLinksFor } from "../support/manageJourney.ts";
import { scaledMs } from "../support/timeouts.ts";

// A coach shares one invite link; families fill in their rows on their phones; the coach sees them and pays once.

let browser: Browser;
beforeAll(async () => {
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
});

const famAddress = (i: number, tag: string) => `fam${i}.${tag}@example.com`;

async function coachStarts(page: Page, tag: string, javaScript: boolean): Promise<string> {
  await page.goto("/team-register/2");
  if (javaScript) await formStarted(page, "TeamForm");
  const coach = page.getByRole("group", { name: "Coach Information" });
  await coach.getByLabel("First Name").fill("Dana");
  await coach.getByLabel("Last Name").fill("Okafor");
  await coach.getByLabel("Email").fill(`coach.${tag}@example.com`);
  await coach.getByLabel("Phone").fill("(205) 555-0142");
  await coach.getByLabel("Team Name (optional)").fill(`Invite WC ${tag}`);
  for (const n of [1, 2]) {
    const row = page.getByRole("group", { name: `Athlete ${n}`, exact: true });
    await row.getByLabel("First Name").fill(`Own${n}`);
    await row.getByLabel("Last Name").fill("Rowlast");
    await row.getByLabel("Age").fill("15");
    await row.getByLabel("Email").fill(`own${n}.${tag}@example.com`);
    await row.getByLabel("Parent Name").fill(`Own Parent ${n}`);
    await row.getByLabel("Parent Phone").fill("205-555-0100");
    await row.getByLabel("Shirt Size").selectOption("Medium");
  }
  await page.getByRole("button", { name: "Create an invite link for your athletes" }).click();
  const link = page.getByTestId("team-invite-link");
  await link.waitFor();
  // The draft lives on the server: the coach's rows are back.
  expect(await page.getByRole("group", { name: "Athlete 2", exact: true }).getByLabel("First Name").inputValue()).toBe("Own2");
  return new URL(await link.inputValue()).pathname;
}

async function familyFills(path: string, i: number, tag: string, javaScript: boolean, sign: boolean): Promise<void> {
  const { page, context } = await newVisit(browser, { javaScript, viewport: MOBILE });
  await page.goto(path);
  expect(await page.getByRole("heading", { level: 1 }).textContent()).toBe(`Join Invite WC ${tag}`);
  const names = await page.getByTestId("invite-names").innerText();
  expect(names).toContain("Own1");
  // First names only: never another row's last name or contact.
  for (const secret of ["Rowlast", "Own Parent", "own1."]) expect(await page.locator("main").innerText()).not.toContain(secret);
  await page.getByLabel("First Name").fill(`Fam${i}`);
  await page.getByLabel("Last Name").fill(`Family${i}`);
  await page.getByLabel("Age").fill("13");
  await page.getByLabel("Athlete's Email").fill(famAddress(i, tag));
  await page.getByLabel("Shirt Size").selectOption("Large");
  await page.getByLabel("Parent or Guardian Name").fill(`Guardian ${i}`);
  await page.getByLabel("Parent or Guardian Phone").fill(`205-555-01${10 + i}`);
  if (sign) {
    await page.getByLabel("Your full name").fill(`Guardian ${i}`);
    await page.getByLabel("Relationship to the athlete").selectOption("Parent");
    await page.getByLabel(/I have read and agree/).check();
  }
  await page.getByRole("button", { name: "Add to the team" }).click();
  await page.getByText("Thank you: your athlete's row is saved.").waitFor();
  // The same browser corrects its row.
  expect(await page.getByLabel("Last Name").inputValue()).toBe(`Family${i}`);
  await page.getByLabel("Shirt Size").selectOption("XL");
  await page.getByRole("button", { name: "Save Changes" }).click();
  await page.getByText("Your athlete's row is updated.").waitFor();
  await checked(page, javaScript);
  await context.close();
}

describe("a team completed by its families through the invite link, at 375 px", () => {
  it("three families fill in their rows in their own browsers; the coach sees them appear and pays once; each family gets its manage link", async () => {
    const tag = `inv${Date.now() % 100000}`;
    const { page, context, problems } = await newVisit(browser, { viewport: MOBILE });
    const path = await coachStarts(page, tag, true);
    await formStarted(page, "TeamForm");
    await checked(page);
    for (const i of [1, 2, 3]) await familyFills(path, i, tag, true, i !== 2);

    // The rows appear on the coach's open form without a reload.
    await expect.poll(() => page.getByTestId("team-invite-rows").innerText().catch(() => ""), { timeout: scaledMs(20_000) }).toContain("Fam3 Family3");
    expect(await page.getByTestId("team-invite-rows").innerText()).toMatch(/Fam2 Family2, 13, XL: complete; waiver and medical release not signed yet/);
    expect(await page.getByTestId("team-total").textContent()).toBe("$995.00");
    await checked(page);
    await page.getByRole("button", { name: "Register Team - $995.00" }).click();
    await page.waitForURL(/\/stripe-checkout\?eventId=2&eventName=National%20Champ%20Camp&option=team$/, { timeout: scaledMs(15_000) });
    await checkoutStarted(page);
    expect(await page.getByTestId("team-athlete-count").textContent()).toBe("5");
    await fillCard(page, "4242 4242 4242 4242", "35203");
    await page.getByRole("button", { name: "Complete Payment - $995.00" }).click();
    await page.waitForURL(/option=team&success=true/, { timeout: scaledMs(15_000) });
    expect(problems).toEqual([]);
    await context.close();

    const db = e2eDb();
    try {
      const registration = await db("registrations").where({ contact_email: `coach.${tag}@example.com` }).first();
      expect(registration).toMatchObject({ kind: "team", status: "paid", places: 5, amount_paid_cents: 99500 });
      const athletes = await db("registration_athletes").where({ registration_id: registration.id }).orderBy("position");
      expect(athletes.map((a: { first_name: string }) => a.first_name)).toEqual(["Own1", "Own2", "Fam1", "Fam2", "Fam3"]);
      expect(athletes.map((a: { shirt_size: string }) => a.shirt_size)).toEqual(["Medium", "Medium", "XL", "XL", "XL"]);
      expect(athletes.map((a: { waiver_signed_name: string | null }) => a.waiver_signed_name)).toEqual([null, null, "Guardian 1", null, "Guardian 3"]);
    } finally {
      await db.destroy();
    }
    for (const i of [1, 2, 3]) {
      const [link] = await familyLinksFor(famAddress(i, tag));
      const family = await newVisit(browser, { viewport: MOBILE });
      await family.page.goto(link!);
      expect(await family.page.getByRole("heading", { level: 1 }).textContent()).toBe(`Fam${i} Family${i}`);
      if (i !== 2) expect(await family.page.locator("main").innerText()).toContain(`Signed by Guardian ${i} (Parent)`);
      await family.context.close();
    }
  });

  it("works without JavaScript: the coach makes the link, a family fills in and corrects its row, the coach's reload shows it", async () => {
    const tag = `invnojs${Date.now() % 100000}`;
    const { page, context } = await newVisit(browser, { javaScript: false, viewport: MOBILE });
    const path = await coachStarts(page, tag, false);
    await familyFills(path, 1, tag, false, true);
    await page.reload();
    expect(await page.getByTestId("team-invite-rows").innerText()).toMatch(/Fam1 Family1, 13, XL: complete; waiver signed/);
    expect(await page.getByTestId("team-total").textContent()).toBe("$597.00");
    await context.close();
  });
});
