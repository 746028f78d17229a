import type { Request, RequestHandler, Response } from "express";
import multer from "multer";
import { HttpError } from "../../http/errors.ts";
import { CsrfError, type Csrf } from "../../http/csrf.ts";
import { checkLogoContent, LOGO_FIELD, LOGO_MAX_BYTES, LOGO_MESSAGES, LOGO_SNIFF_BYTES, type LogoType } from "../../shared/collegeCoachRequests/rules.ts";

export const UNREADABLE = "The form could not be read. Please reload the page and try again.";
export const UPLOADS_BUSY = "Too many uploads are being received right now. Please try again in a moment.";
export const MAX_CONCURRENT_UPLOADS = 8;

declare module "express-serve-static-core" {
  interface Locals {
    /** Set when multer refused the logo for its size: the form is re-shown with this message. */
    logoRefusal?: string;
  }
}

/**
 * The multipart body of the coach request posts (fields and one logo, held in memory, never on disk), parsed by
 * multer with the 5 MB limit, ahead of the CSRF check, which then reads `_csrf` from these fields. The origin was
 * checked before (sameOriginOnly), and the token is checked again as the logo's part begins (the form sends `_csrf`
 * first, the dialog the `x-csrf-token` header): a forged post is refused before a byte of its file is kept. A body
 * multer cannot read (a NUL or a bad line in a part header, no boundary, a cut-off body) is the form's 400.
 */
export function logoUpload(csrf: Pick<Csrf, "valid">, maxConcurrent: number): RequestHandler {
  const upload = multer({
    storage: multer.memoryStorage(),
    limits: { fileSize: LOGO_MAX_BYTES, files: 1, fields: 40, parts: 41, fieldSize: 16 * 1024, fieldNameSize: 100, fieldNestingDepth: 0 },
    fileFilter: (req, _file, accept) => (csrf.valid(req) ? accept(null, true) : accept(new CsrfError("invalid csrf token"))),
  }).single(LOGO_FIELD);
  let reading = 0;
  return (req, res, next) => {
    if (!req.is("multipart/form-data")) return next();
    if (reading >= maxConcurrent) {
      res.set("retry-after", "5");
      return next(new HttpError(503, UPLOADS_BUSY, "Service unavailable"));
    }
    // Counted until the response is over: the body's buffer lives as long as the request.
    reading += 1;
    res.once("close", () => (reading -= 1));
    upload(req, res, (err: unknown) => {
      if (!err) return next();
      if (err instanceof CsrfError) return next(err);
      if (err instanceof multer.MulterError && err.code === "LIMIT_FILE_SIZE") {
        // The fields before the file were read; the rest of the form is re-shown with the size message.
        res.locals.logoRefusal = LOGO_MESSAGES.size;
        return next();
      }
      if (err instanceof multer.MulterError && (err.code === "LIMIT_FILE_COUNT" || err.code === "LIMIT_UNEXPECTED_FILE")) {
        return next(new HttpError(400, LOGO_MESSAGES.single, "Bad request"));
      }
      next(new HttpError(400, UNREADABLE, "Bad request"));
    });
  };
}

export type Logo = { type: LogoType; content: Buffer };

/** The logo sent with the request, checked by its content: the logo, or the field error. */
export function receivedLogo(req: Request, res: Response): Logo | { error: string } | undefined {
  if (res.locals.logoRefusal) return { error: res.locals.logoRefusal };
  const file = req.file;
  if (!file) return undefined;
  const checked = checkLogoContent(file.size, file.buffer.subarray(0, LOGO_SNIFF_BYTES));
  return checked.ok ? { type: checked.type, content: file.buffer } : { error: checked.message };
}
