import * as z from "zod/mini";
import { toText } from "../toText.ts";

/** Field path ("athletes.0.firstName") -> first message for that field. */
export type FieldErrors = Record<string, string>;

export interface FormState {
  values: Record<string, unknown>;
  errors: FieldErrors;
}

export const emptyForm: FormState = { values: {}, errors: {} };

/** A form's values as a widget holds them: strings, or lists of strings for checkboxes. */
export type FormValues = Record<string, string | string[]>;

/** What a form widget starts from (its JSON props): a post re-rendered without JavaScript, or a fresh form. */
export interface FormWidgetProps {
  csrfToken: string;
  values: FormValues;
  errors: FieldErrors;
  /** The form was just sent without JavaScript: the widget shows its confirmation. */
  sent: boolean;
}

export function formWidgetProps(csrfToken: string, form: FormState, sent = false): FormWidgetProps {
  const values: FormValues = {};
  for (const [key, value] of Object.entries(form.values)) {
    if (Array.isArray(value)) values[key] = value.map(String);
    else if (value !== undefined && value !== null && typeof value !== "object") values[key] = toText(value);
  }
  return { csrfToken, values, errors: form.errors, sent };
}

export type Validation<T> = { ok: true; data: T } | { ok: false; errors: FieldErrors; message: string };

/**
 * The one validation helper: zod parse, errors keyed by field path, first message per field.
 * Browser-safe, so widgets show exactly the server's messages.
 */
export function validate<S extends z.core.$ZodType>(schema: S, input: unknown): Validation<z.output<S>> {
  const parsed = z.safeParse(schema, input);
  if (parsed.success) return { ok: true, data: parsed.data };
  const errors: FieldErrors = {};
  for (const issue of parsed.error.issues) {
    const key = issue.path.map(String).join(".") || "_form";
    errors[key] ??= issue.message;
  }
  return { ok: false, errors, message: Object.values(errors)[0] ?? "Invalid input" };
}
