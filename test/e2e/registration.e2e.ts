import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser, Page } from "playwright-core";
import { DESKTOP, e2eDb, launchBrowser, sentMails, MOBILE, newVisit, seriousA11yViolations } from "../support/browser.ts";
import { checkoutStarted, fillCard as fillCardElement, fillRegistrationStep1, formStarted } from "../support/registrationForm.ts";
import { scaledMs } from "../support/timeouts.ts";

let browser: Browser;
beforeAll(async () => {
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
});

const fillStep1 = (page: Page, email: string) =>
  fillRegistrationStep1(page, { firstName: "Jordan", lastName: "Reyes", email, phone: "(205) 555-0100", grade: "10th", gender: "Male", schoolName: "Central High", emergencyContactName: "Maria Reyes", emergencyContactPhone: "205-555-0199" });

const fillCard = (page: Page, card: string) => fillCardElement(page, card, "35203");

const hydrated = (page: Page) => formStarted(page, "RegistrationSteps");

async function placesLeftOnPage(page: Page, id: number): Promise<number> {
  const res = await page.context().request.get(`/api/events/${id}`);
  return (await res.json()).placesLeft as number;
}

describe("individual registration in Chromium", () => {
  it("registers for the National Champ Camp, 2 days (June 5 and 7), pays $238 with 4242 and gets the e-mail with its .ics", async () => {
    const { page, context, problems } = await newVisit(browser);
    const before = await placesLeftOnPage(page, 2);
    await page.goto("/events/2");
    await page.getByRole("link", { name: "Secure Registration" }).click();
    await page.waitForURL("**/register/2");
    await hydrated(page);
    expect(await page.getByRole("heading", { level: 1 }).textContent()).toBe("Register for National Champ Camp");
    await page.getByLabel(/2 Days/).check();
    await page.getByLabel("Saturday, June 5").check();
    await page.getByLabel("Monday, June 7").check();
    await fillStep1(page, "jordan.reg@example.com");
    await page.getByRole("button", { name: "Proceed to Payment" }).click();
    await page.getByRole("heading", { name: "Order Summary" }).waitFor();
    expect(await page.getByTestId("registration-total").textContent()).toBe("$238.00");
    expect(await page.getByTestId("registration-option").textContent()).toBe("2 Days");
    expect(await page.getByTestId("registration-days").textContent()).toBe("Saturday, June 5, Monday, June 7");
    expect(await page.locator('[aria-current="step"]').innerText()).toContain("Payment");
    expect(page.url()).not.toContain("secret");

    await fillCard(page, "4242 4242 4242 4242");
    await page.getByRole("button", { name: "Complete Payment - $238.00" }).click();
    await page.waitForURL(/\/event-registration\/2\?paymentSuccess=true&paymentIntentId=pi_/, { timeout: scaledMs(15_000) });
    expect(await page.locator(".registration-confirmed h2").textContent()).toBe("Payment Confirmed - Registration Complete!");
    expect(await page.locator(".registration-confirmed").innerText()).toContain("jordan.reg@example.com");
    expect(page.url()).not.toContain("secret");

    const db = e2eDb();
    try {
      const registration = await db("registrations").where({ contact_email: "jordan.reg@example.com" }).first();
      expect(registration).toMatchObject({ status: "paid", amount_paid_cents: 23800, package_code: "2day" });
      const days = await db("registration_days as rd").join("event_days as d", "d.id", "rd.event_day_id").where("rd.registration_id", registration.id).orderBy("d.sort_order").pluck("d.day_date");
      expect(days.map((d: unknown) => new Date(typeof d === "number" ? d : Number(d)).toISOString().slice(0, 10))).toEqual(["2027-06-05", "2027-06-07"]);
      await expectSoon(() => {
        const mails = sentMails();
        const mail = mails.find((m) => m.includes(registration.reference) && m.includes("registered"));
        return Boolean(mail && mail.includes(`${registration.reference}.ics`) && mail.includes("text/calendar"));
      });
    } finally {
      await db.destroy();
    }
    expect(await placesLeftOnPage(page, 2)).toBe(before - 1);
    await page.goto("/events/2");
    expect(await page.locator("body").innerText()).toContain(`${before - 1} of 200 places left`);
    expect(problems).toEqual([]);
    await context.close();
  });

  it("shows 'Payment Failed' for a declined card, then pays with a good one", async () => {
    const { page, context } = await newVisit(browser, { viewport: MOBILE });
    await page.goto("/register/4");
    await hydrated(page);
    await page.getByLabel(/Single Day/).check();
    await page.getByLabel("Tuesday, June 15").check();
    await fillStep1(page, "declined.reg@example.com");
    await page.getByRole("button", { name: "Proceed to Payment" }).click();
    await page.getByRole("heading", { name: "Order Summary" }).waitFor();
    await fillCard(page, "4000 0000 0000 0002");
    await page.getByRole("button", { name: "Complete Payment - $99.00" }).click();
    await page.locator(".payment-error").waitFor();
    expect(await page.locator(".payment-error").innerText()).toContain("Your card was declined.");
    expect(await page.locator("#toast-region .toast:not([hidden]) .toast-title").last().textContent()).toBe("Payment Failed");
    await fillCard(page, "4242 4242 4242 4242");
    await page.getByRole("button", { name: "Complete Payment - $99.00" }).click();
    await page.waitForURL(/\/event-registration\/4\?paymentSuccess=true/, { timeout: scaledMs(15_000) });
    expect(await page.locator(".registration-confirmed h2").textContent()).toBe("Payment Confirmed - Registration Complete!");
    await context.close();
  });

  it("follows 3-D Secure with Stripe's card 4000 0025 0000 3155: a failed challenge keeps the form, a completed one confirms", async () => {
    const { page, context } = await newVisit(browser, { viewport: MOBILE });
    await page.goto("/register/4");
    await hydrated(page);
    await page.getByLabel(/Single Day/).check();
    await page.getByLabel("Tuesday, June 15").check();
    await fillStep1(page, "three.ds@example.com");
    await page.getByRole("button", { name: "Proceed to Payment" }).click();
    await page.getByRole("heading", { name: "Order Summary" }).waitFor();
    await fillCard(page, "4000 0025 0000 3155");
    await page.getByRole("button", { name: "Complete Payment - $99.00" }).click();
    const challenge = page.getByRole("dialog", { name: "3D Secure test page" });
    await challenge.waitFor();
    expect(await seriousA11yViolations(page)).toEqual([]);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(MOBILE.width);
    await challenge.getByRole("button", { name: "Fail authentication" }).click();
    await page.locator(".payment-error").waitFor();
    expect(await page.locator(".payment-error").innerText()).toContain("Your bank could not confirm this payment, so nothing was charged.");
    // The hold stays: the same form pays, through the challenge again.
    await fillCard(page, "4000 0025 0000 3155");
    await page.getByRole("button", { name: "Complete Payment - $99.00" }).click();
    await challenge.getByRole("button", { name: "Complete authentication" }).click();
    await page.waitForURL(/\/event-registration\/4\?paymentSuccess=true/, { timeout: scaledMs(15_000) });
    expect(await page.locator(".registration-confirmed h2").textContent()).toBe("Payment Confirmed - Registration Complete!");
    const reference = new URL(page.url()).searchParams.get("paymentIntentId");
    expect(reference).toMatch(/^pi_/);
    const payment = await e2eDb()("payments").where({ provider_payment_id: reference }).first();
    expect(payment).toMatchObject({ status: "paid" });
    await context.close();
  });

  it("a card that went through while the return call failed: 'Payment received', no second payment, then the confirmation", async () => {
    const { page, context } = await newVisit(browser, { viewport: MOBILE });
    await page.goto("/register/4");
    await hydrated(page);
    await page.getByLabel(/Single Day/).check();
    await page.getByLabel("Tuesday, June 15").check();
    await fillStep1(page, "lost.return@example.com");
    await page.getByRole("button", { name: "Proceed to Payment" }).click();
    await page.getByRole("heading", { name: "Order Summary" }).waitFor();
    // The first return call is lost (the network, a restart); the widget's background retry gets through.
    let dropped = 0;
    await page.route("**/api/events/4/stripe-payment-success", (route) => (dropped++ === 0 ? route.abort("connectionreset") : route.continue()));
    await fillCard(page, "4242 4242 4242 4242");
    await page.getByRole("button", { name: "Complete Payment - $99.00" }).click();
    const received = page.getByTestId("payment-received");
    await received.waitFor();
    expect(await received.innerText()).toContain("Your confirmation will follow by e-mail; please do not pay again.");
    expect(await page.getByRole("button", { name: /Complete Payment/ }).count()).toBe(0);
    await page.waitForURL(/\/event-registration\/4\?paymentSuccess=true/, { timeout: scaledMs(15_000) });
    expect(await page.locator(".registration-confirmed h2").textContent()).toBe("Payment Confirmed - Registration Complete!");
    expect(dropped).toBe(2);
    await context.close();
  });

  for (const fault of ["a 503 from the server", "no answer at all"] as const) {
    it(`a card that went through while the return call got ${fault}: 'Payment received: we will e-mail your confirmation', never an error`, async () => {
      const { page, context } = await newVisit(browser, { viewport: MOBILE });
      try {
        await page.goto("/register/4");
        await hydrated(page);
        await page.getByLabel(/Single Day/).check();
        await page.getByLabel("Tuesday, June 15").check();
        await fillStep1(page, `fault.${fault.length}@example.com`);
        await page.getByRole("button", { name: "Proceed to Payment" }).click();
        await page.getByRole("heading", { name: "Order Summary" }).waitFor();
        // The database, Redis or Stripe in trouble: the return route answers 503 (or nothing) until it is let through.
        let released = false;
        const held: (() => Promise<void>)[] = [];
        await page.route("**/api/events/4/stripe-payment-success", async (route) => {
          if (released) return route.continue();
          if (fault === "no answer at all") return void held.push(() => route.continue());
          await route.fulfill({ status: 503, contentType: "application/json", body: JSON.stringify({ error: "Payment system is temporarily unavailable. Please try again in a few moments." }) });
        });
        await fillCard(page, "4242 4242 4242 4242");
        await page.getByRole("button", { name: "Complete Payment - $99.00" }).click();
        const received = page.getByTestId("payment-received");
        await received.waitFor({ timeout: scaledMs(20_000) });
        // Its words as written (the heading's style shows it in capitals).
        const text = (await received.textContent()) ?? "";
        expect(text).toContain("Payment received: we will e-mail your confirmation");
        expect(text).not.toMatch(/temporarily unavailable|error/i);
        expect(await page.getByRole("alert").count()).toBe(0);
        expect(await page.getByRole("button", { name: /Complete Payment/ }).count()).toBe(0);
        // The trouble ends: the payment is recorded once and the visitor lands on the confirmation.
        released = true;
        for (const go of held) await go();
        await page.waitForURL(/\/event-registration\/4\?paymentSuccess=true/, { timeout: scaledMs(60_000) });
        const intentId = new URL(page.url()).searchParams.get("paymentIntentId");
        expect(await e2eDb()("payments").where({ provider_payment_id: intentId })).toHaveLength(1);
      } finally {
        await context.close();
      }
    });
  }

  it("works without JavaScript through step 1: errors with kept values, then the held place and step 2's summary", async () => {
    const { page, context } = await newVisit(browser, { javaScript: false });
    await page.goto("/register/1");
    await page.getByLabel("First Name").fill("Casey");
    await page.getByRole("button", { name: "Proceed to Payment" }).click();
    await page.waitForURL("**/register/1");
    const text = await page.locator("body").innerText();
    expect(text).toContain("This field is required");
    expect(text).toContain("You must agree to the terms and conditions");
    expect(await page.getByLabel("First Name").inputValue()).toBe("Casey");
    await fillStep1(page, "nojs.reg@example.com");
    await page.getByRole("button", { name: "Proceed to Payment" }).click();
    await page.waitForURL("**/register/1?step=payment");
    const step2 = await page.locator("body").innerText();
    expect(step2).toMatch(/Order Summary/i);
    expect(step2).toContain("Full Event");
    expect(step2).toContain("$249.00");
    expect(step2).toContain("Card payment needs JavaScript");
    await page.getByRole("link", { name: "Back", exact: true }).click();
    expect(await page.getByLabel("Emergency Contact Name").inputValue()).toBe("Maria Reyes");
    await context.close();
  });

  it("/stripe-checkout carries the brand and says each fact once", async () => {
    const { page, context } = await newVisit(browser, { viewport: MOBILE });
    await page.goto("/register/2");
    await hydrated(page);
    await page.getByLabel(/^1 Day/).check();
    await page.getByLabel("Sunday, June 6").check();
    await fillStep1(page, "facts.once@example.com");
    await page.getByRole("button", { name: "Proceed to Payment" }).click();
    await page.getByRole("heading", { name: "Order Summary" }).waitFor();
    await page.goto("/stripe-checkout?eventId=2&eventName=National%20Champ%20Camp");
    await checkoutStarted(page);
    expect(await page.getByRole("link", { name: "Ironside Wrestling home" }).count()).toBe(1);
    const main = (await page.locator("main").innerText()).replace(/\s+/g, " ");
    const count = (s: string) => main.split(s).length - 1;
    expect(count("National Champ Camp")).toBe(1);
    expect(count("Sunday, June 6")).toBe(1);
    expect(count("Jordan Reyes")).toBe(1);
    // The amount once in the summary; the button says what it pays.
    expect(await page.locator("main dl").getByText("$119.00").count()).toBe(1);
    await context.close();
  });

  it("takes a 1-day package without JavaScript on the first submit: every day box enabled, the hint says what to tick", async () => {
    const { page, context } = await newVisit(browser, { javaScript: false, viewport: MOBILE });
    await page.goto("/register/2");
    const days = page.getByRole("group", { name: "Select Days" });
    expect(await days.locator(".field-hint").textContent()).toMatch(/includes every day \(no need to tick any\)\. For 2 Days, tick 2 days; for 1 Day, tick 1 day\./);
    for (const box of await days.getByRole("checkbox").all()) {
      expect(await box.isEnabled()).toBe(true);
      expect(await box.isChecked()).toBe(false);
    }
    // Two days for a 1-day package: the server's rule, the spec's message, nothing held.
    await page.getByLabel(/^1 Day/).check();
    await days.getByLabel("Sunday, June 6").check();
    await days.getByLabel("Monday, June 7").check();
    await fillStep1(page, "oneday.nojs@example.com");
    await page.getByRole("button", { name: "Proceed to Payment" }).click();
    await page.waitForURL("**/register/2");
    expect(await page.locator("body").innerText()).toContain("You must select exactly 1 day to match your chosen package");
    const db = e2eDb();
    try {
      expect(await db("registrations").where({ contact_email: "oneday.nojs@example.com" }).count({ n: "*" }).first()).toMatchObject({ n: 0 });
      // One day ticked: the first submit of a fresh form reaches payment.
      await page.goto("/register/2");
      await page.getByLabel(/^1 Day/).check();
      await page.getByRole("group", { name: "Select Days" }).getByLabel("Sunday, June 6").check();
      await fillStep1(page, "oneday.nojs@example.com");
      await page.getByRole("button", { name: "Proceed to Payment" }).click();
      await page.waitForURL("**/register/2?step=payment");
      expect(await page.getByTestId("registration-option").textContent()).toBe("1 Day");
      const registration = await db("registrations").where({ contact_email: "oneday.nojs@example.com" }).first();
      expect(registration).toMatchObject({ status: "pending_payment", package_code: "1day" });
      const chosen = await db("registration_days as rd").join("event_days as d", "d.id", "rd.event_day_id").where("rd.registration_id", registration.id).pluck("d.day_date");
      expect(chosen.map((d: unknown) => new Date(typeof d === "number" ? d : Number(d)).toISOString().slice(0, 10))).toEqual(["2027-06-06"]);
    } finally {
      await db.destroy();
    }
    await context.close();
  });

  for (const viewport of [MOBILE, DESKTOP]) {
    it(`has no serious accessibility violations on each step and the checkout page at ${viewport.width} px`, async () => {
      const { page, context } = await newVisit(browser, { viewport });
      await page.goto("/register/3");
      await hydrated(page);
      expect(await seriousA11yViolations(page), `step 1 ${viewport.width}`).toEqual([]);
      await page.getByRole("button", { name: "Proceed to Payment" }).click();
      await page.locator(".field-error").first().waitFor();
      expect(await seriousA11yViolations(page), `step 1 errors ${viewport.width}`).toEqual([]);
      await fillStep1(page, `a11y${viewport.width}@example.com`);
      await page.getByRole("button", { name: "Proceed to Payment" }).click();
      await page.getByRole("heading", { name: "Order Summary" }).waitFor();
      expect(await seriousA11yViolations(page), `step 2 ${viewport.width}`).toEqual([]);
      // The same held registration on the checkout page, which takes the card just as well.
      await page.goto("/stripe-checkout?eventId=3&eventName=Texas%20Recruiting%20Clinic");
      await checkoutStarted(page);
      expect(await page.getByRole("heading", { level: 1 }).textContent()).toBe("Complete Your Registration");
      expect(await page.locator(".site-header").count()).toBe(0);
      expect(await seriousA11yViolations(page), `checkout ${viewport.width}`).toEqual([]);
      await fillCard(page, "4242 4242 4242 4242");
      await page.getByRole("button", { name: /Complete Payment/ }).click();
      await page.waitForURL(/paymentSuccess=true/, { timeout: scaledMs(15_000) });
      expect(await seriousA11yViolations(page), `confirmation ${viewport.width}`).toEqual([]);
      await page.goto("/register/999");
      expect(await seriousA11yViolations(page), `not found ${viewport.width}`).toEqual([]);
      await context.close();
    });
  }
});

async function expectSoon(check: () => boolean, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (check()) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  expect(check()).toBe(true);
}
