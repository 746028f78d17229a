import type { Request, RequestHandler, Response } from "express";
import type * as z from "zod/mini";
import { validate, type FieldErrors, type FormState } from "../shared/forms.ts";

/** JSON APIs: 400 with the first message in `error` (the spec's field) and every field's message. */
export function sendInvalid(res: Response, result: { errors: FieldErrors; message: string }): void {
  res.status(400).json({ success: false, error: result.message, fieldErrors: result.errors });
}

/** The posted form or JSON body, each field still unchecked (Express types it as any). */
export function formBody(req: Request): Record<string, unknown> {
  return (req.body ?? {}) as Record<string, unknown>;
}

/**
 * A form post that works without JavaScript: valid data goes to `valid` (which redirects with 303),
 * invalid data re-renders the page through `invalid` with the field errors and the values kept.
 */
export function formRoute<S extends z.core.$ZodType>(
  schema: S,
  handlers: {
    invalid: (req: Request, res: Response, state: FormState) => void | Promise<void>;
    valid: (req: Request, res: Response, data: z.output<S>) => Promise<void>;
  },
): RequestHandler {
  // Express 5 passes a rejected promise to the error handler: no catch here.
  return async (req: Request, res: Response) => {
    const { _csrf: _ignored, ...values } = formBody(req);
    const result = validate(schema, values);
    if (!result.ok) {
      res.status(400);
      await handlers.invalid(req, res, { values, errors: result.errors });
      return;
    }
    await handlers.valid(req, res, result.data);
  };
}
