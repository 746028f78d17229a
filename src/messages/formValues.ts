import type { FormState } from "../http/forms.ts";

/** A kept form's values as the message widgets take them: strings, or lists of strings for checkboxes. */
export function formValues(form: FormState): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [key, value] of Object.entries(form.values)) {
    if (Array.isArray(value)) out[key] = value.map(String);
    else if (value !== undefined && value !== null && typeof value !== "object") out[key] = String(value);
  }
  return out;
}
