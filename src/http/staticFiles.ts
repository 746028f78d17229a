import express, { Router, type ErrorRequestHandler } from "express";
import { publicDirectory } from "./assets.ts";
import { HttpError } from "./errors.ts";
import { precompressedFiles } from "./precompressed.ts";

/** A missing bundle (an old chunk name after a deploy) is a 404; a path the file server refuses (`..`, NUL) a 400. */
const buildFileErrors: ErrorRequestHandler = (err, _req, _res, next) => {
  const status = (err as { status?: unknown })?.status;
  if (status === 404) return next(new HttpError(404, "This file does not exist. Reload the page to get the current version.", "Not found"));
  if (typeof status === "number" && status < 500) return next(new HttpError(400, "This file path is not valid.", "Bad request"));
  next(err);
};

/**
 * public/build (content-hashed, precompressed, cached for a year), public/images and the favicon (an hour). Only
 * those prefixes reach the file server: a stat of the disk on every page request costs more than the page's query.
 */
export function staticFiles(isProduction: boolean): Router {
  const router = Router();
  if (isProduction) {
    // Source maps stay on development machines.
    router.get(/^\/build\/.*\.map$/i, (_req, _res, next) => next(new HttpError(404, "This file does not exist.", "Not found")));
  }
  router.use("/build", precompressedFiles(`${publicDirectory}/build`), express.static(`${publicDirectory}/build`, { immutable: true, maxAge: "1y", fallthrough: false }), buildFileErrors);
  const publicFiles = { maxAge: "1h", index: false } as const;
  router.use("/images", express.static(`${publicDirectory}/images`, publicFiles));
  // favicon.ico: the same shield (16, 32 and 48 px) for browsers and tools that ask for it without reading the page.
  router.get(["/favicon.svg", "/favicon.ico"], express.static(publicDirectory, publicFiles));
  return router;
}
