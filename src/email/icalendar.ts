/**
 * A calendar file (RFC 5545) of whole-day events, written directly: CRLF line ends, TEXT values escaped, content
 * lines folded at 75 octets (never inside a character). It is built inside the transaction that marks a registration
 * paid (its confirmation e-mail is queued there), so it costs string work only: no schema validation.
 */

export interface AllDayEvent {
  uid: string;
  /** The first day, `YYYY-MM-DD`. */
  date: string;
  /** How many days it lasts (DTEND is the day after its last, as RFC 5545 counts a whole-day event). */
  days?: number;
  summary: string;
  description: string;
  location: string;
}

export interface Calendar {
  /** PRODID and X-WR-CALNAME: the site's name, as calendar apps show it. */
  name: string;
  events: readonly AllDayEvent[];
  /** DTSTAMP: when the file was made. */
  now?: Date;
}

/** TEXT value escaping (RFC 5545 3.3.11): backslash, semicolon, comma; a line break becomes `\n`. */
export function escapeText(value: string): string {
  return value.replace(/[\\;,]|\r?\n|\r/g, (c) => (c === "\\" || c === ";" || c === "," ? `\\${c}` : "\\n"));
}

const MAX_OCTETS = 75;

/** UTF-8 length of one code point. */
const octetsOf = (codePoint: number) => (codePoint < 0x80 ? 1 : codePoint < 0x800 ? 2 : codePoint < 0x10000 ? 3 : 4);

/**
 * A content line folded (RFC 5545 3.1): no line longer than 75 octets, CRLF excluded; each continuation starts with
 * one space, which counts. A break falls between code points, never inside a character's UTF-8 bytes.
 */
export function foldLine(line: string): string {
  // ASCII-only lines of at most 75 characters (nearly all of them) need no walk.
  if (line.length <= MAX_OCTETS && !/[^\x00-\x7f]/.test(line)) return line;
  let out = "";
  let octets = 0;
  for (const char of line) {
    const size = octetsOf(char.codePointAt(0)!);
    if (octets + size > MAX_OCTETS) {
      out += "\r\n ";
      octets = 1;
    }
    out += char;
    octets += size;
  }
  return out;
}

const pad = (n: number) => (n < 10 ? `0${n}` : String(n));

/** `YYYY-MM-DD` plus `plusDays`, as a DATE value: `YYYYMMDD`. */
function dateValue(iso: string, plusDays = 0): string {
  const d = new Date(`${iso}T00:00:00Z`);
  if (Number.isNaN(d.getTime())) throw new Error(`not a date: ${iso}`);
  d.setUTCDate(d.getUTCDate() + plusDays);
  return `${d.getUTCFullYear()}${pad(d.getUTCMonth() + 1)}${pad(d.getUTCDate())}`;
}

/** A DATE-TIME in UTC: `YYYYMMDDTHHMMSSZ`. */
function stampValue(at: Date): string {
  return `${at.getUTCFullYear()}${pad(at.getUTCMonth() + 1)}${pad(at.getUTCDate())}T${pad(at.getUTCHours())}${pad(at.getUTCMinutes())}${pad(at.getUTCSeconds())}Z`;
}

/** The calendar's text: one VEVENT per event, published (METHOD:PUBLISH), each confirmed and shown as busy. */
export function calendarFile({ name, events, now = new Date() }: Calendar): string {
  const stamp = stampValue(now);
  const lines = ["BEGIN:VCALENDAR", "VERSION:2.0", "CALSCALE:GREGORIAN", `PRODID:${escapeText(name)}`, "METHOD:PUBLISH", `X-WR-CALNAME:${escapeText(name)}`, "X-PUBLISHED-TTL:PT1H"];
  for (const e of events) {
    lines.push(
      "BEGIN:VEVENT",
      `UID:${e.uid}`,
      `SUMMARY:${escapeText(e.summary)}`,
      `DTSTAMP:${stamp}`,
      `DTSTART;VALUE=DATE:${dateValue(e.date)}`,
      `DTEND;VALUE=DATE:${dateValue(e.date, e.days ?? 1)}`,
      `DESCRIPTION:${escapeText(e.description)}`,
      `LOCATION:${escapeText(e.location)}`,
      "STATUS:CONFIRMED",
      "TRANSP:OPAQUE",
      "X-MICROSOFT-CDO-BUSYSTATUS:BUSY",
      "END:VEVENT",
    );
  }
  lines.push("END:VCALENDAR");
  return `${lines.map(foldLine).join("\r\n")}\r\n`;
}
