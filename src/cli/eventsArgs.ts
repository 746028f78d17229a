/**
 * The arguments of `npm run events -- list|show|create|update`, checked with the site's event schema
 * (src/shared/events/editing.ts) before anything is read or written: the command, `{ help: true }` or one line.
 */
import { eventChangesSchema, type EventChanges } from "../shared/events/editing.ts";
import { PACKAGE_CODES } from "../shared/registrations/packages.ts";

export type EventsCommand =
  | { command: "list" }
  | { command: "show"; eventId: number }
  | { command: "create"; likeEventId: number; changes: EventChanges }
  | { command: "update"; eventId: number; changes: EventChanges };

export const EVENTS_USAGE = [
  "Usage:",
  "  npm run events -- list",
  "  npm run events -- show EVENT_ID",
  "  npm run events -- create --like EVENT_ID --title TITLE --start YYYY-MM-DD --end YYYY-MM-DD --location PLACE",
  "                           --capacity PLACES --package full=PRICE [OPTIONS]",
  "  npm run events -- update EVENT_ID [OPTIONS]",
  "",
  "Options (update changes only those given):",
  "  --title TITLE  --start YYYY-MM-DD  --end YYYY-MM-DD  --date-text TEXT (written from the dates when left out)",
  "  --time-zone ZONE (IANA, e.g. America/Chicago)  --location PLACE  --capacity PLACES (1 to 100000)",
  `  --package CODE=PRICE[=LABEL] (again for each package; codes ${PACKAGE_CODES.join(", ")}; dollars, e.g. 349.00)`,
  "  --team-price PRICE (per athlete)  --closes YYYY-MM-DD|none (registration closes at the start of that day in the",
  "  event's zone; none: at the start)  --freeze YYYY-MM-DD|none (paid registrations change until then; none: 7 days",
  "  before the start)  --listed yes|no",
  "  --deposit none|fixed=DOLLARS|percent=N (a deposit per athlete now, the balance later; a percentage is rounded to",
  "  whole dollars)  --balance-due-days DAYS (the balance is due that many days before the first day; 14 by default)",
  "  --sibling-discount none|fixed=DOLLARS|percent=N (off each additional athlete of a family registered together)",
  "",
  "create copies the description, picture, category, hours, features, ages, team price and deposit of the --like event.",
  "A raised capacity goes to the waiting list first. Bad input prints one line and changes nothing (exit 1); the",
  "running site shows a change on its next request, on every instance.",
].join("\n");

type Parsed = EventsCommand | { help: true } | { error: string };

const OPTIONS: Record<string, keyof EventChanges> = {
  "--title": "title",
  "--start": "startDate",
  "--end": "endDate",
  "--date-text": "dateText",
  "--time-zone": "timeZone",
  "--location": "location",
  "--capacity": "capacity",
  "--package": "packages",
  "--team-price": "teamPriceCents",
  "--closes": "registrationClosesOn",
  "--freeze": "changesFreezeOn",
  "--listed": "listed",
  "--deposit": "deposit",
  "--balance-due-days": "balanceDueDays",
  "--sibling-discount": "siblingDiscount",
};

const REQUIRED_ON_CREATE = ["--title", "--start", "--end", "--location", "--capacity", "--package"];

function eventId(value: string | undefined, what = "Name the event: its id, as list shows it (see --help)."): number | { error: string } {
  if (value === undefined || value.startsWith("--")) return { error: what };
  if (!/^[1-9]\d{0,8}$/.test(value)) return { error: `An event id is a whole number, not ${value}.` };
  return Number(value);
}

/** `--option value` pairs (`--package` may repeat) checked field by field with the site's schema. */
function parseChanges(rest: string[], extra: string[] = []): { changes: EventChanges; given: Map<string, string> } | { error: string } {
  const raw: Record<string, unknown> = {};
  const given = new Map<string, string>();
  for (let i = 0; i < rest.length; i += 2) {
    const flag = rest[i]!;
    if (!(flag in OPTIONS) && !extra.includes(flag)) return { error: flag.startsWith("--") ? `Unknown option ${flag} (see --help).` : `Unexpected argument ${flag} (see --help).` };
    const value = rest[i + 1];
    if (value === undefined || (value.startsWith("--") && value.length > 2)) return { error: `${flag} needs a value.` };
    if (flag === "--package") {
      ((raw.packages ??= []) as string[]).push(value);
    } else if (given.has(flag)) {
      return { error: `${flag} is given twice.` };
    } else if (flag === "--listed") {
      if (value !== "yes" && value !== "no") return { error: `--listed is yes or no, not ${value}.` };
      raw.listed = value === "yes";
    } else if (!extra.includes(flag)) {
      raw[OPTIONS[flag]!] = value;
    }
    given.set(flag, value);
  }
  const checked = eventChangesSchema.safeParse(raw);
  if (!checked.success) return { error: checked.error.issues[0]!.message };
  return { changes: checked.data, given };
}

export function parseEventsArgs(argv: string[]): Parsed {
  if (argv.includes("--help") || argv.includes("-h")) return { help: true };
  const [command, first, ...rest] = argv;
  switch (command) {
    case "list":
      return first === undefined ? { command: "list" } : { error: `list takes no argument ${first}.` };
    case "show": {
      const id = eventId(first);
      if (typeof id !== "number") return id;
      return rest.length ? { error: `show takes no argument ${rest[0]!}.` } : { command: "show", eventId: id };
    }
    case "create": {
      const parsed = parseChanges(first === undefined ? [] : [first, ...rest], ["--like"]);
      if ("error" in parsed) return parsed;
      const like = eventId(parsed.given.get("--like"), "Name the event to copy the rest from: --like EVENT_ID (see --help).");
      if (typeof like !== "number") return like;
      const missing = REQUIRED_ON_CREATE.filter((f) => !parsed.given.has(f));
      if (missing.length) return { error: `create needs ${missing.join(", ")} (see --help).` };
      return { command: "create", likeEventId: like, changes: parsed.changes };
    }
    case "update": {
      const id = eventId(first);
      if (typeof id !== "number") return id;
      const parsed = parseChanges(rest);
      if ("error" in parsed) return parsed;
      if (parsed.given.size === 0) return { error: "Name what to change, e.g. --capacity 80 (see --help)." };
      return { command: "update", eventId: id, changes: parsed.changes };
    }
    default:
      return { error: command ? `Unknown command ${command}: list, show, create or update (see --help).` : "Name a command: list, show, create or update (see --help)." };
  }
}
