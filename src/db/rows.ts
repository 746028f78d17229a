import { toText } from "../shared/toText.ts";
import { isMysql } from "./dialect.ts";

/** A row as knex returns it: repositories read each column through the functions below. */
export type Row = Record<string, unknown>;

/** MySQL returns JSON and timestamps parsed, SQLite returns strings: repositories normalise through these. */
export function toDate(value: unknown): Date | null {
  if (value === null || value === undefined) return null;
  if (value instanceof Date) return value;
  if (typeof value === "number") return new Date(value);
  const s = toText(value);
  // SQLite stores knex Date bindings as epoch milliseconds, and CURRENT_TIMESTAMP as 'YYYY-MM-DD HH:MM:SS' (UTC).
  if (/^\d+$/.test(s)) return new Date(Number(s));
  return new Date(/[zZ]|[+-]\d\d:?\d\d$/.test(s) ? s : `${s.replace(" ", "T")}Z`);
}

export function toJson<T>(value: unknown, fallback: T): T {
  if (value === null || value === undefined) return fallback;
  if (typeof value === "string") {
    try {
      return JSON.parse(value) as T;
    } catch {
      return fallback;
    }
  }
  return value as T;
}

export function toBool(value: unknown): boolean {
  return value === true || value === 1 || value === "1";
}

/** A unique index refused the row (MySQL and SQLite alike). */
export function isUniqueViolation(err: unknown): boolean {
  const code = (err as { code?: string })?.code ?? "";
  return code === "ER_DUP_ENTRY" || code.startsWith("SQLITE_CONSTRAINT");
}

/**
 * A row about to be written, with its dates as the database keeps them, so that a repository can answer with what it
 * wrote instead of reading it back: MySQL's DATETIME columns keep whole seconds (MariaDB drops the milliseconds a
 * Date carries, MySQL rounds them), so on MySQL the dates are written in whole seconds (dropped); SQLite keeps them.
 */
export function asStored(conn: { client: unknown }, row: Row): Row {
  if (!isMysql(conn)) return row;
  const out: Row = {};
  for (const [key, value] of Object.entries(row)) out[key] = value instanceof Date ? new Date(Math.floor(value.getTime() / 1000) * 1000) : value;
  return out;
}
