/**
 * A value read from a row, a form post or a JSON body, as text: what String() gives for strings, numbers, booleans,
 * dates and null, and JSON for a plain object or array (never "[object Object]").
 */
export function toText(value: unknown): string {
  if (value === null || value === undefined) return String(value);
  if (typeof value === "string") return value;
  if (typeof value === "number" || typeof value === "bigint" || typeof value === "boolean") return String(value);
  if (value instanceof Date) return String(value);
  return JSON.stringify(value) ?? "";
}
