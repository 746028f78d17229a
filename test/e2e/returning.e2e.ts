import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser, Page } from "playwright-core";
import { e2eDb, launchBrowser, MOBILE, newVisit } from "../support/browser.ts";
import { checked, mailsTo } from "../support/manageJourney.ts";
import { fillCard, formStarted } from "../support/registrationForm.ts";
import { scaledMs } from "../support/timeouts.ts";
import { bumpEventsVersion } from "../../src/events/version.ts";
import { runExport } from "../../src/cli/export.ts";
import { Writable } from "node:stream";

/**
 * "Registered before?" at 375 px: a parent who registered a daughter last season asks on step 1 of this season's
 * form, opens the e-mailed link in a fresh browser, finds the form filled in with the grade moved up, changes the
 * shirt size, ticks the agreement anew and reaches the payment step; with JavaScript on and off.
 */
let browser: Browser;
beforeAll(async () => {
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
});

/** Last season: a copy of event 1 a year earlier (not listed), and a paid registration of Maya by her parent (with her brother Leo: a family of two). */
async function lastSeason(tag: string, parent: string, withBrother = false): Promise<void> {
  const db = e2eDb();
  try {
    const { id: _id, ...camp } = await db("events").where({ id: 1 }).first();
    const now = new Date();
    const [eventId] = await db("events").insert({ ...camp, title: `Birmingham Slam Camp 2026 ${tag}`, start_date: new Date("2026-06-19T00:00:00Z"), end_date: new Date("2026-06-21T00:00:00Z"), listed: false, registration_closes_at: null, created_at: now, updated_at: now });
    const [registrationId] = await db("registrations").insert({
      reference: `RET-${tag}`.slice(0, 20), event_id: eventId, kind: "individual", status: "paid", places: withBrother ? 2 : 1, package_code: "full", package_label: "Full Camp", list_price_cents: 24900, amount_cents: 24900, amount_paid_cents: 24900,
      contact_first_name: "Maya", contact_last_name: "Ortiz", contact_email: `maya.returning.${tag}@example.com`, contact_phone: "(702) 555-0100", form_session_id: `returning-e2e-${tag}-${Date.now()}`,
      agreed_at: now, created_at: now, updated_at: now, paid_at: now, guardian_name: "Ana Ortiz", guardian_email: parent, guardian_phone: "702-555-0199",
    });
    await db("registration_athletes").insert({
      registration_id: registrationId, position: 1, first_name: "Maya", last_name: "Ortiz", email: `maya.returning.${tag}@example.com`, phone: "(702) 555-0100", grade: "10th", gender: "Female",
      school_name: "Desert High", club_name: "Vegas WC", shirt_size: "Medium", emergency_contact_name: "Ana Ortiz", emergency_contact_phone: "702-555-0199", special_requirements: "Peanut allergy",
    });
    if (withBrother) {
      await db("registration_athletes").insert({
        registration_id: registrationId, position: 2, first_name: "Leo", last_name: "Ortiz", email: `maya.returning.${tag}@example.com`, grade: "8th", gender: "Male", school_name: "Desert Middle",
        club_name: "Vegas WC", shirt_size: "Small", emergency_contact_name: "Ana Ortiz", emergency_contact_phone: "702-555-0199", package_code: "full", package_label: "Full Camp", list_price_cents: 24900, sibling_discount_cents: 0,
      });
    }
  } finally {
    await db.destroy();
  }
}

/** Last season's team of a coach: five athletes aged 12 to 14 at the same past camp. */
async function lastSeasonTeam(tag: string, coach: string): Promise<void> {
  const db = e2eDb();
  try {
    const { id: _id, ...camp } = await db("events").where({ id: 1 }).first();
    const now = new Date();
    const [eventId] = await db("events").insert({ ...camp, title: `Birmingham Slam Camp 2026 ${tag}`, start_date: new Date("2026-06-19T00:00:00Z"), end_date: new Date("2026-06-21T00:00:00Z"), listed: false, registration_closes_at: null, created_at: now, updated_at: now });
    const [registrationId] = await db("registrations").insert({
      reference: `RET-${tag}`.slice(0, 20), event_id: eventId, kind: "team", team_name: "Steel City WC", status: "paid", places: 5, package_code: "team", package_label: "Team Registration", list_price_cents: 99500, amount_cents: 99500, amount_paid_cents: 99500,
      contact_first_name: "Dana", contact_last_name: "Brooks", contact_email: coach, contact_phone: "(205) 555-0142", form_session_id: `returning-e2e-${tag}-${Date.now()}`, agreed_at: now, created_at: now, updated_at: now, paid_at: now,
    });
    await db("registration_athletes").insert([1, 2, 3, 4, 5].map((n) => ({
      registration_id: registrationId, position: n, first_name: `Kid${n}`, last_name: "Brooks", email: `kid${n}.${tag}@example.com`, age: 11 + n, shirt_size: "Large", emergency_contact_name: `Parent ${n}`, emergency_contact_phone: "205-555-0100",
    })));
  } finally {
    await db.destroy();
  }
}

async function linkFor(address: string): Promise<string> {
  for (let i = 0; i < 100; i++) {
    const token = mailsTo(address).map((m) => /\/returning\/([A-Za-z0-9_-]{43})/.exec(m)?.[1]).find(Boolean);
    if (token) return `/returning/${token}`;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`no returning link e-mailed to ${address}`);
}

const step1 = (page: Page) => page.locator("form", { has: page.getByLabel(/I agree to the terms and conditions/) });

for (const javaScript of [true, false]) {
  describe(`a returning parent, JavaScript ${javaScript ? "on" : "off"}`, () => {
    it("asks on step 1, opens the e-mailed link in a fresh browser, finds the form filled in and reaches the payment step", async () => {
      const tag = javaScript ? "js" : "nojs";
      const parent = `ana.returning.${tag}@example.com`;
      await lastSeason(tag, parent);

      const asking = await newVisit(browser, { javaScript, viewport: MOBILE });
      await asking.page.goto("/register/2");
      const ask = asking.page.getByRole("form", { name: "Send me a link to fill in the form" });
      await ask.getByLabel("Email").fill(parent);
      await ask.getByRole("button", { name: "Email Me a Link" }).click();
      await asking.page.getByText("If that address has registered with us before, we've e-mailed it a link").waitFor();
      expect(new URL(asking.page.url()).pathname).toBe("/register/2");
      await checked(asking.page, javaScript);
      await asking.context.close();

      const link = await linkFor(parent);
      const [mail] = mailsTo(parent);
      expect(mail).toContain("Hi Ana,");
      expect(mail).toContain("It works once, for 30 minutes");

      const phone = await newVisit(browser, { javaScript, viewport: MOBILE });
      const { page } = phone;
      await page.goto(link);
      expect(new URL(page.url()).pathname).toBe("/register/2");
      await page.getByRole("heading", { name: "Filled in from your last registration" }).waitFor();
      const form = step1(page);
      expect(await form.getByLabel("First Name").inputValue()).toBe("Maya");
      expect(await form.getByLabel("Grade").inputValue()).toBe("11th");
      expect(await form.getByLabel("School Name").inputValue()).toBe("Desert High");
      expect(await form.getByLabel("Parent or Guardian Email").inputValue()).toBe(parent);
      expect(await form.getByLabel(/Medical conditions/).inputValue()).toBe("Peanut allergy");
      expect(await form.getByLabel("T-Shirt Size").inputValue()).toBe("Medium");
      expect(await form.getByLabel(/I agree to the terms and conditions/).isChecked()).toBe(false);
      await checked(page, javaScript);

      if (javaScript) await formStarted(page, "RegistrationSteps");
      await form.getByLabel("T-Shirt Size").selectOption("Large");
      await form.getByLabel(/I agree to the terms and conditions/).check();
      await page.getByRole("button", { name: "Proceed to Payment" }).click();
      await page.getByRole("heading", { name: "Order Summary" }).waitFor();
      expect(await page.locator('[aria-current="step"]').innerText()).toContain("Payment");

      const db = e2eDb();
      try {
        const held = await db("registrations").where({ event_id: 2, contact_email: `maya.returning.${tag}@example.com` }).orderBy("id", "desc").first();
        expect(held).toMatchObject({ status: "pending_payment", guardian_email: parent });
        expect(await db("registration_athletes").where({ registration_id: held.id }).first()).toMatchObject({ first_name: "Maya", grade: "11th", shirt_size: "Large", school_name: "Desert High" });
      } finally {
        await db.destroy();
      }
      await phone.context.close();

      // The link opened once: a second browser is told so, with the way to ask again.
      const late = await newVisit(browser, { javaScript, viewport: MOBILE });
      await late.page.goto(link);
      await late.page.getByRole("heading", { name: "This link was used or has expired" }).waitFor();
      expect(await late.page.getByRole("form", { name: "Send me a link to fill in the form" }).count()).toBe(1);
      await checked(late.page, javaScript);
      await late.context.close();
    });
  });
}

/** Asks for a link on step 1 of event 2 once the page offers the sibling discount (the server reads the change within a moment). */
async function askOnStep1(address: string, javaScript: boolean): Promise<void> {
  const asking = await newVisit(browser, { javaScript, viewport: MOBILE });
  await expect
    .poll(async () => {
      await asking.page.goto("/register/2");
      return asking.page.getByText("$25.00 off each additional athlete").count();
    }, { timeout: scaledMs(10_000) })
    .toBeGreaterThan(0);
  const ask = asking.page.getByRole("form", { name: "Send me a link to fill in the form" });
  await ask.getByLabel("Email").fill(address);
  await ask.getByRole("button", { name: "Email Me a Link" }).click();
  await asking.page.getByText("If that address has registered with us before, we've e-mailed it a link").waitFor();
  await asking.context.close();
}

describe("a returning family of two (the issue's acceptance)", () => {
  // Event 2 (National Champ Camp, full $299): $25.00 off each additional athlete, for these journeys only.
  beforeAll(async () => {
    await e2eDb().transaction(async (trx) => {
      await trx("events").where({ id: 2 }).update({ sibling_discount_kind: "fixed", sibling_discount_value: 2500 });
      await bumpEventsVersion(trx);
    });
  });
  afterAll(async () => {
    await e2eDb().transaction(async (trx) => {
      await trx("events").where({ id: 2 }).update({ sibling_discount_kind: "none", sibling_discount_value: 0 });
      await bumpEventsVersion(trx);
    });
  });

  for (const javaScript of [true, false]) {
    it(`opens the link on a phone, finds both siblings filled in, changes a grade and a shirt size and reaches the payment step with the discount${javaScript ? "; pays once, both on the roster and in the export" : " (JavaScript off)"}`, async () => {
      const tag = javaScript ? "fam-js" : "fam-nojs";
      const parent = `ana.family.${tag}@example.com`;
      await lastSeason(tag, parent, true);
      await askOnStep1(parent, javaScript);

      const { page, context, problems } = await newVisit(browser, { javaScript, viewport: MOBILE });
      await page.goto(await linkFor(parent));
      expect(new URL(page.url()).pathname).toBe("/register/2");
      await page.getByRole("heading", { name: "Filled in from your last registration" }).waitFor();
      expect(await page.getByText("Also registered last time").count()).toBe(0);
      const first = page.getByRole("group", { name: "Personal Information" });
      const brother = page.getByRole("group", { name: "Athlete 2", exact: true });
      expect(await first.getByLabel("First Name").inputValue()).toBe("Maya");
      expect(await first.getByLabel("Grade").inputValue()).toBe("11th");
      expect(await brother.getByLabel("First Name").inputValue()).toBe("Leo");
      expect(await brother.getByLabel("Grade").inputValue()).toBe("9th");
      expect(await brother.getByLabel("School Name").inputValue()).toBe("Desert Middle");
      expect(await brother.getByLabel("T-Shirt Size").inputValue()).toBe("Small");
      expect(await page.getByLabel(/I agree to the terms and conditions/).isChecked()).toBe(false);
      await checked(page, javaScript);

      if (javaScript) {
        await formStarted(page, "RegistrationSteps");
        expect(await page.getByTestId("family-total").textContent()).toBe("$573.00");
      }
      await brother.getByLabel("Grade").fill("10th");
      await first.getByLabel("T-Shirt Size").selectOption("Large");
      await page.getByLabel(/I agree to the terms and conditions/).check();
      await page.getByRole("button", { name: "Proceed to Payment" }).click();
      await page.getByRole("heading", { name: "Order Summary" }).waitFor();
      expect(await page.getByTestId("family-athlete").allInnerTexts()).toEqual([expect.stringContaining("Maya Ortiz"), expect.stringContaining("Leo Ortiz")]);
      expect(await page.getByTestId("sibling-discount").textContent()).toBe("-$25.00");
      expect(await page.getByTestId("registration-total").textContent()).toBe("$573.00");
      expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);

      const db = e2eDb();
      const registration = () => db("registrations").where({ event_id: 2, guardian_email: parent }).first();
      expect(await registration()).toMatchObject({ kind: "individual", status: "pending_payment", places: 2, amount_cents: 57300 });
      expect(await db("registration_athletes").where({ registration_id: (await registration()).id }).orderBy("position").select("first_name", "grade", "shirt_size"))
        .toEqual([{ first_name: "Maya", grade: "11th", shirt_size: "Large" }, { first_name: "Leo", grade: "10th", shirt_size: "Small" }]);
      if (!javaScript) return void (await context.close());

      await fillCard(page, "4242 4242 4242 4242", "89101");
      await page.getByRole("button", { name: "Complete Payment - $573.00" }).click();
      await page.waitForURL(/\/event-registration\/2\?paymentSuccess=true/, { timeout: scaledMs(15_000) });
      await page.locator(".registration-confirmed").waitFor();
      const paid = await registration();
      expect(paid).toMatchObject({ status: "paid", places: 2, amount_paid_cents: 57300 });
      expect(await db("payments").where({ kind: "registration", reference: paid.reference }).select("amount_cents", "status")).toEqual([{ amount_cents: 57300, status: "paid" }]);
      const roster = await db("registration_roster").where({ reference: paid.reference }).orderBy("athlete_name");
      expect(roster.map((r) => [r.athlete_name, r.grade_or_age, r.shirt_size, r.status, Number(r.sibling_discount)])).toEqual([["Leo Ortiz", "10th", "Small", "paid", 25], ["Maya Ortiz", "11th", "Large", "paid", 0]]);
      let csv = "";
      await runExport(db, { name: "registrations", eventId: 2 }, new Writable({ write: (c: Buffer, _e, done) => ((csv += c.toString("utf8")), done()) }));
      const rows = csv.split("\r\n").filter((line) => line.startsWith(`${paid.reference},`));
      expect(rows).toHaveLength(2);
      expect(rows.find((line) => line.includes(",Leo Ortiz,"))).toContain(",10th,");
      expect(rows.find((line) => line.includes(",Maya Ortiz,"))).toContain(",Large,");
      expect(problems, "console").toEqual([]);
      await context.close();
    }, scaledMs(120_000));
  }
});

describe("a returning coach", () => {
  it("asks on the team form, opens the link, finds the coach filled in and ticks two of last season's athletes into rows", async () => {
    const coach = "dana.returning.coach@example.com";
    await lastSeasonTeam("coach", coach);
    const asking = await newVisit(browser, { viewport: MOBILE });
    await asking.page.goto("/team-register/2");
    const ask = asking.page.getByRole("form", { name: "Send me a link to fill in the form" });
    await ask.getByLabel("Email").fill(coach);
    await ask.getByRole("button", { name: "Email Me a Link" }).click();
    await asking.page.getByText("If that address has registered with us before, we've e-mailed it a link").waitFor();
    await asking.context.close();

    const { page, context } = await newVisit(browser, { viewport: MOBILE });
    await page.goto(await linkFor(coach));
    expect(new URL(page.url()).pathname).toBe("/team-register/2");
    const coachBox = page.getByRole("group", { name: "Coach Information" });
    expect(await coachBox.getByLabel("Email").inputValue()).toBe(coach);
    expect(await coachBox.getByLabel(/Team Name/).inputValue()).toBe("Steel City WC");
    const list = page.getByRole("form", { name: "Last season's athletes" });
    await list.getByLabel("Kid1 Brooks (13)").check();
    await list.getByLabel("Kid3 Brooks (15)").check();
    await list.getByRole("button", { name: "Add the ticked athletes" }).click();
    await page.waitForURL(/athlete=0&athlete=2/);
    const first = page.getByRole("group", { name: "Athlete 1", exact: true });
    expect(await first.getByLabel("First Name").inputValue()).toBe("Kid1");
    expect(await first.getByLabel("Age").inputValue()).toBe("13");
    expect(await page.getByRole("group", { name: "Athlete 2", exact: true }).getByLabel("First Name").inputValue()).toBe("Kid3");
    expect(await coachBox.getByLabel("Phone").inputValue()).toBe("(205) 555-0142");
    await checked(page);
    await context.close();
  });
});
