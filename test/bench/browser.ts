/**
 * `npm run bench:browser`: what each page type costs in the browser, with the budgets of the performance issue.
 * Starts the site as `npm run bench` does (by default the embedded development defaults, SQLite and in-process
 * sessions; `--production` for production settings on MySQL + Redis), then for each page:
 *   - the JavaScript and CSS Chromium downloads, in transfer bytes (compressed as Chromium negotiates), at load and
 *     after scrolling through the whole page (widgets below the fold load their code then); Stripe.js aside;
 *   - the Lighthouse mobile scores (performance, accessibility, best practices, SEO), the median of `--runs` runs.
 * Prints the table, writes the `browser` part of bench/results.json (keeping the `http` part of `npm run bench`)
 * and exits 1 when a budget is broken.
 *
 *   npm run bench:browser [-- --production] [-- --runs 3] [-- /path ...]
 *   CHROMIUM_PATH (default /usr/bin/chromium)
 *
 * With --production the card pages load the real Stripe.js: without a network it fails, and Lighthouse counts
 * that console error against best practices.
 */
import { spawn } from "node:child_process";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";
import { chromium, type Browser, type BrowserContext, type Request } from "playwright-core";
import { BENCH_PAGES, PUBLIC_URL, proxyHeaders as remoteProxyHeaders, startBenchSite, writeResults } from "./site.ts";
import { toText } from "../../src/shared/toText.ts";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const args = process.argv.slice(2);
const production = args.includes("--production");
// The offline Stripe.js of the embedded mode answers this machine only, so there the browser is a local client
// behind the pretend proxy; in production mode it is a remote one.
const proxyHeaders = production ? remoteProxyHeaders : { ...remoteProxyHeaders, "x-forwarded-for": "127.0.0.1" };
const runsArg = args.indexOf("--runs");
const runs = runsArg >= 0 ? Number(args[runsArg + 1]) : 1;
const onlyPaths = args.filter((a) => a.startsWith("/"));
const chromiumPath = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
const CHROME_FLAGS = ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run", "--disable-background-networking", "--disable-component-update"];
const MOBILE = { width: 412, height: 823 };

const KB = 1024;
const BUDGET = { jsWithWidgets: 75 * KB, jsWithoutWidgets: 0, css: 12 * KB, performance: 95, accessibility: 100, "best-practices": 100, seo: 100 };
const CATEGORIES = ["performance", "accessibility", "best-practices", "seo"] as const;
type Category = (typeof CATEGORIES)[number];

/** The pages a browser shows; the registration pages join when the site answers them with 200. */
const PAGES = BENCH_PAGES.filter((p) => !p.httpOnly);

/** Stripe's own script (or its offline stand-in) is not ours to shrink. */
const isStripeJs = (url: string) => url.startsWith("https://js.stripe.com/") || new URL(url).pathname.startsWith("/__offline-stripe/");

interface Transfer {
  url: string;
  kind: "js" | "css";
  /** Bytes on the wire, as Chromium negotiated them (`encoding`). */
  bytes: number;
  encoding: string;
  /** The same file gzipped (level 9, as the build precompresses it): the unit of the budgets. */
  gzip: number;
}

/** Totals in gzip bytes (js, css) and in bytes on the wire. */
interface Bytes {
  js: number;
  css: number;
  jsTransfer: number;
  cssTransfer: number;
  files: Transfer[];
}

const sum = (files: Transfer[], kind: Transfer["kind"], unit: "bytes" | "gzip") => files.filter((f) => f.kind === kind).reduce((n, f) => n + f[unit], 0);
const bytesOf = (files: Transfer[]): Bytes => ({ js: sum(files, "js", "gzip"), css: sum(files, "css", "gzip"), jsTransfer: sum(files, "js", "bytes"), cssTransfer: sum(files, "css", "bytes"), files });

async function transferOf(request: Request): Promise<Transfer | undefined> {
  const response = await request.response();
  if (!response || isStripeJs(request.url())) return undefined;
  const type = response.headers()["content-type"] ?? "";
  const kind = /javascript/.test(type) ? "js" : /text\/css/.test(type) ? "css" : undefined;
  if (!kind) return undefined;
  const sizes = await request.sizes();
  const gzip = gzipSync(await response.body(), { level: 9 }).length;
  return { url: new URL(request.url()).pathname, kind, bytes: sizes.responseBodySize, encoding: response.headers()["content-encoding"] ?? "identity", gzip };
}

/**
 * Three sizes of the tee in the cart, added through the real cart route with the page's CSRF token. The product
 * page is read without rendering it, so the cart page's scripts and stylesheet are not in the cache yet.
 */
async function fillCart(context: BrowserContext, base: string): Promise<void> {
  const html = await (await context.request.get(`${base}/shop/heavyweight-tee`)).text();
  const token = /<meta name="csrf-token" content="([^"]*)"/.exec(html)?.[1] ?? "";
  for (const variantId of ["2001", "2002", "2003"]) {
    // The site checks Origin against its public URL, which the bench site sets to PUBLIC_URL.
    const res = await context.request.post(`${base}/api/cart/add`, {
      headers: { "x-csrf-token": token, origin: PUBLIC_URL },
      data: { shopifyProductId: "1001", shopifyVariantId: variantId, quantity: 1 },
    });
    if (!res.ok()) throw new Error(`adding to the cart failed: ${res.status()} ${await res.text()}`);
  }
}

/** JavaScript and CSS a first visit downloads: at load, and after scrolling through the whole page. */
async function measureBytes(browser: Browser, base: string, pagePath: string, cart: boolean) {
  // As behind the TLS proxy (production keeps its cookies to https requests).
  const context = await browser.newContext({ viewport: MOBILE, isMobile: true, hasTouch: true, extraHTTPHeaders: proxyHeaders });
  try {
    if (cart) await fillCart(context, base);
    const page = await context.newPage();
    const pending: Promise<Transfer | undefined>[] = [];
    page.on("requestfinished", (request) => pending.push(transferOf(request)));
    const response = await page.goto(`${base}${pagePath}`, { waitUntil: "networkidle" });
    if (response?.status() !== 200) throw new Error(`${pagePath} answered ${response?.status()}`);
    const widgets = await page.locator("[data-widget]").count();
    const noindex = (await page.locator('meta[name="robots"][content*="noindex"]').count()) > 0;
    const atLoad = (await Promise.all(pending)).filter((t) => t !== undefined);
    const loadCount = pending.length;
    await page.evaluate(async () => {
      for (let y = 0; y < document.documentElement.scrollHeight; y += window.innerHeight / 2) {
        window.scrollTo({ top: y, behavior: "instant" });
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    });
    await page.waitForLoadState("networkidle");
    await page.waitForTimeout(500);
    const afterScroll = [...atLoad, ...(await Promise.all(pending.slice(loadCount))).filter((t) => t !== undefined)];
    const cookie = (await context.cookies()).map((c) => `${c.name}=${c.value}`).join("; ");
    return { widgets, noindex, atLoad: bytesOf(atLoad), whole: bytesOf(afterScroll), cookie };
  } finally {
    await context.close();
  }
}

interface LighthouseRun {
  scores: Record<Category, number>;
  /** The SEO score without the is-crawlable audit: what a page that asks not to be indexed can reach. */
  seoIgnoringNoindex: number;
  metrics: Record<string, number>;
  /** The largest contentful paint's element, as Lighthouse quotes it. */
  lcpElement: string | null;
  /** Audits that lost points: id, score, title and (outside performance) the first things they name. */
  findings: { category: Category; id: string; score: number; title: string; items: string[] }[];
}

interface LighthouseReport {
  categories: Record<Category, { score: number | null; auditRefs: { id: string; weight: number }[] }>;
  audits: Record<string, { score: number | null; scoreDisplayMode: string; title: string; numericValue?: number; details?: unknown }>;
}

/** A category's score as Lighthouse computes it (weighted mean of the scored audits), leaving some audits out. */
function scoreWithout(report: LighthouseReport, category: Category, left: string[]): number {
  let total = 0;
  let weights = 0;
  for (const ref of report.categories[category].auditRefs) {
    const score = report.audits[ref.id]?.score;
    if (left.includes(ref.id) || score === null || score === undefined) continue;
    total += score * ref.weight;
    weights += ref.weight;
  }
  return weights ? Math.round((total / weights) * 100) : 100;
}

/** The first element an audit's details quote (for the LCP breakdown: the LCP element). */
function quotedElement(details: unknown): string | null {
  if (!details || typeof details !== "object") return null;
  const node = details as { type?: unknown; snippet?: unknown };
  if (node.type === "node" && typeof node.snippet === "string") return node.snippet;
  for (const value of Object.values(details)) {
    const found = quotedElement(value);
    if (found) return found;
  }
  return null;
}

/** What a failing audit names (console messages, addresses, elements): the first three. */
function namedItems(details: unknown): string[] {
  const items = (details as { items?: Record<string, unknown>[] } | undefined)?.items ?? [];
  return items
    .slice(0, 3)
    .map((item) => item.description ?? item.url ?? (item.node as { snippet?: unknown } | undefined)?.snippet ?? "")
    .map((text) => toText(text).slice(0, 200))
    .filter(Boolean);
}

/** Audits that lose points: scored ones, and the performance insights (unweighted, but they name the cause). */
const SCORED_MODES = new Set(["binary", "numeric", "metricSavings"]);

/** One Lighthouse mobile run; a run that fails to record the page load (NO_NAVSTART and the like, now and then) is tried again once. */
async function lighthouse(url: string, cookie: string): Promise<LighthouseRun> {
  try {
    return await lighthouseOnce(url, cookie);
  } catch (err) {
    console.warn(`\t${(err as Error).message.split("\n").slice(0, 2).join(" ")}: trying again`);
    return lighthouseOnce(url, cookie);
  }
}

/** Lighthouse's CLI, which starts its own Chromium through chrome-launcher and CHROME_PATH. */
function lighthouseOnce(url: string, cookie: string): Promise<LighthouseRun> {
  const cli = path.join(root, "node_modules/lighthouse/cli/index.js");
  const argv = [cli, url, "--output=json", "--output-path=stdout", "--quiet", `--only-categories=${CATEGORIES.join(",")}`, `--chrome-flags=${CHROME_FLAGS.join(" ")}`];
  argv.push(`--extra-headers=${JSON.stringify({ ...proxyHeaders, ...(cookie ? { cookie } : {}) })}`);
  const child = spawn(process.execPath, argv, { env: { ...process.env, CHROME_PATH: chromiumPath }, stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  let err = "";
  child.stdout.on("data", (c: Buffer) => (out += c.toString()));
  child.stderr.on("data", (c: Buffer) => (err += c.toString()));
  return new Promise((resolve, reject) => {
    child.once("exit", (code) => {
      if (code !== 0) return reject(new Error(`lighthouse exited with ${code} on ${url}:\n${err.slice(-2000)}`));
      const report = JSON.parse(out) as LighthouseReport;
      const scores = Object.fromEntries(CATEGORIES.map((c) => [c, Math.round((report.categories[c].score ?? 0) * 100)])) as Record<Category, number>;
      const metrics = Object.fromEntries(
        ["first-contentful-paint", "largest-contentful-paint", "total-blocking-time", "cumulative-layout-shift", "speed-index"].map((id) => [id, Math.round((report.audits[id]?.numericValue ?? 0) * 1000) / 1000]),
      );
      const findings = CATEGORIES.flatMap((category) =>
        report.categories[category].auditRefs
          .map((ref) => ({ ref, audit: report.audits[ref.id]! }))
          .filter(({ audit }) => audit.score !== null && audit.score < 1 && SCORED_MODES.has(audit.scoreDisplayMode))
          .map(({ ref, audit }) => ({ category, id: ref.id, score: Math.round(audit.score! * 100) / 100, title: audit.title, items: category === "performance" ? [] : namedItems(audit.details) })),
      );
      const lcpElement = quotedElement(report.audits["lcp-breakdown-insight"]?.details);
      resolve({ scores, seoIgnoringNoindex: scoreWithout(report, "seo", ["is-crawlable"]), metrics, lcpElement, findings });
    });
  });
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor((sorted.length - 1) / 2)]!;
};

interface Row {
  path: string;
  widgets: number;
  /** The page asks search engines not to index it (cart, registration): Lighthouse's is-crawlable fails on purpose. */
  noindex: boolean;
  lcpElement: string | null;
  /** gzip bytes: JavaScript at load and for the whole page, CSS for the whole page. */
  jsAtLoad: number;
  js: number;
  css: number;
  /** The same, whole page, in bytes on the wire (Chromium negotiates brotli). */
  jsTransfer: number;
  cssTransfer: number;
  files: Transfer[];
  scores: Record<Category, number>;
  runs: LighthouseRun[];
  broken: string[];
}

const kb = (n: number) => (n / KB).toFixed(1);

const site = await startBenchSite({ embedded: !production });
const rows: Row[] = [];
const problems: string[] = [];
let chromiumVersion = "";
try {
  const browser = await chromium.launch({ executablePath: chromiumPath, headless: true, args: CHROME_FLAGS.filter((f) => !f.startsWith("--headless")) });
  chromiumVersion = browser.version();
  try {
    for (const page of PAGES.filter((p) => onlyPaths.length === 0 || onlyPaths.includes(p.path))) {
      if (page.optional) {
        const status = (await fetch(`${site.url}${page.path}`, { headers: proxyHeaders, redirect: "manual" })).status;
        if (status !== 200) {
          console.log(`${page.path}\tleft out: answered ${status}`);
          continue;
        }
      }
      const bytes = await measureBytes(browser, site.url, page.path, page.cart ?? false);
      const lighthouseRuns: LighthouseRun[] = [];
      for (let i = 0; i < runs; i++) lighthouseRuns.push(await lighthouse(`${site.url}${page.path}`, page.cart ? bytes.cookie : ""));
      const scores = Object.fromEntries(CATEGORIES.map((c) => [c, median(lighthouseRuns.map((r) => r.scores[c]))])) as Record<Category, number>;
      const seoIgnoringNoindex = median(lighthouseRuns.map((r) => r.seoIgnoringNoindex));

      const broken: string[] = [];
      const jsBudget = bytes.widgets > 0 ? BUDGET.jsWithWidgets : BUDGET.jsWithoutWidgets;
      if (bytes.whole.js > jsBudget) broken.push(`JS ${kb(bytes.whole.js)} KB > ${kb(jsBudget)} KB${bytes.widgets ? "" : " (no widgets)"}`);
      if (bytes.whole.css > BUDGET.css) broken.push(`CSS ${kb(bytes.whole.css)} KB > ${kb(BUDGET.css)} KB`);
      for (const c of CATEGORIES) {
        const score = c === "seo" && bytes.noindex ? seoIgnoringNoindex : scores[c];
        if (score < BUDGET[c]) broken.push(`${c} ${score} < ${BUDGET[c]}`);
      }
      rows.push({ path: page.path, widgets: bytes.widgets, noindex: bytes.noindex, lcpElement: lighthouseRuns[0]?.lcpElement ?? null, jsAtLoad: bytes.atLoad.js, js: bytes.whole.js, css: bytes.whole.css, jsTransfer: bytes.whole.jsTransfer, cssTransfer: bytes.whole.cssTransfer, files: bytes.whole.files, scores, runs: lighthouseRuns, broken });
      problems.push(...broken.map((b) => `${page.path}: ${b}`));

      console.log(`${page.path}\tJS ${kb(bytes.atLoad.js)} KB at load, ${kb(bytes.whole.js)} KB whole page\tCSS ${kb(bytes.whole.css)} KB (gzip)\t${CATEGORIES.map((c) => `${c} ${scores[c]}`).join("  ")}${broken.length ? `\tBROKEN: ${broken.join(", ")}` : ""}`);
      console.log(`\tlargest contentful paint: ${lighthouseRuns[0]?.lcpElement ?? "?"}`);
      const findings = new Map(lighthouseRuns.flatMap((r) => r.findings).map((f) => [`${f.category}/${f.id}`, f]));
      for (const f of findings.values()) console.log(`\t${f.category}: ${f.id} (${f.score}) ${f.title}${f.items.map((i) => `\n\t\t${i}`).join("")}`);
    }
  } finally {
    await browser.close();
  }
} finally {
  await site.stop();
}

const table = [
  "| page | JS at load | JS whole page | CSS | JS / CSS on the wire | performance | accessibility | best practices | SEO |",
  "|---|---|---|---|---|---|---|---|---|",
  ...rows.map((r) => `| ${r.path} | ${kb(r.jsAtLoad)} | ${kb(r.js)} | ${kb(r.css)} | ${kb(r.jsTransfer)} / ${kb(r.cssTransfer)} | ${CATEGORIES.map((c) => (c === "seo" && r.noindex ? `${r.scores[c]}*` : r.scores[c])).join(" | ")} |${r.broken.length ? " ✗" : ""}`),
].join("\n");
console.log(`\n${table}\n\nJS and CSS in KiB gzip (the budgets' unit), Stripe.js aside; on the wire: as Chromium negotiated (${[...new Set(rows.flatMap((r) => r.files.map((f) => f.encoding)))].join(", ")}). Lighthouse mobile, median of ${runs} run(s).${rows.some((r) => r.noindex) ? "\n* noindex on purpose: the SEO budget leaves Lighthouse's is-crawlable audit out for this page." : ""}\n`);

writeResults(root, "browser", {
  date: new Date().toISOString(),
  mode: site.mode,
  chromium: chromiumVersion,
  machine: { cpus: os.cpus().length, loadAverage: os.loadavg().map((l) => Math.round(l * 100) / 100) },
  lighthouseRuns: runs,
  budget: BUDGET,
  pages: rows,
  problems,
});
if (problems.length) {
  console.error(`Budgets broken:\n${problems.map((p) => `- ${p}`).join("\n")}`);
  process.exit(1);
}
console.log("Every budget holds.");
