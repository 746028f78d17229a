/**
 * The one rule for text a visitor types (browser-safe: the widgets validate with the same schemas).
 * Every single-line field (names, subjects, phones, e-mail addresses, ids) uses `singleLine`; fields
 * that may hold paragraphs use `multiLine`.
 */
import * as z from "zod";

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
export function singleLine(error?: string): z.ZodString {
  return z
    .string(error === undefined ? undefined : { error })
    .normalize("NFC")
    .trim()
    .refine((v) => !CONTROL.test(v), TEXT_MESSAGES.control)
    .refine((v) => !FORMAT.test(v), TEXT_MESSAGES.format)
    .refine(visible, TEXT_MESSAGES.invisible);
}

/** Multi-line text: as `singleLine`, but line breaks (stored as \n) and tabs are kept. */
export function multiLine(error?: string): z.ZodString {
  return z
    .string(error === undefined ? undefined : { error })
    .normalize("NFC")
    .overwrite((v) => v.replace(/\r\n?/g, "\n"))
    .trim()
    .refine((v) => !CONTROL_IN_PARAGRAPHS.test(v), TEXT_MESSAGES.control)
    .refine((v) => !FORMAT.test(v), TEXT_MESSAGES.format)
    .refine(visible, TEXT_MESSAGES.invisible);
}

/**
 * A quantity: a JSON integer or a string of digits, nothing else (`[5]`, `true`, `"0x10"`, `" 7 "` and `""` are refused).
 */
export function wholeNumber(messages: { type: string; whole: string }) {
  return z
    .union([z.number({ error: messages.type }), z.string({ error: messages.type }).regex(/^\d+$/, messages.type)], { error: messages.type })
    .transform(Number)
    .pipe(z.number().int(messages.whole));
}
