import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

export const publicDirectory = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../public");

interface Manifest {
  entries: Record<string, { url: string; imports: string[] }>;
  widgets: Record<string, string[]>;
  fonts?: string[];
  /** Plain picture path ("/images/home/hero.svg") -> its content-hashed copy in the build. */
  images?: Record<string, string>;
}

export interface Assets {
  css: string;
  /** The self-hosted woff2 files the stylesheet uses on every page (preloaded). */
  fonts: string[];
  /** URLs of an entry script and the chunks it imports statically. */
  entry(name: string): string[];
  /** The chunks one widget needs (for modulepreload). */
  widget(name: string): string[];
  /**
   * The URL a picture under public/images is served at in pages: its content-hashed copy (cached for a year), or
   * the path itself when there is no copy (no build, an outside address, a file added since the build).
   */
  image: (path: string) => string;
}

/** Reads the manifest esbuild wrote; without a build (unit and integration tests) it names unhashed files. */
export function loadAssets(): Assets {
  let manifest: Manifest = { entries: {}, widgets: {} };
  try {
    manifest = JSON.parse(fs.readFileSync(path.join(publicDirectory, "build/manifest.json"), "utf8")) as Manifest;
  } catch {
    // not built yet
  }
  const entry = (name: string) => {
    const e = manifest.entries[name];
    return e ? [e.url, ...e.imports] : [`/build/${name}`];
  };
  const images = new Map(Object.entries(manifest.images ?? {}));
  return {
    css: entry("site.css")[0]!,
    fonts: manifest.fonts ?? [],
    entry,
    widget: (name) => manifest.widgets[name] ?? [],
    image: (path) => images.get(path) ?? path,
  };
}
