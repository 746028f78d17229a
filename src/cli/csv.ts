/**
 * CSV that spreadsheets open as written: a UTF-8 byte order mark (Excel reads UTF-8 only with it), CRLF line ends,
 * every field quoted when it holds a quote, comma or line break, and text that a spreadsheet would run as a formula
 * (starting with = + - @, a tab or a carriage return) prefixed with an apostrophe, which spreadsheets show as text.
 */
import { Transform } from "node:stream";
import { toText } from "../shared/toText.ts";

export const BOM = "\uFEFF";
const FORMULA_START = /^[=+\-@\t\r]/;

export function csvField(value: unknown): string {
  if (value === null || value === undefined) return "";
  if (typeof value === "number" || typeof value === "bigint") return String(value);
  let text = value instanceof Date ? value.toISOString() : Buffer.isBuffer(value) ? "" : toText(value);
  if (FORMULA_START.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

export function csvLine(values: unknown[]): string {
  return `${values.map(csvField).join(",")}\r\n`;
}

/** Rows (objects) in, CSV text out: the BOM and the header first, then one line per row, in `columns` order. */
export function csvRows(columns: string[]): Transform & { rows: () => number } {
  let count = 0;
  const stream = new Transform({
    writableObjectMode: true,
    construct(done) {
      this.push(BOM + csvLine(columns));
      done();
    },
    transform(row: Record<string, unknown>, _enc, done) {
      count += 1;
      done(null, csvLine(columns.map((c) => row[c])));
    },
  });
  return Object.assign(stream, { rows: () => count });
}
