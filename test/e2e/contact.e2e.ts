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

/** The form's code loads at the first hover, focus or touch: focus its first field and wait for it. */
async function hydrated(page: Page) {
  await page.getByRole("form", { name: "Send us a message" }).getByLabel("Name").focus();
  await page.waitForSelector('[data-widget="ContactForm"][data-hydrated="true"]', { state: "attached" });
}
const mailContaining = (needle: string) => sentMails().some((m) => m.includes(needle));

async function fill(page: Page, values: { name: string; email: string; subject: string; message: string }) {
  const form = page.getByRole("form", { name: "Send us a message" });
  await form.getByLabel("Name").fill(values.name);
  await form.getByLabel("Email").fill(values.email);
  await form.getByLabel("Subject").fill(values.subject);
  await form.getByLabel("Message").fill(values.message);
  return form;
}

describe("contact page in Chromium", () => {
  it("validates on submit, then on change; sends with inputs disabled; shows the confirmation; stores and e-mails", async () => {
    const db = e2eDb();
    try {
      const { page, context, problems } = await newVisit(browser);
      await page.goto("/contact");
      await hydrated(page);
      const form = await fill(page, { name: "J", email: "jordan@example.com", subject: "Camp sizes", message: "Do camp shirts run true to size?" });
      // Nothing is checked before the first submit.
      expect(await form.locator(".field-error").count()).toBe(0);
      await form.getByRole("button", { name: "Send Message" }).click();
      expect(await form.locator(".field-error").allTextContents()).toEqual(["Name must be at least 2 characters"]);
      await expect.poll(() => page.evaluate(() => document.activeElement?.getAttribute("name"))).toBe("name");
      // From now on every change re-checks.
      await form.getByLabel("Name").fill("Jordan Oliver");
      expect(await form.locator(".field-error").count()).toBe(0);
      await form.getByLabel("Message").fill("Short");
      expect(await form.locator(".field-error").allTextContents()).toEqual(["Message must be at least 10 characters"]);
      await form.getByLabel("Message").fill("Do camp shirts run true to size? Sent from the e2e journey.");

      // Hold the request to see the sending state.
      let release: () => void = () => {};
      const held = new Promise<void>((r) => (release = r));
      await page.route("**/api/contact", async (route) => {
        await held;
        await route.continue();
      });
      await form.getByRole("button", { name: "Send Message" }).click();
      await expect.poll(() => form.getByRole("button").textContent()).toBe("Sending...");
      expect(await form.getByLabel("Name").isDisabled()).toBe(true);
      expect(await form.getByLabel("Message").isDisabled()).toBe(true);
      release();
      await page.getByTestId("contact-sent").waitFor();
      expect(await page.getByTestId("contact-sent").textContent()).toContain("Message Sent!");
      expect(await page.getByRole("link", { name: "Send Another Message" }).getAttribute("href")).toBe("/contact");

      const row = await db("contact_messages").where({ name: "Jordan Oliver" }).first();
      expect(row).toMatchObject({ email: "jordan@example.com", subject: "Camp sizes" });
      await expect.poll(() => mailContaining("Sent from the e2e journey."), { timeout: scaledMs(10_000) }).toBe(true);
      expect(problems).toEqual([]);

      await Promise.all([page.waitForEvent("load"), page.getByRole("link", { name: "Send Another Message" }).click()]);
      await hydrated(page);
      expect(await page.getByRole("form", { name: "Send us a message" }).getByLabel("Name").inputValue()).toBe("");
      await context.close();
    } finally {
      await db.destroy();
    }
  });

  it("loads no form code with the page; text typed and a click on Send before it starts are kept and answered", async () => {
    const { page, context, problems } = await newVisit(browser, { viewport: MOBILE });
    const scripts: string[] = [];
    page.on("request", (r) => r.resourceType() === "script" && scripts.push(new URL(r.url()).pathname));
    await page.goto("/contact", { waitUntil: "networkidle" });
    const { entries } = (await (await page.request.get("/build/manifest.json")).json()) as { entries: Record<string, { url: string; imports: string[] }> };
    const boot = [entries["boot.js"]!.url, ...entries["boot.js"]!.imports];
    expect(scripts.filter((u) => !boot.includes(u))).toEqual([]);
    expect(await page.locator('[data-widget="ContactForm"]').getAttribute("data-hydrated")).toBeNull();
    // Keys typed straight away (the code is still on its way) stay in the field; the click is replayed once it runs.
    const form = page.getByRole("form", { name: "Send us a message" });
    await form.getByLabel("Name").pressSequentially("J", { delay: 0 });
    await form.getByRole("button", { name: "Send Message" }).click();
    await form.locator(".field-error").first().waitFor();
    expect(await form.getByLabel("Name").inputValue()).toBe("J");
    expect(await form.locator(".field-error").allTextContents()).toContain("Name must be at least 2 characters");
    expect(problems).toEqual([]);
    await context.close();
  });

  it("starts the form for a field focused before the page's script ran", async () => {
    const { page, context, problems } = await newVisit(browser);
    const { entries } = (await (await page.request.get("/build/manifest.json")).json()) as { entries: Record<string, { url: string }> };
    let release = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    await page.route(`**${entries["boot.js"]!.url}`, async (route) => {
      await held;
      await route.continue();
    });
    await page.goto("/contact", { waitUntil: "commit" });
    // The focus comes first and sends its event to nobody; the script, once it runs, sees where the focus is.
    await page.getByRole("form", { name: "Send us a message" }).getByLabel("Name").focus();
    release();
    await page.waitForSelector('[data-widget="ContactForm"][data-hydrated="true"]', { state: "attached" });
    expect(problems).toEqual([]);
    await context.close();
  });

  it("shows the spec's error toast and re-enables the form when sending fails", async () => {
    const { page, context } = await newVisit(browser);
    await page.goto("/contact");
    await hydrated(page);
    await page.route("**/api/contact", (route) => route.fulfill({ status: 500, contentType: "application/json", body: '{"success":false,"error":"boom"}' }));
    const form = await fill(page, { name: "Failing Sender", email: "fail@example.com", subject: "Hello", message: "This one will not go through." });
    await form.getByRole("button", { name: "Send Message" }).click();
    const toast = page.locator("#toast-region .toast-destructive");
    await toast.waitFor();
    expect(await toast.locator(".toast-title").textContent()).toBe("Error sending message");
    expect(await toast.locator(".toast-description").textContent()).toBe("Please try again later or contact us directly by phone.");
    expect(await form.getByLabel("Name").isDisabled()).toBe(false);
    expect(await form.getByRole("button").textContent()).toBe("Send Message");
    expect(await form.getByLabel("Name").inputValue()).toBe("Failing Sender");
    await context.close();
  });

  it("works without JavaScript: server messages with values kept, then the confirmation panel", async () => {
    const db = e2eDb();
    try {
      const { page, context } = await newVisit(browser, { javaScript: false });
      await page.goto("/contact");
      const form = await fill(page, { name: "N", email: "nojs@example.com", subject: "No script", message: "Plain HTML form post from the e2e run." });
      await form.getByRole("button", { name: "Send Message" }).click();
      expect(await page.locator(".field-error").allTextContents()).toEqual(["Name must be at least 2 characters"]);
      expect(await page.getByLabel("Email").inputValue()).toBe("nojs@example.com");
      expect(await db("contact_messages").where({ email: "nojs@example.com" })).toHaveLength(0);
      await page.getByLabel("Name").fill("No Script Sam");
      await page.getByRole("button", { name: "Send Message" }).click();
      await page.getByTestId("contact-sent").waitFor();
      expect(await db("contact_messages").where({ email: "nojs@example.com" })).toHaveLength(1);
      await context.close();
    } finally {
      await db.destroy();
    }
  });

  for (const [label, viewport] of [["mobile", MOBILE], ["desktop", DESKTOP]] as const) {
    it(`has no serious accessibility violations at ${label} width, with errors shown`, async () => {
      const { page, context } = await newVisit(browser, { viewport });
      await page.goto("/contact", { waitUntil: "networkidle" });
      await hydrated(page);
      expect(await seriousA11yViolations(page)).toEqual([]);
      await page.getByRole("button", { name: "Send Message" }).click();
      await page.locator(".field-error").first().waitFor();
      expect(await seriousA11yViolations(page)).toEqual([]);
      await context.close();
    });
  }
});
