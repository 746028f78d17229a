import fs from "node:fs";
import path from "node:path";
import { chromium, type Browser, type BrowserContext, type Page } from "playwright-core";
import { AxeBuilder } from "@axe-core/playwright";
import knexFactory, { type Knex } from "knex";
import { inject } from "vitest";
import { trackLeftover } from "./children.ts";
import { CHROMIUM_FLAGS, chromiumPath } from "./chromium.ts";
import { scaledMs } from "./timeouts.ts";

export { CHROMIUM_FLAGS, chromiumPath };

export const MOBILE = { width: 375, height: 800 };
export const DESKTOP = { width: 1280, height: 900 };

export function baseUrl(): string {
  return inject("baseUrl");
}

/**
 * Chromium for a test file: in the journeys, a connection to the one browser the run shares (test/e2e/globalSetup.ts:
 * launching one per file cost a start each), elsewhere a browser of its own. Closing it closes the contexts this
 * connection opened (each file still starts with none) and disconnects; the test that opened it closes it, or it is
 * closed after its file at the latest (test/support/stopLeftovers.ts).
 */
export async function launchBrowser(): Promise<Browser> {
  const shared = inject("browserWsEndpoint");
  const browser = shared
    ? await chromium.connect(shared)
    : await chromium.launch({ executablePath: chromiumPath(), headless: true, args: CHROMIUM_FLAGS });
  const untrack = trackLeftover(() => browser.close());
  browser.once("disconnected", untrack);
  return browser;
}

export interface Visit {
  context: BrowserContext;
  page: Page;
  /** Console errors and warnings, page errors (hydration mismatches show up here). */
  problems: string[];
}

/** A new browser context on the e2e server (`baseURL`: a server the test started itself). */
export async function newVisit(browser: Browser, opts: { javaScript?: boolean; viewport?: { width: number; height: number }; baseURL?: string } = {}): Promise<Visit> {
  const context = await browser.newContext({
    baseURL: opts.baseURL ?? baseUrl(),
    javaScriptEnabled: opts.javaScript ?? true,
    viewport: opts.viewport ?? DESKTOP,
  });
  // Playwright's own 30 s for every wait and action is a guard against a hang, scaled with the machine's load like the rest.
  context.setDefaultTimeout(scaledMs(30_000));
  context.setDefaultNavigationTimeout(scaledMs(30_000));
  const page = await context.newPage();
  const problems: string[] = [];
  page.on("console", (msg) => {
    if (msg.type() === "error" || msg.type() === "warning") problems.push(`${msg.type()}: ${msg.text()}`);
  });
  page.on("pageerror", (err) => problems.push(`pageerror: ${err.message}`));
  problemsOf.set(page, problems);
  return { context, page, problems };
}

const problemsOf = new WeakMap<Page, string[]>();

/**
 * Scrolls a widget into view at once (the site scrolls smoothly, and an animation can be cut short) and waits until
 * it has hydrated: widgets below the fold load their code when they come near the viewport. A timeout names what
 * the page logged, so a widget that failed to start says why.
 */
export async function hydratedInView(page: Page, widget: string, timeout = scaledMs(20_000)): Promise<void> {
  const el = page.locator(`[data-widget="${widget}"]`).first();
  await el.evaluate((node) => node.scrollIntoView({ block: "center", behavior: "instant" }));
  try {
    await page.waitForSelector(`[data-widget="${widget}"][data-hydrated="true"]`, { state: "attached", timeout });
  } catch (err) {
    const logged = problemsOf.get(page) ?? [];
    throw new Error(`${widget} did not hydrate within ${timeout} ms; the page logged: ${JSON.stringify(logged)}`, { cause: err });
  }
}

/**
 * Serious and critical axe violations on the page, as readable lines (empty when clean). axe's default run finishes
 * in a blank page of its own, opened, loaded with axe and closed at each check: it is there for cross-origin frames.
 * A page without frames (the offline Stripe draws its fields in the page) is checked in place (axe.run, "legacy
 * mode"): the same rules and results, in about half the time.
 */
export async function seriousA11yViolations(page: Page): Promise<string[]> {
  // A toast caught fading (a server toast fades out 8 s after the page loads, which a slow journey reaches) has the
  // contrast of its half-way opacity: the scan waits for the page's finite animations and transitions to end (an
  // endless or scroll-driven one is left running), so it judges a settled page.
  await page.evaluate(() =>
    Promise.all(
      document
        .getAnimations()
        .filter((a) => Number.isFinite(a.effect?.getComputedTiming().endTime ?? Infinity))
        .map((a) => a.finished.catch(() => undefined)),
    ),
  );
  const axe = new AxeBuilder({ page }).withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]);
  const results = await (page.frames().length > 1 ? axe : axe.setLegacyMode(true)).analyze();
  return results.violations
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .map((v) => `${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(" ")).slice(0, 3).join(", ")})`);
}

/** The e2e server's database, to assert what a journey stored. */
export function e2eDb(): Knex {
  return knexFactory({ client: "better-sqlite3", connection: { filename: inject("sqlitePath") }, useNullAsDefault: true });
}

export function mailDir(): string {
  return inject("mailDir");
}

/** Every e-mail the e2e server's outbox (or the one writing to `dir`) has written so far (one .eml file each). */
export function sentMails(dir: string = mailDir()): string[] {
  return fs.existsSync(dir) ? fs.readdirSync(dir).map((f) => fs.readFileSync(path.join(dir, f), "utf8")) : [];
}
