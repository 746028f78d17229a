/**
 * Imports that run back up the folder graph of src/, components/, views/ and widgets/. The layers, bottom to top:
 * src/shared/ (the browser-safe folder: schemas, texts, rules, types, money); components/ (the field kit and the parts
 * that pages and islands both render); views/ and widgets/ (pages and islands, side by side: neither imports the
 * other, so a page importing an island or an island importing a page counts as running up; both import only
 * src/shared/ from src/); the foundations (src/http, src/db, src/email, src/cache and the top-level
 * src/*.ts files but the composition roots app.ts and server.ts); the feature folders of src/ (routes, use cases,
 * repositories). An import counts when it goes from a lower layer to a higher one: src/shared/ importing anything
 * else, components/ importing a page or an island, a view importing a widget (or the reverse), a view or widget
 * importing a server module of src/, a foundation importing a feature. Type-only imports count
 * too (they still tie the folders together) and are also shown apart. Before issue 25 there was no src/shared/: a
 * feature's rules.ts sat in the feature folder, so each view or widget importing one counted (`-- <dir>` measures an
 * older checkout by the same rule). Run: `npm run bench:layering` (prints the count, then each import).
 */
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

// An optional argument names another checkout to measure (e.g. an exported older commit).
const root = path.resolve(process.argv[2] ?? path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../.."));
const FOUNDATIONS = new Set(["http", "db", "email", "cache"]);
/** The composition roots: they wire every layer together, so their imports run nowhere "back". */
const ROOTS = new Set(["src/app.ts", "src/server.ts"]);

/** 0: src/shared/; 1: components/; 2: views/ and widgets/; 3: a foundation; 4: a feature folder of src/. */
function layerOf(file: string): number | undefined {
  const relative = path.relative(root, file);
  const parts = relative.split(path.sep);
  if (parts[0] === "components") return 1;
  if (parts[0] === "views" || parts[0] === "widgets") return 2;
  if (parts[0] !== "src" || ROOTS.has(parts.join("/"))) return undefined;
  if (parts[1] === "shared") return 0;
  return parts.length === 2 || FOUNDATIONS.has(parts[1]!) ? 3 : 4;
}

/** views/ and widgets/ share a layer and import neither each other: an import between them runs "up" either way. */
const SIDE_BY_SIDE = new Set(["views", "widgets"]);
function runsUp(file: string, target: string): boolean {
  const from = layerOf(file);
  const to = layerOf(target);
  if (from === undefined || to === undefined) return false;
  const top = (f: string) => path.relative(root, f).split(path.sep)[0]!;
  return to > from || (SIDE_BY_SIDE.has(top(file)) && SIDE_BY_SIDE.has(top(target)) && top(file) !== top(target));
}

function sourceFiles(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return /\.tsx?$/.test(entry.name) && !entry.name.endsWith(".d.ts") ? [full] : [];
  });
}

const IMPORT = /(?:import|export)\s[^"']*?from\s*["']([^"']+)["']|import\(\s*["']([^"']+)["']\s*\)/g;

const upward: { line: string; typeOnly: boolean }[] = [];
for (const file of ["src", "components", "views", "widgets"].flatMap((d) => sourceFiles(path.join(root, d)))) {
  for (const match of fs.readFileSync(file, "utf8").matchAll(IMPORT)) {
    const spec = match[1] ?? match[2]!;
    if (!spec.startsWith(".")) continue;
    const target = path.resolve(path.dirname(file), spec);
    if (runsUp(file, target)) {
      const line = `${path.relative(root, file)} -> ${path.relative(root, target)}`;
      upward.push({ line, typeOnly: /^(import|export) type\s/.test(match[0]) });
    }
  }
}

const typeOnly = upward.filter((u) => u.typeOnly).length;
console.log(`imports running back up the folder graph: ${upward.length} (${upward.length - typeOnly} of values, ${typeOnly} type-only)`);
for (const u of upward.sort((a, b) => a.line.localeCompare(b.line))) console.log(`  ${u.line}${u.typeOnly ? " (type)" : ""}`);
