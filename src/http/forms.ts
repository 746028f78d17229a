import type { NextFunction, Request, RequestHandler, Response } from "express";
import type { z } from "zod";

/** Field path ("athletes.0.firstName") -> first message for that field. */
export type FieldErrors = Record<string, string>;

export interface FormState {
  values: Record<string, unknown>;
  errors: FieldErrors;
}

export const emptyForm: FormState = { values: {}, errors: {} };

export type Validation<T> = { ok: true; data: T } | { ok: false; errors: FieldErrors; message: string };

/**
 * The one validation helper: zod parse, errors keyed by field path, first message per field.
 * Browser-safe, so widgets show exactly the server's messages.
 */
export function validate<S extends z.ZodType>(schema: S, input: unknown): Validation<z.output<S>> {
  const parsed = schema.safeParse(input);
  if (parsed.success) return { ok: true, data: parsed.data };
  const errors: FieldErrors = {};
  for (const issue of parsed.error.issues) {
    const key = issue.path.map(String).join(".") || "_form";
    errors[key] ??= issue.message;
  }
  return { ok: false, errors, message: Object.values(errors)[0] ?? "Invalid input" };
}

/** JSON APIs: 400 with the first message in `error` (the spec's field) and every field's message. */
export function sendInvalid(res: Response, result: { errors: FieldErrors; message: string }): void {
  res.status(400).json({ success: false, error: result.message, fieldErrors: result.errors });
}

/**
 * A form post that works without JavaScript: valid data goes to `valid` (which redirects with 303),
 * invalid data re-renders the page through `invalid` with the field errors and the values kept.
 */
export function formRoute<S extends z.ZodType>(
  schema: S,
  handlers: {
    invalid: (req: Request, res: Response, state: FormState) => void | Promise<void>;
    valid: (req: Request, res: Response, data: z.output<S>) => Promise<void>;
  },
): RequestHandler {
  return async (req: Request, res: Response, next: NextFunction) => {
    try {
      const body = (req.body ?? {}) as Record<string, unknown>;
      const { _csrf: _ignored, ...values } = body;
      const result = validate(schema, values);
      if (!result.ok) {
        res.status(400);
        await handlers.invalid(req, res, { values, errors: result.errors });
        return;
      }
      await handlers.valid(req, res, result.data);
    } catch (err) {
      next(err);
    }
  };
}
