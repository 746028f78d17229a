/**
 * Modules of src/, views/ and widgets/ that import more than 15 others of the house (relative imports, each module
 * counted once, type-only imports too): where the weight of the house sits. Run: `node --import tsx
 * test/bench/fanOut.ts [dir]` (an optional argument names another checkout to measure, e.g. an older commit); it
 * prints the count, then each module with its number of imports, most first.
 */
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(process.argv[2] ?? path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../.."));
const LIMIT = 15;
const IMPORT = /(?:import|export)\s[^"']*?from\s*["']([^"']+)["']|import\(\s*["']([^"']+)["']\s*\)/g;

function sourceFiles(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return /\.tsx?$/.test(entry.name) && !entry.name.endsWith(".d.ts") ? [full] : [];
  });
}

const heavy: { file: string; imports: number }[] = [];
for (const file of ["src", "views", "widgets"].flatMap((d) => sourceFiles(path.join(root, d)))) {
  const text = fs.readFileSync(file, "utf8");
  // Generated modules say so on their first line; they are not the house's design.
  if (/^\/\/.*generated/i.test(text.split("\n", 1)[0] ?? "")) continue;
  const targets = new Set<string>();
  for (const match of text.matchAll(IMPORT)) {
    const spec = match[1] ?? match[2]!;
    if (spec.startsWith(".")) targets.add(path.resolve(path.dirname(file), spec));
  }
  if (targets.size > LIMIT) heavy.push({ file: path.relative(root, file), imports: targets.size });
}

console.log(`modules importing more than ${LIMIT} others: ${heavy.length}`);
for (const h of heavy.sort((a, b) => b.imports - a.imports || a.file.localeCompare(b.file))) console.log(`  ${h.imports}  ${h.file}`);
