// Builds the browser assets into public/build: widget islands (ESM, one chunk per widget, shared React chunk),
// the site CSS and copies of the pictures under public/images, with content-hashed names, a metafile, and a
// manifest the server reads.
import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import zlib from "node:zlib";
import * as esbuild from "esbuild";

const outdir = "public/build";
const production = process.env.NODE_ENV === "production";

fs.rmSync(outdir, { recursive: true, force: true });

const result = await esbuild.build({
  entryPoints: { boot: "widgets/boot.ts", site: "views/styles/site.css" },
  outdir,
  bundle: true,
  splitting: true,
  format: "esm",
  platform: "browser",
  target: ["es2022", "chrome115", "firefox115", "safari16"],
  minify: true,
  sourcemap: production ? false : "linked",
  entryNames: "[name]-[hash]",
  chunkNames: "chunk-[hash]",
  assetNames: "asset-[hash]",
  // Font files named in views/styles/fonts.css are copied into the build (hashed) and preloaded by the server.
  loader: { ".woff2": "file" },
  jsx: "automatic",
  metafile: true,
  define: { "process.env.NODE_ENV": JSON.stringify("production") },
  legalComments: "none",
  logLevel: "warning",
});

// manifest: entry name -> public URL, and for each widget the chunks it needs (for modulepreload).
const url = (file) => `/${path.relative("public", file).split(path.sep).join("/")}`;
const manifest = { entries: {}, widgets: {}, fonts: [], images: {} };
const outputs = result.metafile.outputs;
const staticImports = (file, seen = new Set()) => {
  for (const imp of outputs[file]?.imports ?? []) {
    if (imp.kind === "import-statement" && !seen.has(imp.path)) {
      seen.add(imp.path);
      staticImports(imp.path, seen);
    }
  }
  return seen;
};
for (const [file, out] of Object.entries(outputs)) {
  if (!out.entryPoint || file.endsWith(".map")) continue;
  const entry = out.entryPoint;
  const base = path.basename(entry).replace(/\.(tsx?|css)$/, "");
  const ext = path.extname(file);
  if (ext === ".js" && out.entryPoint !== "widgets/boot.ts" && entry.startsWith("widgets/")) {
    manifest.widgets[base] = [url(file), ...[...staticImports(file)].map(url)];
  } else if (ext === ".js" || ext === ".css") {
    manifest.entries[`${base}${ext}`] = { url: url(file), imports: [...staticImports(file)].map(url) };
  }
}
// Offline Stripe test mode only: the fake Stripe.js, a classic script (IIFE, no shared chunks) that the
// app serves at /__offline-stripe/stripe.js when no Stripe keys are configured.
const fakeStripe = await esbuild.build({
  entryPoints: { fakeStripeJs: "src/payments/offline/fakeStripeJs.ts" },
  outdir,
  bundle: true,
  format: "iife",
  platform: "browser",
  target: ["es2022", "chrome115", "firefox115", "safari16"],
  minify: true,
  entryNames: "[name]-[hash]",
  metafile: true,
  legalComments: "none",
  logLevel: "warning",
});
for (const file of Object.keys(fakeStripe.metafile.outputs)) {
  if (file.endsWith(".js")) manifest.entries["fakeStripeJs.js"] = { url: url(file), imports: [] };
}
manifest.fonts = Object.keys(outputs).filter((f) => f.endsWith(".woff2")).map(url).sort();
// Pictures: public/images/home/hero.svg is copied to public/build/home-hero-<hash>.svg (flat, so the precompressed
// copies below are served for it too) and the manifest maps "/images/home/hero.svg" to it; pages link the copy,
// which is cached for a year like every build file. The plain path keeps working for e-mails and old links.
const imagesDir = "public/images";
for (const file of fs.readdirSync(imagesDir, { recursive: true }).map(String).sort()) {
  const ext = path.extname(file).toLowerCase();
  if (![".svg", ".png", ".jpg", ".jpeg", ".webp", ".avif", ".gif"].includes(ext)) continue;
  const content = fs.readFileSync(path.join(imagesDir, file));
  const hash = createHash("sha256").update(content).digest("hex").slice(0, 12);
  const name = `${file.slice(0, -ext.length).split(path.sep).join("-")}-${hash}${ext}`;
  fs.writeFileSync(path.join(outdir, name), content);
  manifest.images[`/images/${file.split(path.sep).join("/")}`] = `/build/${name}`;
}
fs.writeFileSync(path.join(outdir, "manifest.json"), JSON.stringify(manifest, null, 2));
// Precompressed once here at the highest levels, so the server never compresses an asset per request.
let precompressed = 0;
for (const name of fs.readdirSync(outdir)) {
  if (!/\.(js|css|svg)$/.test(name)) continue;
  const content = fs.readFileSync(path.join(outdir, name));
  fs.writeFileSync(path.join(outdir, `${name}.br`), zlib.brotliCompressSync(content, { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 11, [zlib.constants.BROTLI_PARAM_SIZE_HINT]: content.length } }));
  fs.writeFileSync(path.join(outdir, `${name}.gz`), zlib.gzipSync(content, { level: 9 }));
  precompressed++;
}
fs.writeFileSync(path.join(outdir, "meta.json"), JSON.stringify(result.metafile));
console.log(`built ${Object.keys(outputs).filter((f) => !f.endsWith(".map")).length} files and ${Object.keys(manifest.images).length} pictures into ${outdir} (${precompressed} precompressed: brotli and gzip)`);
