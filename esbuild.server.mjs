// Builds the server once into build/server.js (with build/server.js.map), so production starts plain JavaScript:
// `npm run serve` and the image run `node --enable-source-maps build/server.js`, with no tsx and no compiling at start.
// Dependencies stay in node_modules (not bundled); migrations/ stay TypeScript files that knex loads by name (their
// names are recorded in knex_migrations) and Node 24 runs without a loader. `--outfile FILE` writes elsewhere (tests).
import path from "node:path";
import * as esbuild from "esbuild";
import { sourceUrls } from "./src/cli/sourceUrls.mjs";

const at = process.argv.indexOf("--outfile");
const outfile = path.resolve(at > 0 ? process.argv[at + 1] : "build/server.js");

await esbuild.build({
  entryPoints: ["src/server.ts"],
  outfile,
  bundle: true,
  format: "esm",
  platform: "node",
  target: "node24",
  packages: "external",
  jsx: "automatic",
  sourcemap: "linked",
  // Stack traces name the source files (with --enable-source-maps), and the bundle keeps names for logs and profiles.
  keepNames: true,
  logLevel: "warning",
  plugins: [sourceUrls(path.dirname(outfile))],
});
console.log(`built ${path.relative(process.cwd(), outfile)}`);
