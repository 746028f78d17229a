import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { e2eDb, launchBrowser, MOBILE, newVisit, seriousA11yViolations } from "../support/browser.ts";
import { fillCard } from "../support/registrationForm.ts";
import { scaledMs } from "../support/timeouts.ts";

/**
 * A paid registration's changes that cost money, as a family and a coach make them: a bigger package, and a sixth
 * athlete for a paid team of five ($199), paid with the offline card 4242 4242 4242 4242. The forms work without
 * JavaScript (the card needs it, as on /stripe-checkout: the no-JavaScript run makes the change there and pays on
 * the same link from a browser with JavaScript).
 */
let browser: Browser;
beforeAll(async () => {
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
});

const CARD = { "payment_method_data[type]": "card", "payment_method_data[card][number]": "4242424242424242", "payment_method_data[card][exp_month]": "12", "payment_method_data[card][exp_year]": "2034", "payment_method_data[card][cvc]": "123" };

/** Pays a held registration through the site's JSON calls and the offline Stripe; returns the confirmation page's manage link. */
async function payHeld(context: BrowserContext, page: Page, csrf: string, clientSecret: string, option?: "team"): Promise<string> {
  const intentId = clientSecret.split("_secret_")[0]!;
  const checkout = await (await context.request.get(`/stripe-checkout?eventId=2${option ? "&option=team" : ""}`)).text();
  const key = /"publishableKey":"([^"]+)"/.exec(checkout)![1]!;
  const confirmed = await context.request.post(`/__offline-stripe/v1/payment_intents/${intentId}/confirm`, { form: { key, client_secret: clientSecret, ...CARD } });
  expect(confirmed.status()).toBe(200);
  const paid = await context.request.post("/api/events/2/stripe-payment-success", { headers: { "x-csrf-token": csrf }, data: { paymentIntentId: intentId, option } });
  expect(((await paid.json()) as { status: string }).status).toBe("paid");
  await page.goto(option ? "/stripe-checkout?eventId=2&option=team" : `/event-registration/2?paymentSuccess=true&paymentIntentId=${intentId}`);
  return (await page.getByRole("link", { name: "See, change or cancel this registration" }).getAttribute("href"))!;
}

async function paidTwoDays(email: string): Promise<string> {
  const { page, context } = await newVisit(browser);
  await page.goto("/register/2");
  const csrf = (await page.locator('meta[name="csrf-token"]').getAttribute("content"))!;
  const data = { firstName: "Maya", lastName: "Ortiz", email, phone: "(702) 555-0100", grade: "9th", gender: "Female", schoolName: "Desert High", emergencyContactName: "Ana Ortiz", emergencyContactPhone: "702-555-0199", adult: "on", agrees: "on", registrationType: "2day", day1: true, day3: true };
  const held = await context.request.post("/api/events/2/create-payment-intent", { headers: { "x-csrf-token": csrf }, data: { option: "2day", formSessionId: `changes-e2e-${email.replace(/[^a-z]/g, "")}-${Date.now()}`, registrationData: data } });
  expect(held.status()).toBe(200);
  const link = await payHeld(context, page, csrf, ((await held.json()) as { clientSecret: string }).clientSecret);
  await context.close();
  return link;
}

async function paidTeamOfFive(coachEmail: string, tag: string): Promise<string> {
  const { page, context } = await newVisit(browser);
  await page.goto("/team-register/2");
  const csrf = (await page.locator('meta[name="csrf-token"]').getAttribute("content"))!;
  const athletes = [1, 2, 3, 4, 5].map((i) => ({ firstName: `Kid${i}`, lastName: "Rivera", age: 12, email: `kid${i}.${tag}.more@example.com`, shirtSize: "Medium", parentName: `Parent ${i}`, parentPhoneNumber: "205-555-0100" }));
  const held = await context.request.post("/api/team-registration", {
    headers: { "x-csrf-token": csrf },
    data: { eventId: 2, coachInfo: { firstName: "Dana", lastName: "Rivera", email: coachEmail, phone: "(205) 555-0142", teamName: `Rivera WC ${tag}` }, athletes, formSessionId: `changes-e2e-team-${tag}-${Date.now()}` },
  });
  expect(held.status()).toBe(200);
  const link = await payHeld(context, page, csrf, ((await held.json()) as { clientSecret: string }).clientSecret, "team");
  await context.close();
  return link;
}

async function checked(page: Page, javaScript: boolean): Promise<void> {
  const widths = await page.evaluate(() => ({ scroll: document.documentElement.scrollWidth, inner: window.innerWidth }));
  expect(widths.scroll, `${page.url()} is wider than the screen`).toBeLessThanOrEqual(widths.inner);
  if (javaScript) expect(await seriousA11yViolations(page), page.url()).toEqual([]);
}

/** Pays the change page open in `url` with the card, in a browser with JavaScript; lands on the change's page, paid. */
async function payChange(url: string): Promise<void> {
  const { page, context } = await newVisit(browser, { viewport: MOBILE });
  await page.goto(url);
  await page.locator(".registration-page h1").hover();
  await page.locator('[data-widget="ChangePayment"][data-hydrated="true"]').waitFor();
  await checked(page, true);
  await fillCard(page, "4242 4242 4242 4242", "89101");
  const button = page.getByRole("button", { name: /^Pay \$/ });
  await button.click();
  await page.getByText("Payment received: your registration is changed.").waitFor({ timeout: scaledMs(15_000) });
  await checked(page, true);
  await context.close();
}

for (const javaScript of [true, false]) {
  describe(`changes that cost money, JavaScript ${javaScript ? "on" : "off"}`, () => {
    it("moves a paid 2-day registration to the full camp, paying the $61.00 difference", async () => {
      const email = `maya.upgrade.${javaScript ? "js" : "nojs"}@example.com`;
      const link = await paidTwoDays(email);
      const { page, context } = await newVisit(browser, { javaScript, viewport: MOBILE });
      await page.goto(link);
      await page.getByRole("link", { name: "Choose a bigger package…" }).click();
      await page.waitForURL(`**${link}/upgrade`);
      await checked(page, javaScript);
      await page.getByLabel(/Full Camp \(3 Days\) \(\$299\.00\): you pay \$61\.00 more/).check();
      await page.getByRole("button", { name: "Continue to Payment" }).click();
      await page.waitForURL(/\/changes\/\d+$/);
      expect(await page.getByTestId("change-total").textContent()).toBe("$61.00");
      await checked(page, javaScript);
      if (!javaScript) expect(await page.locator("body").innerText()).toContain("Card payment needs JavaScript");
      const changeUrl = new URL(page.url()).pathname;
      await context.close();

      await payChange(changeUrl);
      const db = e2eDb();
      try {
        const r = await db("registrations").where({ contact_email: email }).first();
        expect(r).toMatchObject({ package_code: "full", amount_cents: 29900, amount_paid_cents: 29900 });
        expect(await db("registration_days").where({ registration_id: r.id })).toHaveLength(3);
      } finally {
        await db.destroy();
      }
    });

    it("a coach of 5 adds a sixth athlete, pays $199.00, and sends the family its link", async () => {
      const tag = javaScript ? "js" : "nojs";
      const link = await paidTeamOfFive(`coach.more.${tag}@example.com`, tag);
      const { page, context } = await newVisit(browser, { javaScript, viewport: MOBILE });
      await page.goto(link);
      await page.getByRole("link", { name: "Add athletes…" }).click();
      await page.waitForURL(`**${link}/athletes`);
      await checked(page, javaScript);
      if (!javaScript) {
        // Another row without JavaScript: the form comes back from the server with one more.
        await page.getByRole("button", { name: "Add another athlete" }).click();
        await page.getByRole("group", { name: "New athlete 2" }).waitFor();
      }
      const row = page.getByRole("group", { name: "New athlete 1" });
      await row.getByLabel("First Name").fill("Kid6");
      await row.getByLabel("Last Name").fill("Rivera");
      await row.getByLabel("Age").fill("13");
      await row.getByLabel("Email").fill(`kid6.${tag}.more@example.com`);
      await row.getByLabel("Shirt Size").selectOption("Large");
      await row.getByLabel("Parent Name").fill("Parent 6");
      await row.getByLabel("Parent Phone").fill("205-555-0106");
      await page.getByRole("button", { name: "Continue to Payment" }).click();
      await page.waitForURL(/\/changes\/\d+$/);
      expect(await page.getByTestId("change-total").textContent()).toBe("$199.00");
      expect(await page.locator(".change-summary").innerText()).toContain("Kid6 Rivera (age 13, shirt Large)");
      await checked(page, javaScript);
      const changeUrl = new URL(page.url()).pathname;
      await payChange(changeUrl);

      await page.goto(link);
      expect(await page.locator(".manage-athletes").innerText()).toContain("Kid6 Rivera");
      expect(await page.locator(".manage-facts").innerText()).toContain("6 athletes");
      await page.getByRole("button", { name: "Send family link again for Kid6 Rivera" }).click();
      await page.getByText("We've e-mailed Kid6 Rivera's family their own link.").waitFor();
      await checked(page, javaScript);
      const db = e2eDb();
      try {
        const r = await db("registrations").where({ contact_email: `coach.more.${tag}@example.com` }).first();
        expect(r).toMatchObject({ places: 6, amount_cents: 119400, amount_paid_cents: 119400 });
      } finally {
        await db.destroy();
      }
      await context.close();
    });
  });
}
