import { expect } from "vitest";
import type { Browser, Page } from "playwright-core";
import { newVisit, seriousA11yViolations, sentMails } from "./browser.ts";

/** The page is not wider than the screen (no sideways scrolling). */
export async function fits(page: Page): Promise<void> {
  const widths = await page.evaluate(() => ({ scroll: document.documentElement.scrollWidth, inner: window.innerWidth }));
  expect(widths.scroll, `${page.url()} is wider than the screen`).toBeLessThanOrEqual(widths.inner);
}

/** Fits the screen; axe runs where the page's scripts can (with JavaScript off the markup is the same, only its width is checked). */
export async function checked(page: Page, javaScript = true): Promise<void> {
  await fits(page);
  if (javaScript) expect(await seriousA11yViolations(page), page.url()).toEqual([]);
}

/** A team athlete of `payTeam`: `kid{i}.{tag}.family@example.com`, whose parent is `Parent {i}`. */
export const familyAddress = (i: number, tag: string) => `kid${i}.${tag}.family@example.com`;

/**
 * A paid team of 5 for event 2, made through the site's own JSON calls and the offline Stripe's confirm (the card
 * form itself is covered by the team journey): returns the coach's manage link from the confirmation page.
 */
export async function payTeam(browser: Browser, coachEmail: string, tag: string): Promise<string> {
  const { page, context } = await newVisit(browser);
  await page.goto("/team-register/2");
  const csrf = (await page.locator('meta[name="csrf-token"]').getAttribute("content"))!;
  const athletes = [1, 2, 3, 4, 5].map((i) => ({ firstName: `Kid${i}`, lastName: "Rivera", age: 12, email: familyAddress(i, tag), shirtSize: "Medium", parentName: `Parent ${i}`, parentPhoneNumber: "205-555-0100" }));
  const held = await context.request.post("/api/team-registration", {
    headers: { "x-csrf-token": csrf },
    data: { eventId: 2, coachInfo: { firstName: "Dana", lastName: "Rivera", email: coachEmail, phone: "(205) 555-0142", teamName: "Rivera WC" }, athletes, formSessionId: `manage-e2e-team-${tag}-${Date.now()}` },
  });
  expect(held.status(), await held.text()).toBe(200);
  const { clientSecret } = (await held.json()) as { clientSecret: string };
  const intentId = clientSecret.split("_secret_")[0]!;
  const checkout = await (await context.request.get("/stripe-checkout?eventId=2&option=team")).text();
  const key = /"publishableKey":"([^"]+)"/.exec(checkout)![1]!;
  const confirmed = await context.request.post(`/__offline-stripe/v1/payment_intents/${intentId}/confirm`, {
    form: { key, client_secret: clientSecret, "payment_method_data[type]": "card", "payment_method_data[card][number]": "4242424242424242", "payment_method_data[card][exp_month]": "12", "payment_method_data[card][exp_year]": "2034", "payment_method_data[card][cvc]": "123" },
  });
  expect(confirmed.status()).toBe(200);
  const paid = await context.request.post("/api/events/2/stripe-payment-success", { headers: { "x-csrf-token": csrf }, data: { paymentIntentId: intentId, option: "team" } });
  expect(((await paid.json()) as { status: string }).status).toBe("paid");
  await page.goto("/stripe-checkout?eventId=2&option=team");
  const href = await page.getByRole("link", { name: "See, change or cancel this registration" }).getAttribute("href");
  await context.close();
  return href!;
}

/** The e-mails the outbox (of the e2e server, or writing to `dir`) has written to this address so far (quoted-printable soft breaks joined). */
export function mailsTo(address: string, dir?: string): string[] {
  return sentMails(dir)
    .map((m) => m.replace(/=\r?\n/g, ""))
    .filter((m) => new RegExp(`^To: .*${address.replace(/[.]/g, "\\.")}`, "m").test(m));
}

/** The family links e-mailed to this address (the outbox writes each within seconds); waits until there are `count`. */
export async function familyLinksFor(address: string, count = 1): Promise<string[]> {
  for (let i = 0; i < 100; i++) {
    const links = mailsTo(address)
      .map((m) => /\/my-registration\/([A-Za-z0-9_-]{43})/.exec(m)?.[1])
      .filter((token): token is string => Boolean(token))
      .map((token) => `/my-registration/${token}`);
    if (links.length >= count) return links;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`fewer than ${count} family link(s) were sent to ${address}`);
}
