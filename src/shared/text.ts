/**
 * The one rule for text a visitor types (browser-safe: the widgets validate with the same schemas).
 * Every single-line field (names, subjects, phones, e-mail addresses, ids) uses `singleLine`; fields
 * that may hold paragraphs use `multiLine`. Lengths are further checks: `singleLine(message).check(z.minLength(2, message))`.
 *
 * Every schema the widgets share is written with `zod/mini` (functions instead of methods, so the browser ships
 * only the parts a schema uses); the server validates with the very same schemas.
 */
import * as z from "zod/mini";

export const TEXT_MESSAGES = {
  control: "Please remove line breaks and special control characters",
  format: "Please remove invisible direction or layout characters",
  invisible: "Please enter visible text",
} as const;

/** C0 and C1 control characters and DEL: NUL, tab, CR, LF and the rest. */
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;
/** The same, except tab and line breaks (multi-line fields keep them). */
const CONTROL_IN_PARAGRAPHS = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/;
/** Bidirectional embeddings, overrides and isolates (they reorder what a reader sees), and the Unicode line separators. */
const FORMAT = /[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029]/;
/** Text made only of characters that draw nothing (spaces, zero-width characters, fillers, variation selectors). */
const INVISIBLE_ONLY = /^[\s\u00ad\u034f\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b-\u200f\u2060-\u2064\u3164\ufe00-\ufe0f\ufeff\uffa0]+$/u;

const visible = (v: string) => v === "" || !INVISIBLE_ONLY.test(v);

/** Single-line text: NFC-normalised and trimmed; control characters, bidi overrides and invisible-only text are refused. */
export function singleLine(error?: string): z.ZodMiniString<string> {
  return z.string(error === undefined ? undefined : { error }).check(
    z.normalize("NFC"),
    z.trim(),
    z.refine((v) => !CONTROL.test(v), TEXT_MESSAGES.control),
    z.refine((v) => !FORMAT.test(v), TEXT_MESSAGES.format),
    z.refine(visible, TEXT_MESSAGES.invisible),
  );
}

/** Multi-line text: as `singleLine`, but line breaks (stored as \n) and tabs are kept. */
export function multiLine(error?: string): z.ZodMiniString<string> {
  return z.string(error === undefined ? undefined : { error }).check(
    z.normalize("NFC"),
    z.overwrite((v) => v.replace(/\r\n?/g, "\n")),
    z.trim(),
    z.refine((v) => !CONTROL_IN_PARAGRAPHS.test(v), TEXT_MESSAGES.control),
    z.refine((v) => !FORMAT.test(v), TEXT_MESSAGES.format),
    z.refine(visible, TEXT_MESSAGES.invisible),
  );
}

/**
 * A quantity: a JSON integer or a string of digits, nothing else (`[5]`, `true`, `"0x10"`, `" 7 "` and `""` are refused).
 */
export function wholeNumber(messages: { type: string; whole: string }) {
  return z.pipe(
    z.pipe(
      z.union([z.number({ error: messages.type }), z.string({ error: messages.type }).check(z.regex(/^\d+$/, messages.type))], { error: messages.type }),
      z.transform(Number),
    ),
    z.number().check(z.int(messages.whole)),
  );
}
