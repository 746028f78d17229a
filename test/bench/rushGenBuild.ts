/**
 * The load generator compiled once before a run (one ES module, test/bench/rushLoad.ts and what it imports), so
 * that its process neither loads tsx nor compiles TypeScript while its CPU is counted.
 */
import path from "node:path";
import { fileURLToPath } from "node:url";
import { buildSync } from "esbuild";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");

/** Writes the generator to `dir`/rushLoad.mjs and returns that file's path. */
export function buildGenerator(dir: string): string {
  const outfile = path.join(dir, "rushLoad.mjs");
  buildSync({ entryPoints: [path.join(root, "test/bench/rushLoad.ts")], outfile, bundle: true, platform: "node", format: "esm", target: "node24", logLevel: "warning" });
  return outfile;
}
