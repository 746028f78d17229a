import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser, Page } from "playwright-core";
import { e2eDb, launchBrowser, MOBILE, newVisit, seriousA11yViolations, sentMails } from "../support/browser.ts";
import { fillCard, fillRegistrationStep1, formStarted, fillTeamForm } from "../support/registrationForm.ts";
import { scaledMs } from "../support/timeouts.ts";

let browser: Browser;
beforeAll(async () => {
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
});

/** At 375 px: a single day of event 4 ($99), up to its payment step; `beforePayment` runs just before it. */
async function toPaymentStep(page: Page, email: string, beforePayment?: () => Promise<void>): Promise<void> {
  await page.goto("/register/4");
  await formStarted(page, "RegistrationSteps");
  await page.getByLabel(/Single Day/).check();
  await page.getByLabel("Tuesday, June 15").check();
  await fillRegistrationStep1(page, { firstName: "Avery", lastName: "Wallet", email, phone: "(205) 555-0100", grade: "10th", gender: "Female", schoolName: "Central High", emergencyContactName: "Sam Wallet", emergencyContactPhone: "205-555-0199" });
  await beforePayment?.();
  await page.getByRole("button", { name: "Proceed to Payment" }).click();
  await page.getByRole("heading", { name: "Order Summary" }).waitFor();
  await page.getByRole("button", { name: "Test wallet" }).waitFor();
}

/** The fake wallet: its card, its button, its sheet's Pay. */
async function payWithTestWallet(page: Page, card: "success" | "decline" | "three_d_secure", amount: string): Promise<void> {
  await page.getByLabel("Test wallet card").selectOption(card);
  await page.getByRole("button", { name: "Test wallet" }).click();
  const sheet = page.getByRole("dialog", { name: "Test wallet" });
  await sheet.waitFor();
  await sheet.getByRole("button", { name: `Pay ${amount}` }).click();
}

const confirmed = async (page: Page) => {
  await page.waitForURL(/\/event-registration\/4\?paymentSuccess=true&paymentIntentId=pi_/, { timeout: scaledMs(15_000) });
  expect(await page.locator(".registration-confirmed h2").textContent()).toBe("Payment Confirmed - Registration Complete!");
};

describe("wallet payments (Express Checkout Element, the offline Test wallet) at 375 px", () => {
  it("pays a registration with the test wallet: no card typed, the same confirmation, e-mail and payment row as a card", async () => {
    const { page, context, problems } = await newVisit(browser, { viewport: MOBILE });
    // The wallet's code (its own chunk, the only script with its "Or pay by card") comes with the payment step.
    const walletScripts: string[] = [];
    page.on("response", (r) => {
      if (r.request().resourceType() !== "script") return;
      void r.text().then((body) => {
        if (body.includes("Or pay by card")) walletScripts.push(new URL(r.url()).pathname);
      }, () => {});
    });
    await toPaymentStep(page, "avery.wallet@example.com", async () => {
      expect(walletScripts).toEqual([]);
    });
    await expect.poll(() => walletScripts.length).toBe(1);
    expect(await page.locator(".test-mode-banner").innerText()).toContain("Test wallet");
    // The wallet sits above the card form, with the card as the other way.
    await page.getByTestId("wallet-pay").getByText("Or pay by card").waitFor();
    expect(await seriousA11yViolations(page)).toEqual([]);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(MOBILE.width);
    await page.getByRole("button", { name: "Test wallet" }).click();
    const sheet = page.getByRole("dialog", { name: "Test wallet" });
    await sheet.waitFor();
    expect(await sheet.innerText()).toContain("$99.00");
    expect(await seriousA11yViolations(page)).toEqual([]);
    await sheet.getByRole("button", { name: "Pay $99.00" }).click();
    await confirmed(page);
    const intentId = new URL(page.url()).searchParams.get("paymentIntentId");
    const db = e2eDb();
    try {
      const registration = await db("registrations").where({ contact_email: "avery.wallet@example.com" }).first();
      expect(registration).toMatchObject({ status: "paid", amount_paid_cents: 9900 });
      const payment = await db("payments").where({ kind: "registration", reference: registration.reference }).first();
      expect(payment).toMatchObject({ status: "paid", amount_cents: 9900, provider_payment_id: intentId });
      await expect.poll(() => sentMails().some((m) => m.includes(registration.reference) && m.includes("registered"))).toBe(true);
    } finally {
      await db.destroy();
    }
    expect(problems).toEqual([]);
    await context.close();
  });

  it("a declined wallet says so and nothing is charged; closing the sheet changes nothing; the card then pays", async () => {
    const { page, context } = await newVisit(browser, { viewport: MOBILE });
    await toPaymentStep(page, "declined.wallet@example.com");
    // Closing the sheet: no payment, the form is usable again.
    await page.getByRole("button", { name: "Test wallet" }).click();
    await page.getByRole("dialog", { name: "Test wallet" }).getByRole("button", { name: "Cancel" }).click();
    expect(await page.getByRole("button", { name: "Complete Payment - $99.00" }).isEnabled()).toBe(true);
    await payWithTestWallet(page, "decline", "$99.00");
    await page.locator(".payment-error").waitFor();
    expect(await page.locator(".payment-error").innerText()).toContain("Your card was declined.");
    expect(await seriousA11yViolations(page)).toEqual([]);
    const db = e2eDb();
    try {
      const registration = await db("registrations").where({ contact_email: "declined.wallet@example.com" }).first();
      expect(registration.status).not.toBe("paid");
      await fillCard(page, "4242 4242 4242 4242", "35203");
      await page.getByRole("button", { name: "Complete Payment - $99.00" }).click();
      await confirmed(page);
      expect((await db("payments").where({ kind: "registration", reference: registration.reference })).map((p: { status: string }) => p.status)).toEqual(["paid"]);
    } finally {
      await db.destroy();
    }
    await context.close();
  });

  it("a 3-D Secure wallet card: the bank's challenge, a failed one keeps the form, a completed one confirms", async () => {
    const { page, context } = await newVisit(browser, { viewport: MOBILE });
    await toPaymentStep(page, "secure.wallet@example.com");
    await payWithTestWallet(page, "three_d_secure", "$99.00");
    const challenge = page.getByRole("dialog", { name: "3D Secure test page" });
    await challenge.getByRole("button", { name: "Fail authentication" }).click();
    await page.locator(".payment-error").waitFor();
    expect(await page.locator(".payment-error").innerText()).toContain("Your bank could not confirm this payment, so nothing was charged.");
    await payWithTestWallet(page, "three_d_secure", "$99.00");
    await challenge.getByRole("button", { name: "Complete authentication" }).click();
    await confirmed(page);
    await context.close();
  });

  it("a deposit paid with the test wallet saves it for the balance; the balance page pays the rest with the wallet too", async () => {
    const email = "deposit.wallet@example.com";
    const { page, context } = await newVisit(browser, { viewport: MOBILE });
    await page.goto("/register/2");
    await formStarted(page, "RegistrationSteps");
    await page.getByLabel("Pay today $75.00, then $224.00 on May 22, 2027").check();
    await fillRegistrationStep1(page, { firstName: "Maya", lastName: "Wallet", email, phone: "(702) 555-0100", grade: "9th", gender: "Female", schoolName: "Desert High", emergencyContactName: "Ana Wallet", emergencyContactPhone: "702-555-0199" });
    await page.getByRole("button", { name: "Proceed to Payment" }).click();
    await page.getByRole("heading", { name: "Order Summary" }).waitFor();
    await page.getByTestId("wallet-pay").getByText("A wallet you pay the deposit with is saved for the balance").waitFor();
    // The element is created with the PaymentIntent's setup_future_usage, or the (fake) Stripe.js refuses to confirm.
    await payWithTestWallet(page, "success", "$75.00");
    await page.waitForURL(/\/event-registration\/2\?paymentSuccess=true/, { timeout: scaledMs(15_000) });
    const db = e2eDb();
    try {
      const deposit = await db("registrations").where({ contact_email: email }).first();
      expect(deposit).toMatchObject({ status: "deposit_paid", amount_paid_cents: 7500, card_brand: "visa", card_last4: "4242" });
      expect(deposit.payment_method_id).toMatch(/^pm_/);
      const link = (await page.getByRole("link", { name: "See, change or cancel this registration" }).getAttribute("href"))!;
      await page.goto(link);
      await page.getByRole("link", { name: "Pay the balance now" }).click();
      await page.getByRole("heading", { name: "Pay Your Balance" }).waitFor();
      const wallet = page.getByRole("button", { name: "Test wallet" });
      await expect.poll(async () => {
        await page.locator(".registration-page").hover({ position: { x: 10, y: 10 } });
        return wallet.count();
      }).toBe(1);
      expect(await seriousA11yViolations(page)).toEqual([]);
      await payWithTestWallet(page, "success", "$224.00");
      await page.waitForURL((url) => !url.pathname.endsWith("/balance"), { timeout: scaledMs(15_000) });
      await expect.poll(async () => (await db("registrations").where({ contact_email: email }).first()).status).toBe("paid");
      expect(await db("registrations").where({ contact_email: email }).first()).toMatchObject({ amount_paid_cents: 29900 });
    } finally {
      await db.destroy();
    }
    await context.close();
  });

  it("pays a team of 5 with the test wallet on the team checkout", async () => {
    const email = "team.wallet@example.com";
    const { page, context } = await newVisit(browser, { viewport: MOBILE });
    await page.goto("/team-register/1");
    await formStarted(page, "TeamForm");
    await fillTeamForm(page, { lastName: "Wallet", coachEmail: email, athleteEmail: (n) => `wallet.wrestler${n}@example.com` });
    await page.getByRole("button", { name: /^Register Team - / }).click();
    await page.waitForURL(/\/stripe-checkout\?eventId=1&.*option=team$/, { timeout: scaledMs(15_000) });
    await page.locator(".checkout-page h1").first().hover();
    await page.locator('[data-widget="PaymentPanel"][data-hydrated="true"]').waitFor();
    const total = (await page.getByTestId("registration-total").textContent())!;
    await payWithTestWallet(page, "success", total);
    await page.waitForURL(/option=team&success=true/, { timeout: scaledMs(15_000) });
    expect(await page.getByRole("heading", { level: 1 }).textContent()).toBe("Registration Complete!");
    const db = e2eDb();
    try {
      const registration = await db("registrations").where({ contact_email: email }).first();
      expect(registration).toMatchObject({ kind: "team", status: "paid", places: 5 });
      expect((await db("payments").where({ reference: registration.reference }).first()).status).toBe("paid");
    } finally {
      await db.destroy();
    }
    await context.close();
  });

  it("pays a shop order with the test wallet: the sheet shows the flat shipping and gives the address and e-mail", async () => {
    const { page, context, problems } = await newVisit(browser, { viewport: MOBILE });
    await page.goto("/shop/heavyweight-tee?Size=XL&Color=Black");
    await page.locator('[data-widget="ProductPicker"] h1').hover();
    await page.locator('[data-widget="ProductPicker"][data-hydrated="true"]').waitFor();
    const added = page.waitForResponse((r) => r.url().endsWith("/api/cart/add") && r.status() === 200);
    await page.getByRole("button", { name: "Add to Cart" }).click();
    await added;
    await page.goto("/cart");
    await page.locator(".cart-layout").hover({ position: { x: 5, y: 5 } });
    await page.locator('[data-widget="CardForm"][data-hydrated="true"]').waitFor();
    await page.getByRole("button", { name: "Test wallet" }).click();
    const sheet = page.getByRole("dialog", { name: "Test wallet" });
    await sheet.waitFor();
    const text = await sheet.innerText();
    expect(text).toContain("Shipping (Standard shipping)");
    expect(text).toContain("$7.95");
    expect(text).toContain("Ship to Jordan Wallet, 400 Wallet Way, Birmingham, AL 35203");
    expect(await seriousA11yViolations(page)).toEqual([]);
    await sheet.getByLabel("E-mail").fill("tee.wallet@example.com");
    await sheet.getByRole("button", { name: "Pay $39.95" }).click();
    await page.waitForURL("**/shop?success=true", { timeout: scaledMs(15_000) });
    expect(await page.locator(".order-panel").innerText()).toContain("400 Wallet Way");
    const db = e2eDb();
    try {
      const order = await db("orders").where({ customer_email: "tee.wallet@example.com" }).first();
      expect(order).toMatchObject({ status: "paid", shipping_cents: 795, total_cents: 3995, ship_line1: "400 Wallet Way", ship_city: "Birmingham", ship_state: "AL", ship_zip: "35203" });
      expect((await db("payments").where({ reference: order.reference }).first()).status).toBe("paid");
    } finally {
      await db.destroy();
    }
    expect(problems).toEqual([]);
    await context.close();
  });
});
