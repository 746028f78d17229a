/**
 * The waiting list in Chromium, without JavaScript (the forms post) and with it, at 375 and 320 px: the event page's
 * block, the join form (errors, then "check your e-mail"), the page the e-mailed confirmation link opens (the place in
 * line, what the entry waits for, and leaving the line there), and an offer's page, whose button opens the
 * registration form with the held place; a family of 3 siblings offered its places registers all three on one form
 * (no sibling added or removed) and pays once with the sibling discount. Every page fits the width and passes axe.
 * Event 4 is made sold out for the test and restored after.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser, Page } from "playwright-core";
import type { Knex } from "knex";
import { e2eDb, launchBrowser, newVisit, seriousA11yViolations } from "../support/browser.ts";
import { mailsTo } from "../support/manageJourney.ts";
import { placesTaken } from "../../src/events/repository.ts";
import { scaledMs } from "../support/timeouts.ts";
import { countPlacesFromRows } from "../support/places.ts";
import { fillCard, fillRegistrationStep1, formStarted } from "../support/registrationForm.ts";
import { bumpEventsVersion } from "../../src/events/version.ts";

const EVENT = 4;
let browser: Browser;
let db: Knex;
let capacity: number;

beforeAll(async () => {
  browser = await launchBrowser();
  db = e2eDb();
  capacity = Number((await db("events").where({ id: EVENT }).first("capacity")).capacity);
  const taken = await placesTaken(db, EVENT, new Date());
  const now = Date.now();
  await db("registrations").insert({
    reference: "RWLE2E01", event_id: EVENT, kind: "team", places: 5, status: "paid", package_code: "team", package_label: "Team Registration", list_price_cents: 99500,
    amount_cents: 99500, amount_paid_cents: 99500, contact_first_name: "Fill", contact_last_name: "Er", contact_email: "filler@example.com", contact_phone: "2055550100",
    form_session_id: "wl-e2e-filler-000000001", agreed_at: now, created_at: now, updated_at: now, paid_at: now,
  });
  await db("events").where({ id: EVENT }).update({ capacity: taken + 5 });
  await countPlacesFromRows(db, [EVENT]);
});

afterAll(async () => {
  const entries = db("waiting_list_entries").where({ event_id: EVENT }).select("id");
  const held = await db("waiting_list_holds").whereIn("entry_id", entries).pluck("registration_id");
  await db("waiting_list_holds").whereIn("registration_id", held).delete();
  await db("registrations").whereIn("id", held).orWhere({ reference: "RWLE2E01" }).delete();
  await countPlacesFromRows(db, [EVENT]);
  await db("waiting_list_requests").where({ event_id: EVENT }).delete();
  await db("waiting_list_entries").where({ event_id: EVENT }).delete();
  await db("waiting_list_jobs").where({ event_id: EVENT }).delete();
  await db("events").where({ id: EVENT }).update({ capacity });
  await db.destroy();
  await browser?.close();
});

async function fits(page: Page, what: string) {
  const o = await page.evaluate(() => (document.documentElement.scrollWidth > window.innerWidth ? document.documentElement.scrollWidth : null));
  expect(o, `${what} is wider than ${page.viewportSize()?.width} px`).toBeNull();
}

/** The confirmation link e-mailed to `email` (read from the message: once sent, the outbox keeps it without its link). */
async function confirmLink(email: string): Promise<string> {
  const sent = () => mailsTo(email).find((m) => m.includes("/waiting-list/confirm/"));
  await expect.poll(() => sent() !== undefined, { timeout: scaledMs(20_000), interval: 250 }).toBe(true);
  return /https?:\/\/[^\s/]+(\/waiting-list\/confirm\/[A-Za-z0-9_-]+)/.exec(sent()!)![1]!;
}

/** Fills the join form with a family's contact and joins; the page asks to confirm by e-mail. */
async function join(page: Page, email: string, places = "1") {
  const form = page.getByRole("form", { name: "Join the waiting list" });
  await form.getByLabel("Places needed").fill(places);
  await form.getByLabel("First Name").fill("Lena");
  await form.getByLabel("Last Name").fill("Park");
  await form.getByLabel("Email").fill(email);
  await form.getByLabel("Phone").fill("(205) 555-0111");
  await form.getByRole("button", { name: "Join the Waiting List" }).click();
  await page.getByRole("heading", { name: "Check your e-mail to confirm" }).waitFor();
}

/** axe runs inside the page, so only where JavaScript is on (the server sends the same HTML either way). */
async function accessible(page: Page, what: string, javaScript: boolean) {
  if (javaScript) expect(await seriousA11yViolations(page), what).toEqual([]);
}

describe("the waiting list in Chromium", () => {
  for (const javaScript of [false, true]) {
    for (const width of [375, 320]) {
      it(`the event page and the join form (and its errors) fit ${width} px${javaScript ? " and pass axe" : ""} (JavaScript ${javaScript ? "on" : "off"})`, async () => {
        const { page, context } = await newVisit(browser, { javaScript, viewport: { width, height: 800 } });
        // The server keeps event data a few seconds: the sold-out state shows once that has passed.
        await expect.poll(async () => (await page.goto(`/events/${EVENT}`), await page.locator(".event-waiting-list").count()), { timeout: scaledMs(15_000) }).toBe(1);
        await fits(page, "the event page");
        await accessible(page, "the event page", javaScript);
        await page.getByRole("link", { name: "Join the Waiting List" }).click();
        await page.waitForURL(`**/waiting-list/${EVENT}`);
        await fits(page, "the join form");
        await accessible(page, "the join form", javaScript);
        await page.getByRole("button", { name: "Join the Waiting List" }).click();
        await page.locator(".field-error").first().waitFor();
        await fits(page, "the join form with errors");
        await accessible(page, "the join form with errors", javaScript);
        await context.close();
      });
    }
  }

  for (const javaScript of [false, true]) {
    it(`the confirmation link shows the place in line and what it waits for, and the family leaves the line there (JavaScript ${javaScript ? "on" : "off"})`, async () => {
      const { page, context } = await newVisit(browser, { javaScript, viewport: { width: 320, height: 800 } });
      const email = `standing.${javaScript ? "js" : "nojs"}@example.com`;
      await page.goto(`/waiting-list/${EVENT}`);
      await join(page, email, "2");
      await fits(page, "check your e-mail");
      expect(await db("waiting_list_entries").where({ contact_email: email })).toHaveLength(0);

      await page.goto(await confirmLink(email));
      await fits(page, "the confirmation");
      await accessible(page, "the confirmation", javaScript);
      expect(await db("waiting_list_entries").where({ contact_email: email })).toHaveLength(0);
      await page.getByRole("button", { name: "Confirm My Place in Line" }).click();
      await page.getByRole("heading", { name: "You are number 1 on the waiting list." }).waitFor();
      const standing = page.locator(".waiting-list-standing");
      expect(await standing.getByText("Next: nobody is ahead of you").count()).toBe(1);
      expect(await standing.getByText("2 places, Full Tour (3 Days).").count()).toBe(1);
      await fits(page, "the place in line");
      await accessible(page, "the place in line", javaScript);

      await page.getByRole("button", { name: "Leave the Waiting List" }).click();
      await page.getByRole("heading", { name: "You Left the Waiting List" }).waitFor();
      expect((await db("waiting_list_entries").where({ contact_email: email }).first("status")).status).toBe("left");
      await fits(page, "left");
      await accessible(page, "left", javaScript);
      await context.close();
    }, scaledMs(60_000));
  }

  it("joins without JavaScript (errors first), confirms by the e-mailed link, and an offer's button opens the registration form with the held place", async () => {
    const { page, context } = await newVisit(browser, { javaScript: false, viewport: { width: 320, height: 800 } });
    await page.goto(`/waiting-list/${EVENT}`);
    const form = page.getByRole("form", { name: "Join the waiting list" });
    await form.getByLabel("Email").fill("not-an-address");
    await form.getByRole("button", { name: "Join the Waiting List" }).click();
    expect(await page.locator(".field-error").allTextContents()).toEqual(expect.arrayContaining(["This field is required", "Please enter a valid email address"]));
    await fits(page, "the join form with errors");

    await form.getByLabel("First Name").fill("Lena");
    await form.getByLabel("Last Name").fill("Park");
    await form.getByLabel("Email").fill("lena.e2e@example.com");
    await form.getByLabel("Phone").fill("(205) 555-0111");
    await form.getByRole("button", { name: "Join the Waiting List" }).click();
    await page.getByRole("heading", { name: "Check your e-mail to confirm" }).waitFor();
    await page.goto(await confirmLink("lena.e2e@example.com"));
    await page.getByRole("button", { name: "Confirm My Place in Line" }).click();
    await page.getByRole("heading", { name: "You are number 1 on the waiting list." }).waitFor();
    await fits(page, "joined");

    // A place frees (the filler is refunded) and a round is asked for: the server's queue makes the offer.
    await db("registrations").where({ reference: "RWLE2E01" }).update({ status: "refunded" });
    await countPlacesFromRows(db, [EVENT]);
    await db("waiting_list_jobs").insert({ event_id: EVENT, status: "pending", attempts: 0, next_attempt_at: Date.now(), created_at: Date.now() });
    await expect.poll(async () => (await db("waiting_list_entries").where({ contact_email: "lena.e2e@example.com" }).first("status")).status, { timeout: scaledMs(40_000), interval: 500 }).toBe("offered");
    // The outbox keeps no working link once it sent the e-mail: the link is read from the message sent.
    await expect.poll(() => mailsTo("lena.e2e@example.com").some((m) => m.includes("/waiting-list/offer/")), { timeout: scaledMs(20_000), interval: 250 }).toBe(true);
    const link = /https?:\/\/[^\s/]+(\/waiting-list\/offer\/[A-Za-z0-9_-]+)/.exec(mailsTo("lena.e2e@example.com").find((m) => m.includes("/waiting-list/offer/"))!)![1]!;
    await page.goto(link);
    await fits(page, "the offer");
    const withJs = await newVisit(browser, { viewport: { width: 375, height: 800 } });
    await withJs.page.goto(link);
    await accessible(withJs.page, "the offer", true);
    await withJs.context.close();
    await page.getByRole("button", { name: "Register Athlete 1" }).click();
    await page.waitForURL(`**/register/${EVENT}`);
    const held = await db("waiting_list_holds as h").join("registrations as r", "r.id", "h.registration_id").join("waiting_list_entries as w", "w.id", "h.entry_id")
      .where("w.contact_email", "lena.e2e@example.com").first("r.form_session_id");
    expect(await page.locator('input[name="formSessionId"]').inputValue()).toBe(held.form_session_id);
    await fits(page, "the registration form of the offer");
    await context.close();
  }, scaledMs(90_000));
});

describe("a waiting-list family of 3 siblings in Chromium", () => {
  const email = "family3.e2e@example.com";
  const sibling = async (page: Page, n: number) => {
    const athlete = page.getByRole("group", { name: `Athlete ${n}`, exact: true });
    await athlete.getByLabel("First Name").fill(`Kid${n}`);
    await athlete.getByLabel("Last Name").fill("Family");
    await athlete.getByLabel("Grade").fill("7th");
    await athlete.getByLabel("Gender").selectOption("Female");
    await athlete.getByLabel("School Name").fill("Central Middle");
  };

  beforeAll(async () => {
    // $25.00 off each additional athlete; the event sold out again with a filler of 3 places; the family of 3 in line.
    await db.transaction(async (trx) => {
      await trx("events").where({ id: EVENT }).update({ sibling_discount_kind: "fixed", sibling_discount_value: 2500 });
      await bumpEventsVersion(trx);
    });
    const taken = await placesTaken(db, EVENT, new Date());
    const now = Date.now();
    await db("registrations").insert({
      reference: "RWLE2E02", event_id: EVENT, kind: "team", places: 3, status: "paid", package_code: "team", package_label: "Team Registration", list_price_cents: 59700,
      amount_cents: 59700, amount_paid_cents: 59700, contact_first_name: "Fill", contact_last_name: "Er", contact_email: "filler@example.com", contact_phone: "2055550100",
      form_session_id: "wl-e2e-filler-000000002", agreed_at: now, created_at: now, updated_at: now, paid_at: now,
    });
    await db("events").where({ id: EVENT }).update({ capacity: taken + 3 });
    await countPlacesFromRows(db, [EVENT]);
    const last = await db("waiting_list_entries").where({ event_id: EVENT }).max({ p: "position" }).first();
    await db("waiting_list_entries").insert({
      event_id: EVENT, position: Number(last?.p ?? 0) + 1, kind: "individual", places: 3, package_code: "full", contact_first_name: "Maria", contact_last_name: "Family",
      contact_email: email, contact_phone: "2055550111", status: "waiting", leave_token_hash: "wl-e2e-family-leave-".padEnd(64, "x"), passed_over: 0, created_at: now, updated_at: now,
    });
  });

  afterAll(async () => {
    await db("registrations").where({ reference: "RWLE2E02" }).delete();
    await db.transaction(async (trx) => {
      await trx("events").where({ id: EVENT }).update({ sibling_discount_kind: "none", sibling_discount_value: 0 });
      await bumpEventsVersion(trx);
    });
  });

  it("the offer opens the form with 3 athletes and no add or remove (JavaScript off and on), paid once with the sibling discount at 375 px", async () => {
    await db("registrations").where({ reference: "RWLE2E02" }).update({ status: "refunded" });
    await countPlacesFromRows(db, [EVENT]);
    await db("waiting_list_jobs").insert({ event_id: EVENT, status: "pending", attempts: 0, next_attempt_at: Date.now(), created_at: Date.now() });
    await expect.poll(async () => (await db("waiting_list_entries").where({ contact_email: email }).first("status")).status, { timeout: scaledMs(40_000), interval: 500 }).toBe("offered");
    await expect.poll(() => mailsTo(email).some((m) => m.includes("/waiting-list/offer/")), { timeout: scaledMs(20_000), interval: 250 }).toBe(true);
    const link = /https?:\/\/[^\s/]+(\/waiting-list\/offer\/[A-Za-z0-9_-]+)/.exec(mailsTo(email).find((m) => m.includes("/waiting-list/offer/"))!)![1]!;
    const held = await db("waiting_list_holds as h").join("registrations as r", "r.id", "h.registration_id").join("waiting_list_entries as w", "w.id", "h.entry_id")
      .where("w.contact_email", email).first("r.id", "r.places", "r.form_session_id");
    expect(Number(held.places)).toBe(3);

    // Without JavaScript: the form the offer opens has the 3 athletes and no button to add or remove one.
    const noJs = await newVisit(browser, { javaScript: false, viewport: { width: 320, height: 800 } });
    await noJs.page.goto(link);
    await noJs.page.getByRole("button", { name: "Register Your 3 Athletes" }).click();
    await noJs.page.waitForURL(`**/register/${EVENT}`);
    for (const n of [2, 3]) await noJs.page.getByRole("group", { name: `Athlete ${n}`, exact: true }).waitFor();
    expect(await noJs.page.getByRole("group", { name: "Athlete 4", exact: true }).count()).toBe(0);
    expect(await noJs.page.getByRole("button", { name: /Add a sibling|Remove athlete/ }).count()).toBe(0);
    await fits(noJs.page, "the family's offered form");
    await noJs.context.close();

    // With JavaScript, at 375 px: the same form, filled in, the discount and the total, one payment.
    const { page, context, problems } = await newVisit(browser, { viewport: { width: 375, height: 800 } });
    await page.goto(link);
    expect(await page.getByText("$25.00 off each additional athlete: $550.00 for 3 places").count()).toBeGreaterThan(0);
    await page.getByRole("button", { name: "Register Your 3 Athletes" }).click();
    await page.waitForURL(`**/register/${EVENT}`);
    await formStarted(page, "RegistrationSteps");
    await page.getByText("Your waiting-list offer holds 3 places").waitFor();
    expect(await page.getByRole("button", { name: /Add a sibling|Remove athlete/ }).count()).toBe(0);
    await fillRegistrationStep1(page, { firstName: "Kid1", lastName: "Family", email, phone: "(205) 555-0111", grade: "10th", gender: "Male", schoolName: "Central High",
      emergencyContactName: "Maria Family", emergencyContactPhone: "205-555-0199", guardian: { name: "Maria Family", email, phone: "205-555-0199" } });
    for (const n of [2, 3]) await sibling(page, n);
    expect(await page.getByTestId("family-total").textContent()).toBe("$550.00");
    await accessible(page, "the family's offered form", true);
    await fits(page, "the family's offered form");
    await page.getByRole("button", { name: "Proceed to Payment" }).click();
    await page.getByRole("heading", { name: "Order Summary" }).waitFor();
    expect(await page.getByTestId("registration-total").textContent()).toBe("$550.00");
    await fillCard(page, "4242 4242 4242 4242", "35203");
    await page.getByRole("button", { name: "Complete Payment - $550.00" }).click();
    await page.waitForURL(new RegExp(`/event-registration/${EVENT}\\?paymentSuccess=true`), { timeout: scaledMs(15_000) });
    await page.locator(".registration-confirmed").waitFor();

    expect(await db("registrations").where({ id: held.id }).first()).toMatchObject({ status: "paid", places: 3, amount_paid_cents: 55000 });
    expect(await db("registration_athletes").where({ registration_id: held.id }).orderBy("position").pluck("first_name")).toEqual(["Kid1", "Kid2", "Kid3"]);
    expect(problems, "console").toEqual([]);
    await context.close();
  }, scaledMs(120_000));
});
