import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

export const publicDirectory = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../public");

interface Manifest {
  entries: Record<string, { url: string; imports: string[] }>;
  widgets: Record<string, string[]>;
  fonts?: string[];
}

export interface Assets {
  css: string;
  /** The self-hosted woff2 files the stylesheet uses on every page (preloaded). */
  fonts: string[];
  /** URLs of an entry script and the chunks it imports statically. */
  entry(name: string): string[];
  /** The chunks one widget needs (for modulepreload). */
  widget(name: string): string[];
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
  return {
    css: entry("site.css")[0]!,
    fonts: manifest.fonts ?? [],
    entry,
    widget: (name) => manifest.widgets[name] ?? [],
  };
}
