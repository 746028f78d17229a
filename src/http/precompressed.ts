import fs from "node:fs";
import path from "node:path";
import type { RequestHandler } from "express";

const ENCODINGS = [
  { encoding: "br", suffix: ".br" },
  { encoding: "gzip", suffix: ".gz" },
] as const;

/**
 * Serves the build's precompressed copies (`x.js.br`, `x.js.gz`, written by esbuild.config.mjs) to clients that
 * accept them: rewrites the URL to the copy and sets the original's type and the encoding, then lets the static
 * file server send it (it keeps a Content-Type already set; the compression middleware skips encoded answers).
 */
export function precompressedFiles(dir: string): RequestHandler {
  let files = new Set<string>();
  try {
    files = new Set(fs.readdirSync(dir));
  } catch {
    // not built (unit and integration tests): nothing to offer
  }
  return (req, res, next) => {
    if (req.method !== "GET" && req.method !== "HEAD") return next();
    const name = req.path.slice(1);
    const offered = ENCODINGS.filter((e) => files.has(`${name}${e.suffix}`));
    if (name.includes("/") || offered.length === 0) return next();
    res.vary("Accept-Encoding");
    // Ours, not the client's, order decides (browsers list gzip before br): the smallest copy the client accepts.
    const variant = offered.find((e) => req.acceptsEncodings(e.encoding) === e.encoding);
    if (!variant) return next();
    res.type(path.extname(name));
    res.set("content-encoding", variant.encoding);
    req.url = `/${name}${variant.suffix}${req.url.slice(req.path.length)}`;
    next();
  };
}
