import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser, Page } from "playwright-core";
import { DESKTOP, launchBrowser } from "../support/browser.ts";
import { scaledMs } from "../support/timeouts.ts";
import { createTestApp, type TestApp } from "../support/app.ts";
import { createPaymentCore, type PaymentCore } from "../../src/payments/core.ts";

/**
 * The offline fake Stripe.js in Chromium, as the manage page's "Use another card" and "Pay the balance now" will
 * drive it: a card typed into the fake card Element saved with a SetupIntent (confirmSetup, with the 3-D Secure
 * challenge of 4000 0027 6000 3184), then a balance that needed authentication paid on session with that saved card
 * (confirmCardPayment with the payment method's id). The app is this file's own (its fake's secret key makes the intents).
 */
let t: TestApp;
let server: Server;
let core: PaymentCore;
let browser: Browser;
let origin = "";

const BALANCE = "e2e_balance";

beforeAll(async () => {
  t = await createTestApp();
  core = createPaymentCore({ db: t.db, gateway: t.gateway, logger: pino({ level: "silent" }) });
  core.register(BALANCE, { onPaid: () => Promise.resolve("accepted") });
  server = t.app.listen(0, "127.0.0.1");
  await new Promise((r) => server.once("listening", r));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  await new Promise((r) => server?.close(r));
  await t?.close();
});

/** A page of the site with the offline Stripe.js and a mounted card Element, kept on window for the steps below. */
async function cardPage(): Promise<Page> {
  const context = await browser.newContext({ baseURL: origin, viewport: DESKTOP });
  context.setDefaultTimeout(scaledMs(30_000));
  const page = await context.newPage();
  await page.goto("/");
  await page.addScriptTag({ url: "/__offline-stripe/stripe.js" });
  await page.evaluate((pk) => {
    const w = window as unknown as Record<string, unknown> & { Stripe: (pk: string) => { elements(): { create(type: string, o: object): { mount(el: HTMLElement): void } } } };
    const stripe = w.Stripe(pk);
    const elements = stripe.elements();
    const holder = document.createElement("div");
    document.body.prepend(holder);
    elements.create("card", { hidePostalCode: true }).mount(holder);
    w.testStripe = stripe;
    w.testElements = elements;
  }, t.gateway.publishableKey);
  return page;
}

describe("saved cards in the offline Stripe.js", () => {
  it("a 3184 card saved by confirmSetup after its challenge; its balance, refused off session, is paid on session with it", async () => {
    const reference = `E2E${Date.now().toString(36)}`.toUpperCase();
    const { customerId } = await core.ensureCustomer({ reference, email: "pat@example.com", name: "Pat Doe" });
    const { setupIntentId, clientSecret } = await core.startCardUpdate({ customerId });

    const page = await cardPage();
    await page.getByLabel("Card number").fill("4000002760003184");
    await page.getByLabel("Expiration date MM / YY").fill("1234");
    await page.getByLabel("Security code (CVC)").fill("123");
    const saving = page.evaluate(async (secret) => {
      const w = window as unknown as { testStripe: { confirmSetup(o: object): Promise<{ setupIntent?: { status: string }; error?: { message: string } }> }; testElements: unknown };
      const result = await w.testStripe.confirmSetup({ elements: w.testElements, clientSecret: secret, redirect: "if_required" });
      return { status: result.setupIntent?.status, error: result.error?.message };
    }, clientSecret);
    await page.getByRole("dialog", { name: "3D Secure test page" }).getByRole("button", { name: "Complete authentication" }).click();
    expect(await saving).toEqual({ status: "succeeded", error: undefined });
    const saved = await core.finishCardUpdate(setupIntentId);
    expect(saved.card).toEqual({ brand: "visa", last4: "3184", expMonth: 12, expYear: 2034 });

    const charged = await core.chargeSavedCard({ kind: BALANCE, reference, group: reference, customerId, paymentMethodId: saved.paymentMethodId, amountCents: 22400, description: `Balance ${reference}`, idempotencyKey: `${reference}-1` });
    expect(charged.outcome).toBe("authentication_required");
    const payable = await core.ensureIntent({ kind: BALANCE, reference, amountCents: 22400, description: `Balance ${reference}` });
    const paying = page.evaluate(
      async ({ secret, paymentMethod }) => {
        const w = window as unknown as { testStripe: { confirmCardPayment(s: string, d: object): Promise<{ paymentIntent?: { status: string }; error?: { message: string } }> } };
        const result = await w.testStripe.confirmCardPayment(secret, { payment_method: paymentMethod });
        return { status: result.paymentIntent?.status, error: result.error?.message };
      },
      { secret: payable.clientSecret, paymentMethod: saved.paymentMethodId },
    );
    await page.getByRole("dialog", { name: "3D Secure test page" }).getByRole("button", { name: "Complete authentication" }).click();
    expect(await paying).toEqual({ status: "succeeded", error: undefined });
    const settled = await core.settle(payable.payment.providerPaymentId!, "return");
    expect(settled).toMatchObject({ status: "paid", payment: { kind: BALANCE, reference, amountCents: 22400 } });
    await page.context().close();
  });
});
