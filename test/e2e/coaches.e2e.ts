import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser, Page } from "playwright-core";
import { DESKTOP, e2eDb, launchBrowser, sentMails, MOBILE, newVisit, seriousA11yViolations } from "../support/browser.ts";
import { scaledMs } from "../support/timeouts.ts";

let browser: Browser;
beforeAll(async () => {
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
});

const PNG = Buffer.from("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==", "base64");
const PDF = Buffer.from("%PDF-1.4\n%%EOF\n");

const focused = (page: Page) =>
  page.evaluate(() => {
    const el = document.activeElement as HTMLInputElement | null;
    return { name: el?.getAttribute("name") ?? null, text: el?.textContent?.trim() ?? "", inDialog: Boolean(el?.closest("dialog")) };
  });
/** Names of the stored files (logos) of the e2e server's database. */
const storedLogos = async () => {
  const db = e2eDb();
  try {
    return (await db("stored_files").pluck("name")) as string[];
  } finally {
    await db.destroy();
  }
};

/** Tab until the named field (or the element matching `text`) has focus; fails after `max` presses. */
async function tabTo(page: Page, target: { name?: string; text?: string }, max = 60) {
  for (let i = 0; i < max; i += 1) {
    const f = await focused(page);
    if ((target.name && f.name === target.name) || (target.text && f.text === target.text)) return;
    await page.keyboard.press("Tab");
  }
  throw new Error(`could not reach ${JSON.stringify(target)} with Tab`);
}

describe("college coach registration in Chromium", () => {
  it("works from the keyboard alone: open, validate, fill, submit; the dialog closes and focus returns", async () => {
    const db = e2eDb();
    try {
      const { page, context, problems } = await newVisit(browser);
      await page.goto("/events/3", { waitUntil: "networkidle" });
      // The dialog's code loads at the first hover, focus or touch of its link, not with the page; a key or a click
      // that comes first waits for it and is replayed.
      expect(await page.locator('[data-widget="CoachRequestDialog"]').getAttribute("data-hydrated")).toBeNull();
      const days = (await page.request.get("/api/events/3").then((r) => r.json())).days as { id: number; date: string; label: string }[];
      const opener = page.getByRole("link", { name: "College Coach Registration" });
      const dialog = page.getByRole("dialog", { name: "College Coach Registration" });
      expect(await dialog.isVisible()).toBe(false);

      await tabTo(page, { text: "College Coach Registration" });
      await page.keyboard.press("Enter");
      await expect.poll(() => dialog.isVisible()).toBe(true);
      expect(page.url()).toMatch(/\/events\/3$/);
      expect(await focused(page)).toMatchObject({ name: "fullName", inDialog: true });
      // The event's own days, from the event data.
      expect(await dialog.getByRole("group", { name: "Days Attending" }).getByRole("checkbox").count()).toBe(days.length);

      // Submitting the empty form (Enter in a field) shows every required message and the validation toast.
      await page.keyboard.press("Enter");
      const toast = dialog.locator("[data-toast-region] .toast-destructive");
      await toast.waitFor();
      expect(await toast.locator(".toast-title").textContent()).toBe("Form Validation Error");
      expect(await toast.locator(".toast-description").textContent()).toBe("Please correct the highlighted fields");
      expect(await dialog.locator(".field-error").allTextContents()).toEqual([
        "Full name is required",
        "Title/Position is required",
        "College/University name is required",
        "Email is required",
        "Cell phone is required",
        "Division level is required",
        "Conference is required",
        "At least one day must be selected",
      ]);
      await expect.poll(async () => (await focused(page)).name).toBe("fullName");

      // An error clears as soon as its field is edited; the others stay.
      await page.keyboard.type("Dana Reyes");
      expect(await dialog.locator(".field-error").first().textContent()).toBe("Title/Position is required");
      expect(await dialog.locator(".field-error").count()).toBe(7);
      for (const [name, value] of [["title", "Head Coach"], ["collegeName", "Ironwood University"], ["email", "dana.e2e@ironwood.example.edu"], ["cellPhone", "817-555-0134"]]) {
        await page.keyboard.press("Tab");
        expect((await focused(page)).name).toBe(name);
        await page.keyboard.type(value!);
      }
      await tabTo(page, { name: "divisionLevel" });
      await page.keyboard.press("ArrowDown");
      expect(await dialog.getByLabel("Division Level").inputValue()).toBe("D1");
      await page.keyboard.press("Tab");
      await page.keyboard.type("Big 12");
      await page.keyboard.press("Tab");
      await page.keyboard.type("12");
      await page.keyboard.press("Tab");
      expect((await focused(page)).name).toBe("areasOfInterest");
      await page.keyboard.press("Space");
      await tabTo(page, { name: "daysAttending" });
      await page.keyboard.press("Space");
      expect(await dialog.getByRole("checkbox", { name: days[0]!.label }).isChecked()).toBe(true);
      await tabTo(page, { name: "notes" });
      await page.keyboard.type("Keyboard journey from the e2e run.");
      // The operating system's file chooser is outside the page: the logo is handed to the file input.
      await dialog.locator('input[type="file"]').setInputFiles({ name: "ironwood.png", mimeType: "image/png", buffer: PNG });
      expect(await dialog.locator(".field-error").count()).toBe(0);

      // Tab stays inside the dialog and wraps around to its first control (past the toast's own button, if still shown).
      const label = () => page.evaluate(() => document.activeElement?.getAttribute("aria-label"));
      await tabTo(page, { text: "Submit Registration" });
      for (let i = 0; i < 3 && (await label()) !== "Close"; i += 1) {
        await page.keyboard.press("Tab");
        expect((await focused(page)).inDialog).toBe(true);
      }
      expect(await label()).toBe("Close");
      await page.keyboard.press("Shift+Tab");
      expect((await focused(page)).inDialog).toBe(true);
      await tabTo(page, { text: "Submit Registration" });

      await page.keyboard.press("Enter");
      await expect.poll(() => dialog.isVisible()).toBe(false);
      const success = page.locator("#toast-region .toast-success");
      await success.waitFor();
      expect(await success.locator(".toast-title").textContent()).toBe("Registration Submitted Successfully");
      expect(await success.locator(".toast-description").textContent()).toBe(
        "Thank you for your interest! We'll review your application and get back to you soon.",
      );
      expect(await opener.evaluate((el) => el === document.activeElement)).toBe(true);

      const row = await db("coach_requests").where({ email: "dana.e2e@ironwood.example.edu" }).first();
      expect(row).toMatchObject({ event_id: 3, full_name: "Dana Reyes", division_level: "D1", number_of_athletes: 12, logo_content_type: "image/png" });
      expect(await storedLogos()).toContain(row.logo_file);
      const listed = await db("coach_request_list").where({ id: row.id }).first();
      expect(listed.event_title).toBe("Texas Recruiting Clinic");
      expect(listed.days_attending).toContain(days[0]!.label.split(", ")[1]);
      await expect
        .poll(() => sentMails().some((m) => m.includes("Keyboard journey from the e2e run.") && /filename="?ironwood-university-logo\.png/.test(m)), { timeout: scaledMs(10_000) })
        .toBe(true);

      // The form was reset: opening again shows it empty; Escape closes it and focus returns again.
      await page.keyboard.press("Enter");
      await expect.poll(() => dialog.isVisible()).toBe(true);
      expect(await dialog.getByLabel("Full Name").inputValue()).toBe("");
      expect(await dialog.getByRole("checkbox", { name: days[0]!.label }).isChecked()).toBe(false);
      expect(await dialog.locator('input[type="file"]').evaluate((el) => (el as HTMLInputElement).files?.length ?? 0)).toBe(0);
      await page.keyboard.press("Escape");
      await expect.poll(() => dialog.isVisible()).toBe(false);
      expect(await opener.evaluate((el) => el === document.activeElement)).toBe(true);
      expect(problems).toEqual([]);
      await context.close();
    } finally {
      await db.destroy();
    }
  });

  it("refuses a wrong logo at once, and shows 'Submission Failed' when sending fails", async () => {
    const { page, context } = await newVisit(browser);
    await page.goto("/events/3");
    await page.getByRole("link", { name: "College Coach Registration" }).click();
    const dialog = page.getByRole("dialog", { name: "College Coach Registration" });
    await dialog.locator('input[type="file"]').setInputFiles({ name: "logo.png", mimeType: "image/png", buffer: PDF });
    await expect.poll(() => dialog.locator(".field-error").allTextContents()).toEqual(["School logo must be a JPG, PNG or GIF image"]);
    await dialog.locator('input[type="file"]').setInputFiles([]);
    await expect.poll(() => dialog.locator(".field-error").count()).toBe(0);

    await page.route("**/api/clinician-request", (route) => route.fulfill({ status: 500, contentType: "application/json", body: '{"success":false}' }));
    await dialog.getByLabel("Full Name").fill("Failing Coach");
    await dialog.getByLabel("Title/Position").fill("Assistant Coach");
    await dialog.getByLabel("College/University").fill("Mesa Ridge College");
    await dialog.getByLabel("Email").fill("fail@mesaridge.example.edu");
    await dialog.getByLabel("Cell Phone").fill("8175550199");
    await dialog.getByLabel("Division Level").selectOption("JUCO");
    await dialog.getByLabel("Conference").fill("NJCAA Region V");
    await dialog.getByRole("group", { name: "Days Attending" }).getByRole("checkbox").last().check();
    await dialog.getByRole("button", { name: "Submit Registration" }).click();
    const toast = dialog.locator("[data-toast-region] .toast-destructive");
    await toast.waitFor();
    expect(await toast.locator(".toast-title").textContent()).toBe("Submission Failed");
    expect(await toast.locator(".toast-description").textContent()).toBe("Please try again or contact us directly if the problem persists.");
    expect(await dialog.isVisible()).toBe(true);
    expect(await dialog.getByLabel("Full Name").inputValue()).toBe("Failing Coach");
    await context.close();
  });

  it("works without JavaScript: the button leads to the page, errors keep the values, an upload is stored", async () => {
    const db = e2eDb();
    try {
      const { page, context } = await newVisit(browser, { javaScript: false });
      await page.goto("/events/3");
      await page.getByRole("link", { name: "College Coach Registration" }).click();
      await page.waitForURL(/\/coach-registration\?eventId=3$/);
      const form = page.getByRole("form", { name: "College Coach Registration" });
      await form.getByLabel("Full Name").fill("No Script Coach");
      await form.getByLabel("Email").fill("noscript@");
      await form.getByRole("button", { name: "Submit Registration" }).click();
      expect(await form.locator(".field-error").allTextContents()).toContain("Valid email is required");
      expect(await page.locator("#toast-region .toast-title").textContent()).toBe("Form Validation Error");
      expect(await form.getByLabel("Full Name").inputValue()).toBe("No Script Coach");

      await form.getByLabel("Title/Position").fill("Recruiting Coordinator");
      await form.getByLabel("College/University").fill("Bluebonnet State");
      await form.getByLabel("Email").fill("noscript@bluebonnet.example.edu");
      await form.getByLabel("Cell Phone").fill("(512) 555-0177");
      await form.getByLabel("Division Level").selectOption("D2");
      await form.getByLabel("Conference").fill("Lone Star");
      await form.getByLabel("Number of Athletes").fill("50");
      await form.getByRole("group", { name: "Days Attending" }).getByRole("checkbox").first().check();
      await form.getByLabel("School Logo").setInputFiles({ name: "bluebonnet.jpg", mimeType: "image/jpeg", buffer: PNG });
      await form.getByRole("button", { name: "Submit Registration" }).click();
      await page.waitForURL(/\/events\/3$/);
      expect(await page.locator("#toast-region .toast-title").textContent()).toBe("Registration Submitted Successfully");

      const row = await db("coach_requests").where({ email: "noscript@bluebonnet.example.edu" }).first();
      expect(row).toMatchObject({ event_id: 3, full_name: "No Script Coach", number_of_athletes: 50, logo_content_type: "image/png" });
      expect(await storedLogos()).toContain(row.logo_file);
      await context.close();
    } finally {
      await db.destroy();
    }
  });

  for (const [label, viewport] of [["mobile", MOBILE], ["desktop", DESKTOP]] as const) {
    it(`has no serious accessibility violations at ${label} width: the page, the dialog, and both with errors`, async () => {
      const { page, context } = await newVisit(browser, { viewport });
      await page.goto("/coach-registration?eventId=3", { waitUntil: "networkidle" });
      expect(await seriousA11yViolations(page)).toEqual([]);
      await page.getByRole("button", { name: "Submit Registration" }).click();
      await page.locator(".field-error").first().waitFor();
      expect(await seriousA11yViolations(page)).toEqual([]);

      await page.goto("/events/3", { waitUntil: "networkidle" });
      await page.getByRole("link", { name: "College Coach Registration" }).click();
      const dialog = page.getByRole("dialog", { name: "College Coach Registration" });
      await expect.poll(() => dialog.isVisible()).toBe(true);
      expect(await seriousA11yViolations(page)).toEqual([]);
      await dialog.getByRole("button", { name: "Submit Registration" }).click();
      await dialog.locator(".field-error").first().waitFor();
      expect(await seriousA11yViolations(page)).toEqual([]);
      // Every target in the dialog is large enough to hit on a phone.
      const small = await dialog.evaluate((d) =>
        [...d.querySelectorAll("a, button, input, select, textarea")]
          .map((el) => ({ name: el.getAttribute("name") ?? el.textContent?.trim(), h: el.getBoundingClientRect().height }))
          .filter((t) => t.h > 0 && t.h < 20),
      );
      expect(small).toEqual([]);
      await context.close();
    });
  }
});
