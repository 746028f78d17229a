import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser, Page } from "playwright-core";
import { baseUrl, DESKTOP, launchBrowser, MOBILE, newVisit, seriousA11yViolations } from "../support/browser.ts";
import { startServer, type RunningServer } from "../support/server.ts";
import { scaledMs } from "../support/timeouts.ts";
import { startFakeShopify, type FakeShopify } from "../fakes/shopify.ts";
import { loadAssets } from "../../src/http/assets.ts";

let browser: Browser;
beforeAll(async () => {
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
});

/** Script paths the page requests. */
function recordScripts(page: Page): string[] {
  const scripts: string[] = [];
  page.on("request", (r) => {
    if (r.resourceType() === "script") scripts.push(new URL(r.url()).pathname);
  });
  return scripts;
}

/** Pages link a picture's content-hashed copy in the build. */
const picture = loadAssets().image;
const mainImage = (page: Page) => page.locator('[data-testid="gallery-main"]').getAttribute("src");
const price = async (page: Page) => (await page.locator('[data-testid="price"]').textContent()) ?? "";
const stock = (page: Page) => page.locator('[data-testid="stock"]').innerText();
const lastToast = (page: Page) => page.locator("#toast-region .toast:not([hidden])").last();

/** The picker's code loads at the first hover, focus or touch of it. */
async function hydrated(page: Page): Promise<void> {
  await page.locator('[data-widget="ProductPicker"] h1').hover();
  await page.locator('[data-widget="ProductPicker"][data-hydrated="true"]').waitFor();
}

describe("shop in Chromium, JavaScript on", () => {
  it("/shop loads no JavaScript and its cards lead to the product page", async () => {
    const { page, context } = await newVisit(browser);
    const scripts = recordScripts(page);
    await page.goto("/shop", { waitUntil: "networkidle" });
    expect(scripts).toEqual([]);
    expect(await page.title()).toBe("Shop | Ironside");
    const cards = page.locator(".product-card");
    expect(await cards.count()).toBe(4);
    // The e2e server sets no SHIPS_STARTING_DATE: no card promises a shipping day.
    expect(await cards.first().innerText()).not.toContain("Ships starting");
    expect(await page.getByText("Contact for pricing").count()).toBe(1);
    await page.getByRole("link", { name: "Ironside Heavyweight Tee" }).click();
    await page.waitForURL("**/shop/heavyweight-tee");
    expect(await page.title()).toBe("Ironside Heavyweight Tee | Ironside");
    await page.goBack();
    expect(await page.title()).toBe("Shop | Ironside");
    await context.close();
  });

  it("a product page loads only the boot script, React (the runtime chunk) and the product-picker chunks", async () => {
    const { page, context, problems } = await newVisit(browser);
    const scripts = recordScripts(page);
    await page.goto("/shop/heavyweight-tee", { waitUntil: "networkidle" });
    await hydrated(page);
    const manifest = (await (await page.request.get("/build/manifest.json")).json()) as {
      entries: Record<string, { url: string; imports: string[] }>;
      widgets: Record<string, string[]>;
    };
    const allowed = new Set([manifest.entries["boot.js"]!.url, ...manifest.entries["boot.js"]!.imports, ...manifest.widgets.runtime!, ...manifest.widgets.ProductPicker!]);
    expect(scripts.length).toBeGreaterThan(1);
    expect(scripts.filter((s) => !allowed.has(s))).toEqual([]);
    expect(scripts).toContain(manifest.widgets.ProductPicker![0]);
    expect(problems).toEqual([]);
    await context.close();
  });

  it("picking options moves the picture, price and stock, and keeps the choice in the address", async () => {
    const { page, context, problems } = await newVisit(browser);
    await page.goto("/shop/heavyweight-tee");
    await hydrated(page);
    expect(await mainImage(page)).toBe(picture("/images/products/tee-black.svg"));
    expect(await price(page)).toBe("$32.00");

    await page.getByRole("link", { name: "Red", exact: true }).click();
    expect(await mainImage(page)).toBe(picture("/images/products/tee-red.svg"));
    expect(await price(page)).toContain("Save $6.00");
    expect(new URL(page.url()).search).toBe("?Size=S&Color=Red");
    expect(await page.locator(".option-chosen").allInnerTexts()).toEqual(["S", "Red"]);

    // XXL in red is sold out: the picker says so before it is chosen, and the button says 'Sold Out'.
    await page.getByRole("link", { name: "XXL (sold out)", exact: true }).click();
    expect(await price(page)).toMatch(/^\$35\.00/);
    expect(await stock(page)).toBe("Out of Stock");
    // aria-disabled (still focusable and pressable, so it can say why): Playwright would wait for it to be enabled.
    await page.getByRole("button", { name: "Sold Out" }).click({ force: true });
    await expect.poll(() => lastToast(page).innerText()).toContain("Out of Stock");
    expect(await lastToast(page).innerText()).toContain("This variant is currently out of stock");

    // Zero inventory refuses the same way.
    await page.getByRole("link", { name: /^White( \(sold out\))?$/ }).click();
    await page.getByRole("link", { name: "XL (sold out)", exact: true }).click();
    expect(await mainImage(page)).toBe(picture("/images/products/tee-white.svg"));
    expect(await stock(page)).toBe("Out of Stock");
    // The same message again replaces the earlier toast (widgets/toast.ts): a new toast, never a second copy.
    await page.locator("#toast-region .toast").evaluateAll((toasts) => toasts.forEach((t) => t.setAttribute("data-earlier", "")));
    await page.getByRole("button", { name: "Sold Out" }).click({ force: true });
    await expect.poll(() => page.locator("#toast-region .toast:not([data-earlier])").count()).toBe(1);
    expect(await page.locator("#toast-region .toast", { hasText: "This variant is currently out of stock" }).count()).toBe(1);
    expect(await lastToast(page).innerText()).toContain("This variant is currently out of stock");

    // A thumbnail shows its picture.
    await page.getByRole("link", { name: /Show picture 4/ }).click();
    expect(await mainImage(page)).toBe(picture("/images/products/tee-back.svg"));

    // Reloading keeps the chosen variant (the server reads the address).
    await page.reload();
    expect(await page.locator(".option-chosen").allInnerTexts()).toEqual(["XL", "White"]);
    expect(problems).toEqual([]);
    await context.close();
  });

  it("the quantity stepper stays between 1 and the stock, and is off for an out-of-stock variant", async () => {
    const { page, context } = await newVisit(browser);
    await page.goto("/shop/heavyweight-tee?Size=M&Color=Black");
    await hydrated(page);
    const minus = page.getByRole("button", { name: "Decrease quantity" });
    const plus = page.getByRole("button", { name: "Increase quantity" });
    const qty = page.getByRole("spinbutton", { name: "Quantity" });
    expect(await stock(page)).toBe("Only 3 left in stock");
    expect(await minus.isDisabled()).toBe(true);
    await plus.click();
    await plus.click();
    expect(await qty.inputValue()).toBe("3");
    expect(await plus.isDisabled()).toBe(true);
    expect(await page.locator(".qty-limit").innerText()).toBe("Only 3 left in stock: you can add up to 3.");
    expect(await minus.isDisabled()).toBe(false);
    await minus.click();
    expect(await qty.inputValue()).toBe("2");
    await qty.fill("0");
    expect(await qty.inputValue()).toBe("1");
    await page.getByRole("link", { name: "XXL", exact: true }).click();
    await page.getByRole("link", { name: "Red (sold out)", exact: true }).click();
    expect(await plus.isDisabled()).toBe(true);
    await context.close();
  });

  it("adds through POST /api/cart/add with the spec's cart item, and shows the server's answer", async () => {
    const { page, context } = await newVisit(browser);
    const bodies: Record<string, unknown>[] = [];
    let answer: { status: number; body: unknown } = { status: 200, body: { success: true, itemCount: 2 } };
    // The cart is another feature: here its answer is played back, so the picker's side of the contract is what is tested.
    await page.route("**/api/cart/add", async (route) => {
      bodies.push(route.request().postDataJSON() as Record<string, unknown>);
      expect(route.request().headers()["x-csrf-token"]).toBeTruthy();
      await route.fulfill({ status: answer.status, contentType: "application/json", body: JSON.stringify(answer.body) });
    });
    await page.goto("/shop/heavyweight-tee?Size=L&Color=Black");
    await hydrated(page);
    await page.getByRole("button", { name: "Increase quantity" }).click();
    await page.getByRole("button", { name: "Add to Cart" }).click();
    await expect.poll(() => lastToast(page).innerText()).toContain("Added to Cart");
    expect(await lastToast(page).innerText()).toContain("2 × Ironside Heavyweight Tee (L / Black) added to cart!");
    expect(bodies[0]).toEqual({
      shopifyProductId: "1001",
      shopifyVariantId: "2003",
      productHandle: "heavyweight-tee",
      productTitle: "Ironside Heavyweight Tee",
      variantTitle: "L / Black",
      price: 32,
      compareAtPrice: null,
      quantity: 2,
      // The picture as the page links it (the server takes its own from the catalogue).
      productImage: picture("/images/products/tee-black.svg"),
      productType: "Shirts",
      vendor: "Ironside",
      selectedSize: "L",
      selectedColor: "Black",
      variantOptions: { Size: "L", Color: "Black" },
    });

    answer = { status: 400, body: { success: false, error: "Only 1 left in stock" } };
    await page.getByRole("button", { name: "Add to Cart" }).click();
    await expect.poll(() => lastToast(page).innerText()).toContain("Only 1 left in stock");
    expect(await lastToast(page).innerText()).toContain("Error");

    answer = { status: 500, body: "" };
    await page.getByRole("button", { name: "Add to Cart" }).click();
    await expect.poll(() => lastToast(page).innerText()).toContain("Failed to add item to cart");
    await context.close();
  });

  it("adds to the real cart: the header badge follows at once and /cart lists the line", async () => {
    const { page, context } = await newVisit(browser);
    await page.goto("/shop/heavyweight-tee?Size=M&Color=Black");
    await hydrated(page);
    const badge = page.locator('[data-cart-badge="desktop"]');
    expect(await badge.isHidden()).toBe(true);
    await page.getByRole("button", { name: "Increase quantity" }).click();
    await page.getByRole("button", { name: "Add to Cart" }).click();
    await expect.poll(() => badge.textContent()).toBe("2");
    expect(await badge.isVisible()).toBe(true);
    expect(await page.locator("[data-cart-link]").getAttribute("aria-label")).toBe("Cart, 2 items");
    const cart = (await (await page.request.get("/api/cart")).json()) as { itemCount: number; cartItems: { productTitle: string }[] };
    expect(cart.itemCount).toBe(2);
    expect(cart.cartItems.map((i) => i.productTitle)).toEqual(["Ironside Heavyweight Tee"]);
    await context.close();
  });

  it("sends the fallback size of a tee without a size option", async () => {
    const { page, context } = await newVisit(browser);
    const bodies: Record<string, unknown>[] = [];
    await page.route("**/api/cart/add", async (route) => {
      bodies.push(route.request().postDataJSON() as Record<string, unknown>);
      await route.fulfill({ status: 200, contentType: "application/json", body: "{}" });
    });
    await page.goto("/shop/heavyweight-tee-blackout");
    await hydrated(page);
    expect(await page.locator(".option-value").allInnerTexts()).toEqual(["XS", "S", "M", "L", "XL", "XXL"]);
    await page.getByRole("link", { name: "XL", exact: true }).click();
    await page.getByRole("button", { name: "Add to Cart" }).click();
    await expect.poll(() => bodies.length).toBe(1);
    expect(bodies[0]).toMatchObject({ selectedSize: "XL", variantOptions: { Title: "Default Title", Size: "XL" } });
    await context.close();
  });

  it("event items link to their event, and an unknown product says 'Product not found'", async () => {
    const { page, context } = await newVisit(browser);
    await page.goto("/shop/1");
    const register = page.getByRole("link", { name: "Register for Event - $249.00" });
    expect(await register.getAttribute("href")).toBe("/events/1");
    const res = await page.goto("/shop/no-such-product");
    expect(res?.status()).toBe(404);
    expect(await page.getByRole("heading", { level: 1 }).innerText()).toMatch(/product not found/i);
    await page.getByRole("link", { name: "Back to Shop" }).click();
    await page.waitForURL("**/shop");
    await context.close();
  });
});

describe("shop in Chromium, JavaScript off", () => {
  it("options, pictures and stock work as links; the add form posts for real", async () => {
    const { page, context } = await newVisit(browser, { javaScript: false });
    await page.goto("/shop/heavyweight-tee");
    expect(await page.getByRole("button", { name: "Increase quantity" }).isVisible()).toBe(false);
    await page.getByRole("link", { name: "Red", exact: true }).click();
    await page.waitForURL("**/shop/heavyweight-tee?Size=S&Color=Red");
    expect(await mainImage(page)).toBe(picture("/images/products/tee-red.svg"));
    expect(await price(page)).toContain("Save $6.00");
    await page.getByRole("link", { name: "XXL (sold out)", exact: true }).click();
    await page.waitForURL("**/shop/heavyweight-tee?Size=XXL&Color=Red");
    expect(await stock(page)).toBe("Out of Stock");
    expect(await page.locator("form.add-form button[type=submit]").innerText()).toMatch(/sold out/i);
    await page.getByRole("link", { name: /^White( \(sold out\))?$/ }).click();
    await page.getByRole("link", { name: "XL (sold out)", exact: true }).click();
    await page.waitForURL("**/shop/heavyweight-tee?Size=XL&Color=White");
    expect(await stock(page)).toBe("Out of Stock");
    await page.getByRole("link", { name: /Show picture 4/ }).click();
    expect(await mainImage(page)).toBe(picture("/images/products/tee-back.svg"));

    const form = page.locator("form.add-form");
    expect(await form.getAttribute("action")).toBe("/cart/add");
    expect(await form.getAttribute("method")).toBe("post");
    expect(await form.locator('input[name="variantId"]').inputValue()).toBe("2009");
    expect(await form.locator('input[name="_csrf"]').inputValue()).not.toBe("");
    expect(await page.getByRole("spinbutton", { name: "Quantity" }).inputValue()).toBe("1");
    expect(await page.getByRole("spinbutton", { name: "Quantity" }).getAttribute("min")).toBe("1");
    await context.close();
  });

  it("shop cards post quantity 1 to the cart route", async () => {
    const { page, context } = await newVisit(browser, { javaScript: false });
    await page.goto("/shop");
    const form = page.locator("form.card-add").first();
    expect(await form.getAttribute("action")).toBe("/cart/add");
    expect(await form.locator('input[name="quantity"]').inputValue()).toBe("1");
    expect(await form.locator('input[name="productId"]').inputValue()).toBe("1001");
    await context.close();
  });
});

describe("shop accessibility", () => {
  for (const [label, viewport] of [["mobile", MOBILE], ["desktop", DESKTOP]] as const) {
    it.each(["/shop", "/shop/heavyweight-tee?Size=XXL&Color=Red", "/shop/no-such-product"])(`%s has no serious axe violations (${label})`, async (path) => {
      const { page, context } = await newVisit(browser, { viewport });
      await page.goto(path);
      if (path.includes("heavyweight-tee")) await hydrated(page);
      expect(await seriousA11yViolations(page)).toEqual([]);
      await context.close();
    });
  }
});

describe("shop on a fake Shopify in Chromium", () => {
  let fake: FakeShopify;
  let server: RunningServer;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "shop-e2e-"));
  beforeAll(async () => {
    fake = await startFakeShopify();
    server = await startServer({ ...fake.env(), SQLITE_PATH: ":memory:", MAIL_DIR: path.join(dir, "mail"), LOG_LEVEL: "warn" });
  });
  afterAll(async () => {
    await server?.stop();
    await fake?.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it("shows Shopify's products and picks options; with Shopify stopped, answers quickly with the empty states", async () => {
    expect(server.url).not.toBe(baseUrl());
    const { page, context, problems } = await newVisit(browser);
    await page.goto(`${server.url}/shop`);
    expect(await page.locator(".product-card").count()).toBe(4);
    // The next page's picker is hovered once it has loaded (its script has run by then).
    await Promise.all([page.waitForEvent("load"), page.getByRole("link", { name: "Ironside Snapback Cap" }).click()]);
    await hydrated(page);
    await page.getByRole("link", { name: "Red", exact: true }).click();
    expect(await mainImage(page)).toBe(picture("/images/products/cap-red.svg"));
    expect(await price(page)).toContain("Save $4.00");
    expect(problems).toEqual([]);

    await fake.stop();
    // A product not read yet (nothing cached) and the list, cached by now, both still answer.
    let started = Date.now();
    const missing = await page.goto(`${server.url}/shop/gear-bag`);
    expect(Date.now() - started).toBeLessThan(scaledMs(3000));
    expect(missing?.status()).toBe(503);
    expect(await page.getByRole("heading", { level: 1 }).innerText()).toMatch(/product not found/i);
    started = Date.now();
    await page.goto(`${server.url}/shop`);
    expect(Date.now() - started).toBeLessThan(scaledMs(3000));
    expect(await page.locator(".product-card").count()).toBe(4);
    await context.close();
  });
});
