import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser, Page } from "playwright-core";
import { e2eDb, launchBrowser, sentMails, MOBILE, newVisit, seriousA11yViolations } from "../support/browser.ts";
import { scaledMs } from "../support/timeouts.ts";

/** The cart's widgets load at the first hover, focus or touch of the cart: hover it and wait for both. */
async function cartStarted(page: Page): Promise<void> {
  await page.locator(".cart-layout").hover({ position: { x: 5, y: 5 } });
  await page.locator('[data-widget="CartStepper"][data-hydrated="true"]').waitFor();
  await page.locator('[data-widget="CardForm"][data-hydrated="true"]').waitFor();
}

let browser: Browser;
beforeAll(async () => {
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
});

async function addFromProductPage(page: Page, query: string) {
  await page.goto(`/shop/heavyweight-tee?${query}`);
  await page.locator('[data-widget="ProductPicker"] h1').hover();
  await page.locator('[data-widget="ProductPicker"][data-hydrated="true"]').waitFor();
  const added = page.waitForResponse((r) => r.url().endsWith("/api/cart/add") && r.status() === 200);
  await page.getByRole("button", { name: "Add to Cart" }).click();
  await added;
}

async function addCapFromShop(page: Page) {
  await page.goto("/shop");
  const card = page.locator(".product-card", { hasText: "Snapback Cap" });
  await card.getByRole("button", { name: "Add to Cart" }).click();
  await page.waitForURL("**/shop");
}

async function fillCheckout(page: Page, card: string) {
  await cartStarted(page);
  await page.getByLabel("First Name").fill("Jordan");
  await page.getByLabel("Last Name").fill("Burroughs");
  await page.getByLabel("Email").fill("jordan.e2e@example.com");
  await page.getByLabel("Phone (optional)").fill("205-555-0100");
  await page.getByLabel("Full Name").fill("Jordan Burroughs");
  await page.getByLabel("Address Line 1").fill("2100 1st Avenue North");
  await page.getByLabel("Address Line 2 (optional)").fill("Suite 300");
  await page.getByLabel("City").fill("Birmingham");
  await page.getByLabel("State").selectOption("AL");
  await page.getByLabel(/^ZIP Code/).fill("35203");
  await page.getByLabel("Card number").fill(card);
  await page.getByLabel("Expiration date MM / YY").fill("1234");
  await page.getByLabel("Security code (CVC)").fill("123");
  await page.getByLabel("ZIP code", { exact: true }).fill("35203");
}

describe("cart and card checkout in Chromium", () => {
  it("browse, add a tee in two sizes and a cap, change a quantity, pay with 4242 and land on /shop?success=true with an empty cart", async () => {
    const { page, context, problems } = await newVisit(browser);
    await addCapFromShop(page);
    expect(await page.locator(".toast-title").first().textContent()).toBe("Added to Cart");
    await addFromProductPage(page, "Size=M&Color=Black");
    await addFromProductPage(page, "Size=L&Color=Black");

    await page.goto("/cart");
    await cartStarted(page);
    const lines = page.locator(".cart-line");
    expect(await lines.count()).toBe(3);
    expect(await page.getByTestId("subtotal").textContent()).toBe("$92.00");
    expect(await page.locator('[data-cart-badge="desktop"]').textContent()).toBe("3");

    // plus on the L tee: quantity, line total, subtotal and badge follow
    const tee = lines.filter({ hasText: "Size: L · Color: Black" });
    await tee.getByRole("button", { name: /Increase quantity/ }).click();
    await expect_(() => tee.locator(".cart-qty").innerText(), /2/);
    await expect_(() => page.getByTestId("subtotal").innerText(), /\$124\.00/);
    expect(await page.locator('[data-cart-badge="desktop"]').textContent()).toBe("4");

    // Until the address is complete, shipping is 'Calculated at checkout'; over $75 it is free.
    expect(await page.getByTestId("shipping").textContent()).toBe("Calculated at checkout");
    await fillCheckout(page, "4242 4242 4242 4242");
    expect(await page.getByTestId("shipping").textContent()).toBe("Free");
    await page.getByRole("button", { name: "Pay $124.00" }).click();
    await page.waitForURL("**/shop?success=true", { timeout: scaledMs(15_000) });
    expect(await page.locator(".toast-title").first().textContent()).toBe("Payment Successful!");
    // The confirmation panel: the order the server recorded, with its number, address and total.
    const panel = page.locator(".order-panel");
    const panelText = (await panel.textContent()) ?? "";
    expect(panelText).toMatch(/Order [A-Z0-9]{8} is confirmed/);
    expect(panelText).toContain("jordan.e2e@example.com");
    expect(panelText).toContain("2100 1st Avenue North");
    expect(await panel.getByTestId("order-total").textContent()).toBe("$124.00");
    expect(await seriousA11yViolations(page)).toEqual([]);
    await page.setViewportSize(MOBILE);
    expect(await seriousA11yViolations(page)).toEqual([]);
    expect(await page.locator('[data-cart-badge="desktop"]').isHidden()).toBe(true);
    const cart = await (await context.request.get("/api/cart")).json();
    expect(cart.itemCount).toBe(0);

    const db = e2eDb();
    try {
      const order = await db("orders").where({ customer_email: "jordan.e2e@example.com", status: "paid" }).first();
      expect(order).toBeTruthy();
      expect(order.total_cents).toBe(12400);
      const items = await db("order_items").where({ order_id: order.id });
      expect(items.map((i: { variant_id: string; quantity: number }) => `${i.variant_id}x${i.quantity}`).sort()).toEqual(["2002x1", "2003x2", "2101x1"]);
      expect((await db("payments").where({ reference: order.reference }).first()).status).toBe("paid");
      // the confirmation e-mail is written to the mail folder by the outbox
      expect(panelText).toContain(`Order ${order.reference} is confirmed`);
      expect(order).toMatchObject({ shipping_cents: 0, ship_line1: "2100 1st Avenue North", ship_zip: "35203" });
      // the confirmation e-mail is written to the mail folder by the outbox, with the address
      const mails = async () => sentMails().join("\n");
      await expect_(mails, new RegExp(order.reference));
      const mail = (await mails()).split(/(?=^From: )/m).find((m) => m.includes(order.reference))!.replace(/=\r?\n/g, "");
      expect(mail).toContain("2100 1st Avenue North");
      expect(mail).toContain("Birmingham, AL 35203");
    } finally {
      await db.destroy();
    }
    expect(problems).toEqual([]);
    await context.close();
  });

  it("one $32 tee with an address: Subtotal $32.00, Shipping $7.95, Total $39.95 at every moment, and a $39.95 charge", async () => {
    const { page, context } = await newVisit(browser, { viewport: MOBILE });
    await addFromProductPage(page, "Size=XL&Color=Black");
    await page.goto("/cart");
    const summary = async () => [await page.getByTestId("subtotal").textContent(), await page.getByTestId("shipping").textContent(), await page.getByTestId("total").textContent()];
    await cartStarted(page);
    expect(await summary()).toEqual(["$32.00", "Calculated at checkout", "$32.00"]);
    await fillCheckout(page, "4242 4242 4242 4242");
    expect(await summary()).toEqual(["$32.00", "$7.95", "$39.95"]);
    await page.getByRole("button", { name: "Pay $39.95" }).click();
    await page.waitForURL("**/shop?success=true", { timeout: scaledMs(15_000) });
    const db = e2eDb();
    try {
      const order = await db("orders").where({ customer_email: "jordan.e2e@example.com", status: "paid", total_cents: 3995 }).first();
      expect(order).toMatchObject({ shipping_cents: 795, total_cents: 3995 });
    } finally {
      await db.destroy();
    }
    await context.close();
  });

  it("loads no widget code with the page; a tap on plus before the code arrives is replayed once, and the summary follows", async () => {
    const { page, context, problems } = await newVisit(browser, { viewport: MOBILE });
    await addCapFromShop(page);
    const scripts: string[] = [];
    page.on("request", (r) => r.resourceType() === "script" && !r.url().includes("stripe") && scripts.push(new URL(r.url()).pathname));
    await page.goto("/cart", { waitUntil: "networkidle" });
    const { entries } = (await (await page.request.get("/build/manifest.json")).json()) as { entries: Record<string, { url: string; imports: string[] }> };
    const boot = [entries["boot.js"]!.url, ...entries["boot.js"]!.imports];
    expect(scripts.filter((u) => !boot.includes(u))).toEqual([]);
    expect(await page.getByText("Card payment needs JavaScript").isVisible()).toBe(false);
    await page.locator(".cart-line").getByRole("button", { name: /Increase quantity/ }).click();
    await expect_(() => page.locator(".cart-line .cart-qty").innerText(), /2/);
    await cartStarted(page);
    await expect_(() => page.getByTestId("subtotal").innerText(), /\$56\.00/);
    expect(await page.locator(".cart-line .cart-qty").innerText()).toContain("2");
    expect((await (await context.request.get("/api/cart")).json()).itemCount).toBe(2);
    expect(problems).toEqual([]);
    await context.close();
  });

  it("a declined card shows 'Payment Failed' with the provider's message and leaves the cart intact", async () => {
    const { page, context } = await newVisit(browser);
    await addCapFromShop(page);
    await page.goto("/cart");
    await fillCheckout(page, "4000 0000 0000 0002");
    // A $28 cap pays the flat rate: $7.95 by default, on its own line.
    expect(await page.getByTestId("subtotal").textContent()).toBe("$28.00");
    expect(await page.getByTestId("shipping").textContent()).toBe("$7.95");
    expect(await page.getByTestId("total").textContent()).toBe("$35.95");
    await page.getByRole("button", { name: "Pay $35.95" }).click();
    await page.locator(".payment-error").waitFor();
    expect(await page.locator(".payment-error").innerText()).toContain("Your card was declined.");
    expect(await page.locator("#toast-region .toast:not([hidden]) .toast-title").last().textContent()).toBe("Payment Failed");
    expect(page.url()).toMatch(/\/cart$/);
    expect(await page.getByRole("button", { name: "Pay $35.95" }).isEnabled()).toBe(true);
    const cart = await (await context.request.get("/api/cart")).json();
    expect(cart.itemCount).toBe(1);
    await context.close();
  });

  it("minus at 1 removes the item with the spec's toast; the empty cart says so", async () => {
    const { page, context } = await newVisit(browser, { viewport: MOBILE });
    await addCapFromShop(page);
    await page.goto("/cart");
    await cartStarted(page);
    // the minus button at quantity 1 is labelled as removing
    await page.getByRole("button", { name: "Remove Ironside Snapback Cap", exact: true }).click();
    await page.getByText("Your cart is empty").first().waitFor();
    expect(await page.locator(".toast-title").last().textContent()).toBe("Item Removed");
    expect(await page.locator('[data-cart-badge="mobile"]').isHidden()).toBe(true);
    await context.close();
  });

  it("works without JavaScript: add, plus, minus, remove by form posts; the card form says it needs JavaScript", async () => {
    const { page, context } = await newVisit(browser, { javaScript: false });
    await addCapFromShop(page);
    await page.goto("/cart");
    expect(await page.getByText("Card payment needs JavaScript").count()).toBe(1);
    const line = page.locator(".cart-line");
    await line.getByRole("button", { name: /Increase quantity/ }).click();
    await page.waitForURL("**/cart");
    expect(await line.locator(".cart-qty").innerText()).toContain("2");
    expect(await page.getByTestId("subtotal").textContent()).toBe("$56.00");
    await line.getByRole("button", { name: /Decrease quantity/ }).click();
    expect(await line.locator(".cart-qty").innerText()).toContain("1");
    // The checkout form without JavaScript: each field's message, 'Please fill in all required fields.' once, values kept.
    await page.getByLabel("First Name").fill("Jordan");
    await page.getByLabel("City").fill("Birmingham");
    await page.getByLabel(/^ZIP Code/).fill("352");
    await page.getByRole("button", { name: "Check Details and Shipping" }).click();
    await page.waitForURL("**/cart/checkout");
    expect(await page.locator(".form-errors > p").innerText()).toBe("Please fill in all required fields.");
    expect(await page.getByText("Please fill in all required fields.").count()).toBe(1);
    expect(await page.locator(".field-error").allInnerTexts()).toEqual([
      "Enter your last name", "Enter your email address", "Enter the name of the person receiving the order", "Enter the street address", "Choose a state", "Enter a 5-digit ZIP code (or ZIP+4)",
    ]);
    expect(await page.getByLabel("City").inputValue()).toBe("Birmingham");
    expect(await page.getByLabel("First Name").inputValue()).toBe("Jordan");
    expect(await page.getByTestId("shipping").textContent()).toBe("Calculated at checkout");
    await page.goto("/cart");
    await line.getByRole("button", { name: "Remove Ironside Snapback Cap from cart" }).click();
    await page.getByText("Item has been removed from your cart").waitFor();
    expect(await page.getByText("Your cart is empty").count()).toBe(1);
    await context.close();
  });

  it("has no serious accessibility violations on /cart, empty or full", async () => {
    const { page, context } = await newVisit(browser);
    await page.goto("/cart");
    expect(await seriousA11yViolations(page)).toEqual([]);
    await addCapFromShop(page);
    await page.goto("/cart");
    await cartStarted(page);
    expect(await seriousA11yViolations(page)).toEqual([]);
    // With the form's errors shown (the same fields and messages as without JavaScript), at 1280 and 375 px.
    await page.getByRole("button", { name: /^Pay / }).click();
    await page.locator(".form-errors").waitFor();
    expect(await page.locator(".form-errors > p").innerText()).toBe("Please fill in all required fields.");
    expect(await page.locator("main").getByText("Please fill in all required fields.").count()).toBe(1);
    expect(await page.locator(".field-error").allInnerTexts()).toContain("Enter the street address");
    expect(await seriousA11yViolations(page)).toEqual([]);
    await page.setViewportSize(MOBILE);
    expect(await seriousA11yViolations(page)).toEqual([]);
    await context.close();
  });
});

/** Retries a read until it matches (widgets update after their API call answers). */
async function expect_(read: () => Promise<string>, pattern: RegExp, ms = 5000): Promise<void> {
  const end = Date.now() + ms;
  let last = "";
  while (Date.now() < end) {
    last = await read();
    if (pattern.test(last)) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  expect(last).toMatch(pattern);
}
