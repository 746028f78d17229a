import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { Browser, Page } from "playwright-core";
import knexFactory, { type Knex } from "knex";
import { launchBrowser, MOBILE, newVisit } from "../support/browser.ts";
import { checked, mailsTo } from "../support/manageJourney.ts";
import { fillCard, fillRegistrationStep1, formStarted } from "../support/registrationForm.ts";
import { startServer, type RunningServer } from "../support/server.ts";
import { writeClockFile } from "../../src/clock.ts";

/**
 * A deposit's balance over time at 375 px (README: Deposits and balances). Each journey has its own server (its own
 * SQLite file and mail folder), whose clock follows a temporary CLOCK_FILE the test moves forward, never back, and
 * whose balance job runs every half second (BALANCE_JOB_INTERVAL_MS), so the reminder and the due date come without
 * waiting a minute. The e2e server's clock is never moved: other files' journeys run on it at the same time.
 */
const DAY_MS = 86_400_000;
const PLAN = "Pay today $75.00, then $224.00 on May 22, 2027";

let browser: Browser;
let server: RunningServer | undefined;
let dir = "";
let clockFile = "";
let mailDir = "";
let db: Knex | undefined;

beforeAll(async () => {
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
});
beforeEach(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "e2e-balances-"));
  clockFile = path.join(dir, "clock.json");
  mailDir = path.join(dir, "mail");
  const sqlitePath = path.join(dir, "app.sqlite3");
  server = await startServer({ SQLITE_PATH: sqlitePath, MAIL_DIR: mailDir, CLOCK_FILE: clockFile, BALANCE_JOB_INTERVAL_MS: "500" });
  db = knexFactory({ client: "better-sqlite3", connection: { filename: sqlitePath }, useNullAsDefault: true });
});
afterEach(async () => {
  await db?.destroy();
  await server?.stop();
  db = undefined;
  server = undefined;
  fs.rmSync(dir, { recursive: true, force: true });
});

/** The server's clock (and its offline Stripe's) moved to `at`: the offset from the real time, read within a second. */
function moveServerClockTo(at: Date): void {
  writeClockFile(Math.max(0, at.getTime() - Date.now()), clockFile);
}

const registration = async (email: string) => (await db!("registrations").where({ contact_email: email }).first()) as Record<string, unknown>;
const dueAtOf = (value: unknown) => new Date(typeof value === "number" || /^\d+$/.test(String(value)) ? Number(value) : String(value));
const balanceCharges = async (email: string) => db!("balance_charges").where({ registration_id: Number((await registration(email)).id) }).orderBy("attempt");

/** The e-mails to `email` whose text holds `text`, once the outbox has written at least one. */
async function mailHolding(email: string, text: string): Promise<string> {
  await expect.poll(() => mailsTo(email, mailDir).filter((m) => m.includes(text)).length).toBeGreaterThan(0);
  return mailsTo(email, mailDir).find((m) => m.includes(text))!;
}

/** The 3-D Secure page of the offline Stripe.js, passed. */
async function passThreeDSecure(page: Page): Promise<void> {
  await page.getByRole("dialog", { name: "3D Secure test page" }).getByRole("button", { name: "Complete authentication" }).click();
}

/** The deposit journey of test/e2e/deposits.e2e.ts with `card`: answers the manage page's link and the balance's due date. */
async function payDeposit(page: Page, email: string, card: string, firstName: string): Promise<{ manageLink: string; dueAt: Date }> {
  await page.goto("/register/2");
  await formStarted(page, "RegistrationSteps");
  await page.getByLabel(PLAN).check();
  await fillRegistrationStep1(page, { firstName, lastName: "Ortiz", email, phone: "(702) 555-0100", grade: "9th", gender: "Female", schoolName: "Desert High", emergencyContactName: "Ana Ortiz", emergencyContactPhone: "702-555-0199" });
  await page.getByRole("button", { name: "Proceed to Payment" }).click();
  await page.getByRole("heading", { name: "Order Summary" }).waitFor();
  await fillCard(page, card, "89101");
  await page.getByRole("button", { name: "Complete Payment - $75.00" }).click();
  if (card.startsWith("4000 0027")) await passThreeDSecure(page);
  await page.waitForURL(/\/event-registration\/2\?paymentSuccess=true/);
  await page.getByText("$224.00 due on May 22, 2027").waitFor();
  const manageLink = (await page.getByRole("link", { name: "See, change or cancel this registration" }).getAttribute("href"))!;
  await expect.poll(async () => (await registration(email)).payment_method_id).toBeTruthy();
  const r = await registration(email);
  expect(r).toMatchObject({ status: "deposit_paid", amount_paid_cents: 7500, card_last4: card.slice(-4) });
  return { manageLink, dueAt: dueAtOf(r.balance_due_at) };
}

/** The manage page of a registration paid in full: $299 paid, no balance left. */
async function showsPaidInFull(page: Page, manageLink: string): Promise<void> {
  await page.goto(manageLink);
  const facts = await page.locator(".manage-facts").innerText();
  expect(facts).toMatch(/Amount paid\s+\$299\.00/);
  expect(facts).not.toContain("Balance due");
  expect(await page.getByTestId("manage-balance").count()).toBe(0);
  await checked(page);
}

describe("a deposit's balance over time at 375 px, JavaScript on", () => {
  it("4242: the reminder e-mail 7 days before the due date, then on the due date one $224 charge, the receipt, and the manage page paid in full", async () => {
    const email = "balance.charged@example.com";
    const { page, context } = await newVisit(browser, { viewport: MOBILE, baseURL: server!.url });
    const { manageLink, dueAt } = await payDeposit(page, email, "4242 4242 4242 4242", "Maya");

    moveServerClockTo(new Date(dueAt.getTime() - 7 * DAY_MS + 60_000));
    const reminder = await mailHolding(email, "We will charge it on");
    expect(reminder).toContain("The balance for");
    expect(reminder).toContain("is $224.00. We will charge it on May 22, 2027 to the saved card, Visa ending 4242");
    expect(await balanceCharges(email)).toHaveLength(0);

    moveServerClockTo(new Date(dueAt.getTime() + 60_000));
    const receipt = await mailHolding(email, "We received the balance of");
    expect(receipt).toContain("We received the balance of $224.00");
    expect(receipt).toContain("It is paid in full: $299.00.");
    expect((await balanceCharges(email)).map((c) => [c.status, c.amount_cents])).toEqual([["succeeded", 22400]]);
    expect(await registration(email)).toMatchObject({ status: "paid", amount_paid_cents: 29900 });
    expect(await db!("payments").where({ kind: "registration_balance", reference: (await registration(email)).reference })).toHaveLength(1);

    await showsPaidInFull(page, manageLink);
    await context.close();
  });

  it("3184: on the due date the job e-mails a link instead of charging; the parent pays on the manage page through 3-D Secure, and it is paid in full", async () => {
    const email = "balance.authenticate@example.com";
    const { page, context } = await newVisit(browser, { viewport: MOBILE, baseURL: server!.url });
    const { dueAt } = await payDeposit(page, email, "4000 0027 6000 3184", "Nora");

    moveServerClockTo(new Date(dueAt.getTime() + 60_000));
    const asked = await mailHolding(email, "Your bank asks you to confirm the balance");
    expect(asked).toContain("Your bank asks you to confirm the balance of $224.00");
    expect((await balanceCharges(email)).map((c) => c.status)).toEqual(["authentication_required"]);
    expect(await registration(email)).toMatchObject({ status: "deposit_paid", amount_paid_cents: 7500 });
    const link = /\/my-registration\/[A-Za-z0-9_-]{43}/.exec(asked)![0];

    await page.goto(link);
    // Past its day and not paid: the page no longer says it is charged on that day.
    await page.getByTestId("manage-balance").getByText("$224.00 was due on May 22, 2027 and is not paid yet.", { exact: false }).waitFor();
    await page.getByRole("link", { name: "Pay the balance now" }).click();
    await page.getByRole("heading", { name: "Pay Your Balance" }).waitFor();
    await checked(page);
    // The card form loads at the first touch of the page.
    const pay = page.getByRole("button", { name: "Pay $224.00 with Visa ending 3184" });
    await expect.poll(async () => {
      await page.locator(".registration-page").hover({ position: { x: 10, y: 10 } });
      return (await pay.count()) > 0 && (await pay.isEnabled());
    }).toBe(true);
    // The saved card is offered first, as one button: paid with it in one tap, 3-D Secure passed, nothing retyped.
    expect(await page.getByLabel("Card number").count()).toBe(0);
    await pay.click();
    await passThreeDSecure(page);
    await page.waitForURL((url) => !url.pathname.endsWith("/balance"));

    await expect.poll(async () => (await registration(email)).status).toBe("paid");
    expect(await registration(email)).toMatchObject({ amount_paid_cents: 29900 });
    expect((await balanceCharges(email)).map((c) => c.status)).toEqual(["authentication_required"]);
    expect(await mailHolding(email, "We received the balance of")).toContain("We received the balance of $224.00");
    await showsPaidInFull(page, link);
    await context.close();
  });
});
