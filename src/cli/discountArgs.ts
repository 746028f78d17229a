import { DISCOUNT_KINDS, normalizeCode, type DiscountKind } from "../shared/discounts/rules.ts";
import type { NewCode } from "../discounts/repository.ts";
import { parsePriceCents } from "../shared/money.ts";

/** `npm run discount -- ...`: the arguments, checked before anything is written. */
export type DiscountCommand = { command: "create"; code: NewCode } | { command: "list" } | { command: "deactivate"; code: string } | { error: string };

export const USAGE = [
  "Usage:",
  "  npm run discount -- create CODE (--percent N | --fixed DOLLARS) [--max N] [--starts YYYY-MM-DD] [--expires YYYY-MM-DD] [--event ID] [--for individual|team|both]",
  "  npm run discount -- list",
  "  npm run discount -- deactivate CODE",
  "",
  "--expires 2027-06-01 keeps the code valid through June 1 (UTC); --starts 2027-01-01 makes it valid from the start of that day (UTC).",
].join("\n");

const CODE_PATTERN = /^[A-Za-z0-9_-]{3,40}$/;
const OPTIONS = new Set(["--percent", "--fixed", "--max", "--starts", "--expires", "--event", "--for"]);

/** A date (the whole day, UTC) or an exact ISO time; `endOfDay` moves a bare date to the start of the next day. */
function parseWhen(value: string, endOfDay: boolean): Date | null {
  if (/^\d{4}-\d{2}-\d{2}$/.test(value)) {
    const d = new Date(`${value}T00:00:00Z`);
    if (Number.isNaN(d.getTime()) || d.toISOString().slice(0, 10) !== value) return null;
    if (endOfDay) d.setUTCDate(d.getUTCDate() + 1);
    return d;
  }
  if (/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2})?(\.\d+)?(Z|[+-]\d{2}:\d{2})$/.test(value)) {
    const d = new Date(value);
    return Number.isNaN(d.getTime()) ? null : d;
  }
  return null;
}

export function parseDiscountArgs(argv: string[], now: Date): DiscountCommand {
  const [command, ...rest] = argv;
  if (command === "list") return rest.length ? { error: `list takes no arguments.\n${USAGE}` } : { command: "list" };
  if (command === "deactivate") {
    if (rest.length !== 1 || !rest[0]) return { error: `deactivate needs exactly one code.\n${USAGE}` };
    return { command: "deactivate", code: normalizeCode(rest[0]) };
  }
  if (command !== "create") return { error: USAGE };

  const [rawCode, ...flags] = rest;
  if (!rawCode || rawCode.startsWith("--")) return { error: `create needs a code first, like SUMMER10.\n${USAGE}` };
  if (!CODE_PATTERN.test(rawCode)) return { error: "A code has 3 to 40 letters, digits, - or _." };
  const opts = new Map<string, string>();
  for (let i = 0; i < flags.length; i += 2) {
    const name = flags[i]!;
    if (!OPTIONS.has(name)) return { error: `Unknown option ${name}.` };
    const value = flags[i + 1];
    if (value === undefined || value.startsWith("--")) return { error: `${name} needs a value.` };
    if (opts.has(name)) return { error: `${name} is given twice.` };
    opts.set(name, value);
  }

  const percent = opts.get("--percent");
  const fixed = opts.get("--fixed");
  if (percent === undefined && fixed === undefined) return { error: "Give either --percent or --fixed." };
  if (percent !== undefined && fixed !== undefined) return { error: "Give either --percent or --fixed, not both." };
  let value: number;
  if (percent !== undefined) {
    if (!/^\d{1,3}$/.test(percent) || Number(percent) < 1 || Number(percent) > 100) return { error: "--percent must be a whole number from 1 to 100." };
    value = Number(percent);
  } else {
    if (!/^\d{1,6}(\.\d{1,2})?$/.test(fixed!) || Number(fixed) <= 0) return { error: "--fixed must be a dollar amount above 0, like 25 or 12.50." };
    value = parsePriceCents(fixed);
  }

  let maxRedemptions: number | null = null;
  const max = opts.get("--max");
  if (max !== undefined) {
    if (!/^\d{1,9}$/.test(max) || Number(max) < 1) return { error: "--max must be a whole number of at least 1." };
    maxRedemptions = Number(max);
  }
  const startsRaw = opts.get("--starts");
  const startsAt = startsRaw === undefined ? null : parseWhen(startsRaw, false);
  if (startsRaw !== undefined && !startsAt) return { error: "--starts must be a date like 2027-01-01." };
  const expiresRaw = opts.get("--expires");
  const expiresAt = expiresRaw === undefined ? null : parseWhen(expiresRaw, true);
  if (expiresRaw !== undefined && !expiresAt) return { error: "--expires must be a date like 2027-06-01." };
  if (expiresAt && expiresAt.getTime() <= now.getTime()) return { error: "--expires is in the past." };
  if (startsAt && expiresAt && startsAt.getTime() >= expiresAt.getTime()) return { error: "--starts must be before --expires." };

  let eventId: number | null = null;
  const event = opts.get("--event");
  if (event !== undefined) {
    if (!/^[1-9]\d{0,8}$/.test(event)) return { error: "--event must be an event id, like 2." };
    eventId = Number(event);
  }
  const kind = (opts.get("--for") ?? "both") as DiscountKind;
  if (!DISCOUNT_KINDS.includes(kind)) return { error: "--for must be individual, team or both." };

  return { command: "create", code: { code: normalizeCode(rawCode), type: percent !== undefined ? "percent" : "fixed", value, maxRedemptions, expiresAt, startsAt, eventId, kind } };
}
