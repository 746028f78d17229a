/**
 * The site's own words, formats of time and the phrases pages and e-mails share: one copy of each, so a page, its
 * summary and its e-mail say a thing the same way (US spelling: "Canceled", "canceling"). The spec's own texts
 * (messages, support hours, shipping days) stay where they are, word for word. Browser-safe.
 */
import { formatPrice } from "./money.ts";
import { dateFormat } from "./dateFormats.ts";

export const FORM_TEXT = {
  fixFields: "Please correct the highlighted fields.",
} as const;

/** How the site spells the words it uses in several places (US spelling). */
export const WORDS = {
  canceled: "Canceled",
  canceledLower: "canceled",
  canceling: "Canceling",
  cancelingLower: "canceling",
} as const;

/** Field names whose words are not simply their name split ("tShirtSize" is not "T shirt size"). */
const FIELD_LABELS: Record<string, string> = {
  tShirtSize: "T-shirt size",
  registrationType: "Package",
  agrees: "Agreement",
  days: "Days",
  age: "Age",
  shirtSize: "Shirt size",
  parentPhoneNumber: "Parent phone number",
  guardianName: "Parent or guardian name",
  guardianEmail: "Parent or guardian email",
  guardianPhone: "Parent or guardian phone",
};

/**
 * What an error summary calls a field: "emergencyContactPhone" is "Emergency contact phone", "athletes.0.firstName"
 * is "Athlete 1 first name".
 */
export function fieldLabel(path: string): string {
  const words = path.split(".").map((part, i, all) => {
    if (/^\d+$/.test(part)) return String(Number(part) + 1);
    if (FIELD_LABELS[part]) return i === 0 ? FIELD_LABELS[part] : FIELD_LABELS[part].toLowerCase();
    const split = part.replace(/([a-z0-9])([A-Z])/g, "$1 $2").toLowerCase();
    // A list's name in the singular before its position: "athletes 0" is "Athlete 1".
    return all[i + 1] !== undefined && /^\d+$/.test(all[i + 1]!) ? split.replace(/s$/, "") : split;
  });
  const text = words.join(" ");
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** A zone's name in words, as a reader says it ("Pacific time"), for the zones the events use; else its id. */
export function zoneWords(timeZone: string): string {
  const known: Record<string, string> = {
    "America/Los_Angeles": "Pacific time",
    "America/Denver": "Mountain time",
    "America/Phoenix": "Arizona time",
    "America/Chicago": "Central time",
    "America/New_York": "Eastern time",
    "America/Detroit": "Eastern time",
    "America/Anchorage": "Alaska time",
    "Pacific/Honolulu": "Hawaii time",
  };
  return known[timeZone] ?? timeZone.replace(/^.*\//, "").replace(/_/g, " ") + " time";
}

function partsIn(at: Date, timeZone: string) {
  const parts = Object.fromEntries(
    dateFormat("en-US", { timeZone, hourCycle: "h23", year: "numeric", month: "long", day: "numeric", hour: "numeric", minute: "2-digit" })
      .formatToParts(at)
      .map((p) => [p.type, p.value]),
  );
  return { year: parts.year!, month: parts.month!, day: parts.day!, hour: Number(parts.hour), minute: Number(parts.minute) };
}

/**
 * A deadline as people read one, in the event's zone: an instant at midnight is the end of the day before ("by the
 * end of May 28 (Pacific time)"); any other instant is "by 3:45 PM on May 28 (Pacific time)". With `year`, the
 * year follows the day ("May 28, 2027").
 */
export function deadlineText(at: Date, timeZone: string, { year = false }: { year?: boolean } = {}): string {
  const midnight = partsIn(at, timeZone).hour === 0 && partsIn(at, timeZone).minute === 0;
  const day = midnight ? new Date(at.getTime() - 60_000) : at;
  const p = partsIn(day, timeZone);
  const date = `${p.month} ${p.day}${year ? `, ${p.year}` : ""}`;
  if (midnight) return `by the end of ${date} (${zoneWords(timeZone)})`;
  return `by ${clock(p.hour, p.minute)} on ${date} (${zoneWords(timeZone)})`;
}

/**
 * When something happened (a hold, a cancellation, a signature), in the event's zone with its day in that zone:
 * "November 26, 2026 at 11:05 PM (Pacific time)".
 */
export function stampText(at: Date, timeZone: string): string {
  const p = partsIn(at, timeZone);
  return `${p.month} ${p.day}, ${p.year} at ${clock(p.hour, p.minute)} (${zoneWords(timeZone)})`;
}

/** A time today in the event's zone: "3:45 PM (Pacific time)". */
export function timeText(at: Date, timeZone: string): string {
  const p = partsIn(at, timeZone);
  return `${clock(p.hour, p.minute)} (${zoneWords(timeZone)})`;
}

function clock(hour: number, minute: number): string {
  return `${hour % 12 === 0 ? 12 : hour % 12}:${String(minute).padStart(2, "0")} ${hour < 12 ? "AM" : "PM"}`;
}

/** "1 place" / "6 places": a count with its noun. */
export function countOf(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

/** A roster's state above the list: "5 of 7 complete". */
export function completeCount(complete: number, total: number): string {
  return `${complete} of ${total} complete`;
}

/** A roster athlete's badge: "Complete", or what is missing in words ("Missing: waiver and medical release"). */
export function missingBadge(missing: readonly string[]): string {
  if (missing.length === 0) return "Complete";
  const list = missing.length === 1 ? missing[0]! : `${missing.slice(0, -1).join(", ")} and ${missing[missing.length - 1]}`;
  return `Missing: ${list}`;
}

/** Said after a card was declined or its bank check failed: the card was not charged. */
export const NOTHING_CHARGED = "Nothing was charged.";

/** A decline's message with the reassurance that nothing was charged (once, if the message does not say it). */
export function declinedText(message: string): string {
  return /nothing was charged/i.test(message) ? message : `${message} ${NOTHING_CHARGED}`;
}

/** What a confirmation promises about the private link (pages and e-mails). */
export const CONFIRMATION_TEXT = {
  /** A registration on a deposit plan with its balance still to pay: never "paid" while something is owed. */
  depositPaid: "The deposit is paid and the place is booked; the balance below is still to pay.",
  privateLinkPromise: "The confirmation e-mail sent to the address entered at registration holds the private link to see, change or cancel this registration from any browser.",
} as const;

/** The parent or guardian block of the individual form and the manage page. */
export const GUARDIAN_TEXT = {
  legend: "Parent or Guardian",
  hint: "For an athlete under 18: the camp's e-mails go to this person and greet them.",
  adult: "The athlete is 18 or older (no parent or guardian contact needed)",
  name: "Parent or Guardian Name",
  email: "Parent or Guardian Email",
  phone: "Parent or Guardian Phone",
} as const;

/** A moment soon (a hold's end): "3:45 PM on November 27 (Pacific time)". */
export function momentText(at: Date, timeZone: string): string {
  const p = partsIn(at, timeZone);
  return `${clock(p.hour, p.minute)} on ${p.month} ${p.day} (${zoneWords(timeZone)})`;
}

/**
 * Refunds as the card will show them: one line each (a registration paid in two payments is refunded in two), with a
 * heading line when there are several. Empty when nothing is refunded.
 */
export function refundLines(partsCents: readonly number[]): string[] {
  const parts = partsCents.filter((c) => c > 0);
  if (parts.length === 0) return [];
  if (parts.length === 1) return [`On your card: one refund of ${formatPrice(parts[0]!)}.`];
  return [`On your card: ${parts.length} separate refunds,`, ...parts.map((c) => `- ${formatPrice(c)}`)];
}

/** How long a hold lasts, for one place or a team's: "Your place is held for 30 minutes while you pay". */
export function heldText(team: boolean, capital = true, minutes = 30): string {
  const text = `${team ? "your team's places are" : "your place is"} held for ${minutes} minutes while you pay`;
  return capital ? text.charAt(0).toUpperCase() + text.slice(1) : text;
}
