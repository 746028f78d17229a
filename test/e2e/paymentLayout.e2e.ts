import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser, Locator, Page } from "playwright-core";
import { DESKTOP, e2eDb, launchBrowser, MOBILE, newVisit } from "../support/browser.ts";
import { checked } from "../support/manageJourney.ts";
import { checkoutStarted, fillCard, fillRegistrationStep1, formStarted, fillTeamForm } from "../support/registrationForm.ts";
import { scaledMs } from "../support/timeouts.ts";

/**
 * The payment step as the best checkouts lay it out (issue 42, items 4 and 5): at 1280 px the summary beside Pay, at
 * 375 px Pay on the same screen as the card field, the deposit's consent one sentence with its full text one tap
 * away, and the balance paid with the saved card in one tap.
 */
let browser: Browser;
beforeAll(async () => {
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
});

const PLAN = "Pay today $75.00, then $224.00 on May 22, 2027";
const CONSENT = /^I authorize .+ to save this card and charge it for the remaining balance of \$224\.00 on May 22, 2027/;

async function box(locator: Locator) {
  const b = await locator.boundingBox();
  expect(b, "the element is laid out").not.toBeNull();
  return b!;
}

/** The summary's box and Pay's are side by side (apart horizontally) and, Pay in view, both on the screen at once. */
async function besideEachOther(summary: Locator, pay: Locator): Promise<void> {
  await pay.scrollIntoViewIfNeeded();
  const s = await box(summary);
  const p = await box(pay);
  const apart = s.x + s.width <= p.x || p.x + p.width <= s.x;
  expect(apart, `summary ${JSON.stringify(s)} beside Pay ${JSON.stringify(p)}`).toBe(true);
  const height = summary.page().viewportSize()!.height;
  for (const [name, b] of [["summary", s], ["Pay", p]] as const) expect(b.y >= 0 && b.y + b.height <= height, `the ${name} on the screen: ${JSON.stringify(b)}`).toBe(true);
}

/** Pay ends within one screen of where the card field starts: with the card field at the top, Pay is on screen. */
async function payOnTheCardsScreen(page: Page, cardField: Locator, pay: Locator): Promise<void> {
  const card = await box(cardField);
  const p = await box(pay);
  const height = page.viewportSize()!.height;
  expect(p.y, "Pay comes after the card field").toBeGreaterThan(card.y);
  expect(p.y + p.height - card.y, `Pay's bottom is ${Math.round(p.y + p.height - card.y)} px below the card field's top (screen ${height} px)`).toBeLessThanOrEqual(height);
}

async function toDepositPayment(page: Page, email: string, firstName: string): Promise<void> {
  await page.goto("/register/2");
  await formStarted(page, "RegistrationSteps");
  await page.getByLabel(PLAN).check();
  await fillRegistrationStep1(page, { firstName, lastName: "Layout", email, phone: "(702) 555-0100", grade: "9th", gender: "Female", schoolName: "Desert High", emergencyContactName: "Ana Layout", emergencyContactPhone: "702-555-0199" });
  await page.getByRole("button", { name: "Proceed to Payment" }).click();
  await page.getByRole("heading", { name: "Order Summary" }).waitFor();
  await page.getByRole("button", { name: "Test wallet" }).waitFor();
}

/** The consent: one sentence beside Pay; its full text (as stored) opens from it. */
async function consentOpens(page: Page): Promise<void> {
  const consent = page.locator("details.card-consent");
  expect(await consent.locator("summary").innerText()).toBe("You authorize us to save this card and charge the $224.00 balance on May 22, 2027. Read the full authorization");
  expect(await page.getByTestId("card-consent").isVisible()).toBe(false);
  await consent.locator("summary").click();
  expect(await page.getByTestId("card-consent").isVisible()).toBe(true);
  expect(await page.getByTestId("card-consent").innerText()).toMatch(CONSENT);
}

describe("the payment step's layout", () => {
  it("1280 px: a deposit's summary beside Pay, the consent's full text one tap away; then at 375 px the balance is paid with the saved card in one tap", async () => {
    const email = "layout.deposit@example.com";
    const { page, context } = await newVisit(browser, { viewport: DESKTOP });
    await toDepositPayment(page, email, "Maya");
    const pay = page.getByRole("button", { name: "Complete Payment - $75.00" });
    await besideEachOther(page.locator(".payment-summary"), pay);
    await besideEachOther(page.locator(".payment-summary"), page.getByRole("button", { name: "Test wallet" }));
    // The fieldset and the discount input look like the rest: no browser-default border, the site's input fill.
    const legendBorder = await page.locator(".payment-fieldset").evaluate((el) => getComputedStyle(el).borderTopStyle);
    expect(legendBorder).toBe("none");
    const codeFill = await page.getByLabel("Have a discount code?").evaluate((el) => getComputedStyle(el).backgroundColor);
    const fieldFill = await page.getByLabel("Card number").evaluate((el) => getComputedStyle(el.closest(".card-element")!).backgroundColor);
    expect(codeFill).toBe(fieldFill);
    await consentOpens(page);
    await checked(page);
    await fillCard(page, "4242 4242 4242 4242", "89101");
    await pay.click();
    await page.waitForURL(/\/event-registration\/2\?paymentSuccess=true/, { timeout: scaledMs(15_000) });
    const link = (await page.getByRole("link", { name: "See, change or cancel this registration" }).getAttribute("href"))!;
    await context.close();

    const phone = await newVisit(browser, { viewport: MOBILE });
    await phone.page.goto(link);
    await phone.page.getByRole("link", { name: "Pay the balance now" }).click();
    await phone.page.getByRole("heading", { name: "Pay Your Balance" }).waitFor();
    const saved = phone.page.getByRole("button", { name: "Pay $224.00 with Visa ending 4242" });
    await expect.poll(async () => {
      await phone.page.locator(".registration-page").hover({ position: { x: 10, y: 10 } });
      return (await saved.count()) > 0 && (await saved.isEnabled());
    }).toBe(true);
    // What the eye reads (the hidden "ending" is for screen readers, the dots hidden from them).
    const shown = await saved.evaluate((el) => [...el.childNodes].filter((n) => !(n instanceof Element && n.classList.contains("visually-hidden"))).map((n) => n.textContent).join(""));
    expect(shown).toBe("Pay $224.00 with Visa •••• 4242");
    // The saved card first, the wallet and another card beside it; the card field only for another card.
    await phone.page.getByRole("button", { name: "Test wallet" }).waitFor();
    expect(await phone.page.getByRole("button", { name: "Use another card" }).count()).toBe(1);
    expect(await phone.page.getByLabel("Card number").count()).toBe(0);
    await checked(phone.page);
    await saved.click();
    await phone.page.waitForURL((url) => !url.pathname.endsWith("/balance"), { timeout: scaledMs(15_000) });
    const db = e2eDb();
    try {
      await expect.poll(async () => (await db("registrations").where({ contact_email: email }).first()).status).toBe("paid");
      expect(await db("registrations").where({ contact_email: email }).first()).toMatchObject({ amount_paid_cents: 29900 });
    } finally {
      await db.destroy();
    }
    await phone.context.close();
  });

  it("375 px: Pay on the card field's screen, the consent one sentence that opens; another card on the balance page shows the card field", async () => {
    const email = "layout.phone@example.com";
    const { page, context } = await newVisit(browser, { viewport: MOBILE });
    await toDepositPayment(page, email, "Nora");
    const pay = page.getByRole("button", { name: "Complete Payment - $75.00" });
    await payOnTheCardsScreen(page, page.locator(".card-element"), pay);
    await consentOpens(page);
    await checked(page);
    await fillCard(page, "4242 4242 4242 4242", "89101");
    await pay.click();
    await page.waitForURL(/\/event-registration\/2\?paymentSuccess=true/, { timeout: scaledMs(15_000) });
    const link = (await page.getByRole("link", { name: "See, change or cancel this registration" }).getAttribute("href"))!;
    await page.goto(`${link}/balance`);
    const another = page.getByRole("button", { name: "Use another card" });
    await expect.poll(async () => {
      await page.locator(".registration-page").hover({ position: { x: 10, y: 10 } });
      return another.count();
    }).toBe(1);
    await another.click();
    // The focus follows into the card field that replaced the button (not back to the page's start).
    await expect.poll(() => page.getByLabel("Card number").evaluate((el) => el === document.activeElement)).toBe(true);
    const payNew = page.getByRole("button", { name: "Pay $224.00", exact: true });
    await payOnTheCardsScreen(page, page.locator(".card-element"), payNew);
    await checked(page);
    await page.getByRole("button", { name: "Pay with the saved card instead" }).click();
    const saved = page.getByRole("button", { name: "Pay $224.00 with Visa ending 4242" });
    await expect.poll(() => saved.evaluate((el) => el === document.activeElement)).toBe(true);
    await context.close();
  });

  it("the shop checkout: at 1280 px the totals beside Pay, at 375 px Pay on the card field's screen", async () => {
    const { page, context } = await newVisit(browser, { viewport: DESKTOP });
    await page.goto("/shop/heavyweight-tee?Size=L&Color=Black");
    await page.locator('[data-widget="ProductPicker"] h1').hover();
    await page.locator('[data-widget="ProductPicker"][data-hydrated="true"]').waitFor();
    const added = page.waitForResponse((r) => r.url().endsWith("/api/cart/add") && r.status() === 200);
    await page.getByRole("button", { name: "Add to Cart" }).click();
    await added;
    await page.goto("/cart");
    await page.locator(".cart-layout").hover({ position: { x: 5, y: 5 } });
    await page.locator('[data-widget="CardForm"][data-hydrated="true"]').waitFor();
    const pay = page.getByRole("button", { name: /^Pay \$/ });
    await besideEachOther(page.locator(".checkout-summary"), pay);
    await checked(page);
    await page.setViewportSize(MOBILE);
    await payOnTheCardsScreen(page, page.locator(".card-element"), pay);
    await checked(page);
    await context.close();
  });

  it("the team checkout at 1280 px: the details and the summary beside Pay", async () => {
    const { page, context } = await newVisit(browser, { viewport: DESKTOP });
    await page.goto("/team-register/1");
    await formStarted(page, "TeamForm");
    await fillTeamForm(page, { lastName: "Layout", coachEmail: "team.layout@example.com", athleteEmail: (n) => `layout.wrestler${n}@example.com` });
    await page.getByRole("button", { name: /^Register Team - / }).click();
    await page.waitForURL(/\/stripe-checkout\?eventId=1&.*option=team$/, { timeout: scaledMs(15_000) });
    await checkoutStarted(page);
    const pay = page.getByRole("button", { name: /^Complete Payment - / });
    await pay.waitFor();
    await besideEachOther(page.locator(".payment-summary"), pay);
    await besideEachOther(page.getByRole("region", { name: "Registration Details" }), page.getByRole("button", { name: "Test wallet" }));
    await checked(page);
    await context.close();
  });
});
