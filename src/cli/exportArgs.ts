/** `npm run export -- ...`: the arguments, checked before anything is read or written. */
export const EXPORTS = ["registrations", "orders", "coach-requests", "messages", "waiting-list"] as const;
export type ExportName = (typeof EXPORTS)[number];

export interface ExportCommand {
  name: ExportName;
  eventId?: number;
  /** One of the event's days (YYYY-MM-DD): only the athletes who attend it. */
  day?: string;
  /** Created on or after the start of this day (UTC). */
  from?: Date;
  /** Created before the end of this day (UTC). */
  to?: Date;
  /** A file to create (refused when it exists), or "-" for standard output. */
  out?: string;
}

export const USAGE = [
  "Usage:",
  "  npm run export -- registrations --event ID [--day YYYY-MM-DD] [--format csv] [--out FILE]",
  "  npm run export -- orders [--from YYYY-MM-DD] [--to YYYY-MM-DD] [--format csv] [--out FILE]",
  "  npm run export -- coach-requests [--event ID] [--format csv] [--out FILE]",
  "  npm run export -- messages [--from YYYY-MM-DD] [--to YYYY-MM-DD] [--format csv] [--out FILE]",
  "  npm run export -- waiting-list --event ID [--format csv] [--out FILE]",
  "",
  "Writes a CSV file that spreadsheets open (UTF-8 with a byte order mark, CRLF lines), named after the export",
  "(e.g. registrations-event-2.csv) in the folder the command runs from, unless --out names another; an existing",
  "file is never overwritten. --out - writes to standard output (use npm run --silent, or npm's own lines come first).",
  "registrations: one row per athlete, the registration_roster view's columns, every status.",
  "waiting-list: one row per family or team in line, the waiting_list view's columns, in line order.",
].join("\n");

const ALLOWED: Record<ExportName, Set<string>> = {
  registrations: new Set(["--event", "--day", "--format", "--out"]),
  orders: new Set(["--from", "--to", "--format", "--out"]),
  "coach-requests": new Set(["--event", "--format", "--out"]),
  messages: new Set(["--from", "--to", "--format", "--out"]),
  "waiting-list": new Set(["--event", "--format", "--out"]),
};

function parseDay(value: string): Date | null {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(value)) return null;
  const d = new Date(`${value}T00:00:00Z`);
  return Number.isNaN(d.getTime()) || d.toISOString().slice(0, 10) !== value ? null : d;
}

export function parseExportArgs(argv: string[]): ExportCommand | { help: true } | { error: string } {
  if (argv.includes("--help") || argv.includes("-h")) return { help: true };
  const [name, ...flags] = argv;
  if (!name) return { error: `Name what to export: ${EXPORTS.join(", ")} (see --help).` };
  if (!(EXPORTS as readonly string[]).includes(name)) return { error: `Unknown export ${name}: one of ${EXPORTS.join(", ")} (see --help).` };
  const exportName = name as ExportName;
  const opts = new Map<string, string>();
  for (let i = 0; i < flags.length; i += 2) {
    const flag = flags[i]!;
    if (!ALLOWED[exportName].has(flag)) return { error: `${exportName} takes no option ${flag} (see --help).` };
    const value = flags[i + 1];
    if (value === undefined || (value.startsWith("--") && value !== "-")) return { error: `${flag} needs a value.` };
    if (opts.has(flag)) return { error: `${flag} is given twice.` };
    opts.set(flag, value);
  }
  const format = opts.get("--format") ?? "csv";
  if (format !== "csv") return { error: `Unknown format ${format}: only csv.` };
  const cmd: ExportCommand = { name: exportName };
  const event = opts.get("--event");
  if (event !== undefined) {
    if (!/^[1-9]\d{0,8}$/.test(event)) return { error: `--event must be an event id (a whole number), not ${event}.` };
    cmd.eventId = Number(event);
  }
  if ((exportName === "registrations" || exportName === "waiting-list") && cmd.eventId === undefined) return { error: `${exportName} needs --event ID.` };
  const day = opts.get("--day");
  if (day !== undefined) {
    if (!parseDay(day)) return { error: `--day must be a date YYYY-MM-DD, not ${day}.` };
    cmd.day = day;
  }
  for (const [flag, key] of [["--from", "from"], ["--to", "to"]] as const) {
    const value = opts.get(flag);
    if (value === undefined) continue;
    const d = parseDay(value);
    if (!d) return { error: `${flag} must be a date YYYY-MM-DD, not ${value}.` };
    if (key === "to") d.setUTCDate(d.getUTCDate() + 1);
    cmd[key] = d;
  }
  if (cmd.from && cmd.to && cmd.from >= cmd.to) return { error: "--from must be on or before --to." };
  const out = opts.get("--out");
  if (out !== undefined) cmd.out = out;
  return cmd;
}

/** The file an export writes when --out is not given. */
export function defaultFileName(cmd: ExportCommand): string {
  const parts: string[] = [cmd.name];
  if (cmd.eventId !== undefined) parts.push(`event-${cmd.eventId}`);
  if (cmd.day) parts.push(cmd.day);
  if (cmd.from) parts.push(`from-${cmd.from.toISOString().slice(0, 10)}`);
  if (cmd.to) parts.push(`to-${new Date(cmd.to.getTime() - 86_400_000).toISOString().slice(0, 10)}`);
  return `${parts.join("-")}.csv`;
}
