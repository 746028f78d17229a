/**
 * Bundle sizes from esbuild's metafile (public/build/meta.json, written by `npm run build`): raw and gzip
 * bytes of every widget chunk, the boot script, the shared chunks (React's among them), what each widget
 * adds to a page, and each page's JavaScript in total (React included) against the 75 KB gzip budget.
 * Run: `npm run bench:bundles`.
 */
import fs from "node:fs";
import path from "node:path";
import { gzipSync } from "node:zlib";
import { fileURLToPath } from "node:url";

interface Output {
  bytes: number;
  entryPoint?: string;
  imports: { path: string; kind: string }[];
  inputs: Record<string, { bytesInOutput: number }>;
}

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const metaFile = path.join(root, "public/build/meta.json");
if (!fs.existsSync(metaFile)) {
  console.error("public/build/meta.json is missing: run `npm run build` first (npm run bench:bundles does).");
  process.exit(1);
}
const outputs = (JSON.parse(fs.readFileSync(metaFile, "utf8")) as { outputs: Record<string, Output> }).outputs;
const jsFiles = Object.keys(outputs).filter((f) => f.endsWith(".js"));

const sizes = new Map<string, { raw: number; gzip: number }>();
for (const file of jsFiles) {
  const content = fs.readFileSync(path.join(root, file));
  sizes.set(file, { raw: content.length, gzip: gzipSync(content, { level: 9 }).length });
}

/** Packages (or our own folders) whose code ends up in a chunk: names it for a reader. */
function contents(file: string): string {
  const names = new Set<string>();
  for (const [input, { bytesInOutput }] of Object.entries(outputs[file]!.inputs)) {
    if (bytesInOutput === 0) continue;
    const m = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(input);
    names.add(m ? m[1]! : input.split("/").slice(0, -1).join("/") || input);
  }
  return [...names].join(", ");
}

function label(file: string): string {
  const entry = outputs[file]!.entryPoint;
  if (entry) return entry.startsWith("widgets/") && !entry.endsWith("boot.ts") ? `widget ${path.basename(entry).replace(/\.tsx?$/, "")}` : `entry ${entry} (${contents(file)})`;
  const what = contents(file);
  return /\breact\b/.test(what) && !/react-dom/.test(what) ? `shared React chunk (${what})` : `shared chunk (${what})`;
}

const staticImports = (file: string, seen = new Set<string>()): Set<string> => {
  for (const imp of outputs[file]?.imports ?? []) {
    if (imp.kind === "import-statement" && !seen.has(imp.path)) {
      seen.add(imp.path);
      staticImports(imp.path, seen);
    }
  }
  return seen;
};

const bytes = (n: number) => `${n.toLocaleString("en-US")} B (${(n / 1024).toFixed(1)} KiB)`.padStart(22);
const row = (name: string, s: { raw: number; gzip: number }) => console.log(`${name.padEnd(70)} ${bytes(s.raw)} ${bytes(s.gzip)}`);
const total = (files: Iterable<string>) =>
  [...files].reduce((acc, f) => ({ raw: acc.raw + sizes.get(f)!.raw, gzip: acc.gzip + sizes.get(f)!.gzip }), { raw: 0, gzip: 0 });

console.log(`${"chunk".padEnd(70)} ${"raw".padStart(22)} ${"gzip".padStart(22)}`);
for (const file of jsFiles.sort((a, b) => label(a).localeCompare(label(b)))) row(`${label(file)} ${path.basename(file)}`, sizes.get(file)!);

const boot = jsFiles.find((f) => outputs[f]!.entryPoint === "widgets/boot.ts");
if (!boot) throw new Error("no widgets/boot.ts entry in the metafile");
const bootSet = new Set([boot, ...staticImports(boot)]);
// The production build never holds a test-only island (widgets/testIslands; only the e2e run's build adds them).
const testIslands = Object.keys(outputs).flatMap((f) => Object.keys(outputs[f]!.inputs)).filter((input) => input.startsWith("widgets/testIslands/"));
if (testIslands.length > 0) throw new Error(`test-only islands in the bundle (was it built with TEST_ISLANDS=1?): ${[...new Set(testIslands)].join(", ")}`);

/** Every file of an island's entry (widgets/islands/X.tsx, or widgets/runtime.ts for React): its chunk and what it imports. */
const widgetFiles = (name: string): string[] => {
  const entries = [`widgets/islands/${name}.tsx`, `widgets/${name}.tsx`, `widgets/${name}.ts`];
  const file = jsFiles.find((f) => entries.includes(outputs[f]!.entryPoint ?? ""));
  if (!file) throw new Error(`no chunk for widgets/${name} in the metafile`);
  return [file, ...staticImports(file)];
};
/** What a widget imports on demand once it runs (a form's schema when the visitor starts on the form), with its imports. */
const onDemandFiles = (files: string[]): string[] =>
  files.flatMap((f) => outputs[f]!.imports.filter((i) => i.kind === "dynamic-import").flatMap((i) => [i.path, ...staticImports(i.path)]));
console.log("\nwhat a page with one widget downloads besides React (boot + its imports + the widget's chunks):");
for (const file of jsFiles) {
  const entry = outputs[file]!.entryPoint;
  if (!entry?.startsWith("widgets/") || entry.endsWith("boot.ts") || entry.endsWith("runtime.ts")) continue;
  const files = new Set([...bootSet, file, ...staticImports(file)]);
  row(`page with ${path.basename(entry).replace(/\.tsx?$/, "")} (${files.size} files)`, total(files));
}

/**
 * Each page's JavaScript, gzip, React's runtime included (boot loads it with the first widget that starts), against
 * the budget: 75 KB gzip at page load where widgets are present (Stripe.js, loaded from Stripe, aside). The widgets
 * a page places and when they load are read from the source that places them (`<Widget name=... load=...>`).
 * "At load" is what the page fetches before any scroll or interaction: boot and its eager widgets. "In all" adds
 * the widgets that load when scrolled near or touched, and what widgets import on demand (a form's schema and zod,
 * when the visitor starts on the form).
 */
const JS_BUDGET_GZIP = 75 * 1024;
const PAGES: { page: string; sources: string[] }[] = [
  { page: "/", sources: ["views/pages/home/HomePage.tsx"] },
  { page: "/contact", sources: ["views/pages/contact/ContactPage.tsx"] },
  { page: "/custom-apparel", sources: ["views/pages/apparel/CustomApparelPage.tsx"] },
  { page: "/shop/{product}", sources: ["views/pages/shop/ProductPage.tsx"] },
  { page: "/cart (with items)", sources: ["views/pages/cart/CartPage.tsx"] },
  { page: "/events/{id} (coach requests open)", sources: ["views/pages/events/EventDetailPage.tsx"] },
  { page: "/register/{id} (coach requests open)", sources: ["views/pages/registration/RegisterPage.tsx", "src/registrations/booking/routes/individual.routes.tsx"] },
  { page: "/team-register/{id}", sources: ["src/registrations/booking/routes/team.routes.tsx"] },
  { page: "/stripe-checkout", sources: ["views/pages/registration/CheckoutPage.tsx"] },
];
function placedWidgets(sources: string[]): { name: string; eager: boolean }[] {
  const found = new Map<string, boolean>();
  for (const source of sources) {
    for (const [tag] of fs.readFileSync(path.join(root, source), "utf8").matchAll(/<Widget\b[\s\S]*?\/>/g)) {
      const name = /\bname="(\w+)"/.exec(tag)?.[1];
      if (!name) throw new Error(`${source}: a <Widget> without a literal name`);
      // A load chosen at render (`load={payment ? "eager" : "interaction"}`): the page as first opened loads it lazily.
      const chosen = /\bload=\{([^}]*)\}/.exec(tag)?.[1];
      const eager = chosen ? !chosen.includes('"interaction"') : (/\bload="(\w+)"/.exec(tag)?.[1] ?? "eager") === "eager";
      found.set(name, (found.get(name) ?? false) || eager);
    }
  }
  return [...found].map(([name, eager]) => ({ name, eager }));
}
function pageGzip(widgets: string[], onDemand: boolean): number {
  if (widgets.length === 0) return total(bootSet).gzip;
  const own = widgets.flatMap(widgetFiles);
  return total(new Set([...bootSet, ...widgetFiles("runtime"), ...own, ...(onDemand ? onDemandFiles(own) : [])])).gzip;
}
const verdict = (gzip: number) => (gzip <= JS_BUDGET_GZIP ? "within" : `OVER by ${(gzip - JS_BUDGET_GZIP).toLocaleString("en-US")} B`);
console.log(`\nJavaScript per page, React included (budget at load: ${JS_BUDGET_GZIP.toLocaleString("en-US")} B = 75 KiB gzip):`);
console.log(`${"page".padEnd(38)} ${"gzip at load".padStart(22)}  ${"budget".padEnd(16)} ${"gzip in all".padStart(22)}  widgets (* = at load)`);
for (const { page, sources } of PAGES) {
  const widgets = placedWidgets(sources);
  const atLoad = pageGzip(widgets.filter((w) => w.eager).map((w) => w.name), false);
  const inAll = pageGzip(widgets.map((w) => w.name), true);
  console.log(`${page.padEnd(38)} ${bytes(atLoad)}  ${verdict(atLoad).padEnd(16)} ${bytes(inAll)}  ${widgets.map((w) => `${w.name}${w.eager ? "*" : ""}`).join(", ")}`);
}

// The stylesheet every page loads (budget: 12 KB gzip) and the self-hosted fonts it names (preloaded, fetched once).
const CSS_BUDGET_GZIP = 12 * 1024;
console.log("\nstylesheet and fonts (every page):");
for (const file of Object.keys(outputs).filter((f) => f.endsWith(".css"))) {
  const content = fs.readFileSync(path.join(root, file));
  const s = { raw: content.length, gzip: gzipSync(content, { level: 9 }).length };
  row(`css ${path.basename(file)} ${s.gzip <= CSS_BUDGET_GZIP ? "within" : "OVER"} the 12 KB gzip budget`, s);
}
for (const file of Object.keys(outputs).filter((f) => f.endsWith(".woff2"))) {
  const raw = fs.statSync(path.join(root, file)).size;
  row(`font ${path.basename(file)} (woff2 is already compressed)`, { raw, gzip: raw });
}
