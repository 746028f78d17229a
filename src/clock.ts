import fs from "node:fs";
import path from "node:path";

/**
 * The app's one clock for business time (due dates, reminders, holds, the offline Stripe's charges): the real time
 * plus an offset. The offset stays 0 in production. Tests move it with `moveClock`; `npm start` demos move it with
 * `npm run clock -- forward 14d`, which writes CLOCK_FILE: every instance started on this machine (and the
 * standalone fake Stripe) reads that file, so they all agree on one time.
 */

/** Where `npm run clock` writes the offset, relative to the app's working directory (like var/app.sqlite3). */
export const CLOCK_FILE = path.join("var", "clock.json");

/**
 * The offset file an instance follows: the CLOCK_FILE variable when set (a test's server gets its own temporary
 * file), else var/clock.json, except with NODE_ENV=test: a test's server follows no file it was not given, so a
 * developer's demo offset never leaks into a test.
 */
export function clockFileToFollow(configured: string | undefined, nodeEnv: string | undefined): string | undefined {
  if (configured) return configured;
  return nodeEnv === "test" ? undefined : CLOCK_FILE;
}

/** The file `npm run clock` writes and reads: CLOCK_FILE when set, else var/clock.json. */
function defaultClockFile(): string {
  return process.env.CLOCK_FILE || CLOCK_FILE;
}
/** How often an instance looks at the file again: a moved clock is seen by every instance within this time. */
const FILE_RECHECK_MS = 500;

let offsetMs = 0;
let file: { path: string; checkedAt: number; mtimeMs: number; offsetMs: number } | undefined;

export class ClockRefusedError extends Error {}

/** The business time now. */
export function now(): Date {
  return new Date(Date.now() + currentOffsetMs());
}

/** How far the clock has been moved forward, in milliseconds. */
export function currentOffsetMs(): number {
  return offsetMs + fileOffsetMs();
}

/** Tests: moves this process's clock forward by `ms` (never in production). */
export function moveClock(ms: number): void {
  refuseInProduction();
  if (!Number.isFinite(ms) || ms < 0) throw new ClockRefusedError("The clock only moves forward.");
  offsetMs += ms;
}

/** Tests: back to the real time (the file's offset, if one is read, stays). */
export function resetClock(): void {
  offsetMs = 0;
}

/**
 * Development and demos: this process also follows the offset in `filePath` (CLOCK_FILE). Never in production,
 * never with live Stripe keys: the caller (src/server.ts, the standalone fake) decides, and this refuses too.
 */
export function followClockFile(filePath: string = defaultClockFile()): void {
  refuseInProduction();
  file = { path: filePath, checkedAt: 0, mtimeMs: -1, offsetMs: 0 };
}

/** Stops following the file (tests). */
export function stopFollowingClockFile(): void {
  file = undefined;
}

function fileOffsetMs(): number {
  if (!file) return 0;
  const realNow = Date.now();
  if (realNow - file.checkedAt < FILE_RECHECK_MS) return file.offsetMs;
  file.checkedAt = realNow;
  try {
    const stat = fs.statSync(file.path);
    if (stat.mtimeMs !== file.mtimeMs) {
      file.mtimeMs = stat.mtimeMs;
      file.offsetMs = parseClockFile(fs.readFileSync(file.path, "utf8"));
    }
  } catch {
    file.mtimeMs = -1;
    file.offsetMs = 0;
  }
  return file.offsetMs;
}

export function parseClockFile(text: string): number {
  const parsed = JSON.parse(text) as { offsetMs?: unknown };
  const ms = Number(parsed.offsetMs);
  return Number.isFinite(ms) && ms >= 0 ? ms : 0;
}

/** Writes the shared offset (npm run clock): a temporary file renamed, so a reader never sees half of it. */
export function writeClockFile(ms: number, filePath: string = defaultClockFile()): void {
  refuseInProduction();
  fs.mkdirSync(path.dirname(filePath), { recursive: true });
  const temporary = `${filePath}.${process.pid}.tmp`;
  fs.writeFileSync(temporary, JSON.stringify({ offsetMs: ms, movedAt: new Date().toISOString() }));
  fs.renameSync(temporary, filePath);
}

export function readClockFile(filePath: string = defaultClockFile()): number {
  try {
    return parseClockFile(fs.readFileSync(filePath, "utf8"));
  } catch {
    return 0;
  }
}

/** "14d", "36h", "90m", "2w": a duration forward, in milliseconds; undefined when it is not one. */
export function parseDuration(text: string): number | undefined {
  const m = /^(\d+)(w|d|h|m)$/.exec(text.trim());
  if (!m) return undefined;
  const unit = { w: 7 * 86_400_000, d: 86_400_000, h: 3_600_000, m: 60_000 }[m[2] as "w" | "d" | "h" | "m"];
  return Number(m[1]) * unit;
}

function refuseInProduction(): void {
  if (process.env.NODE_ENV === "production") throw new ClockRefusedError("The clock cannot be moved in production.");
  if (process.env.STRIPE_SECRET_KEY?.startsWith("sk_live_")) throw new ClockRefusedError("The clock cannot be moved with live Stripe keys.");
}
