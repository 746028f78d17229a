import { describe, expect, it } from "vitest";
import { calendarFile, escapeText, foldLine } from "../../src/email/icalendar.ts";

const octets = (s: string) => Buffer.byteLength(s, "utf8");

describe("the calendar file (RFC 5545)", () => {
  it("escapes TEXT values: backslash, semicolon, comma, and line breaks as \\n", () => {
    expect(escapeText("a\\b;c,d")).toBe("a\\\\b\\;c\\,d");
    expect(escapeText("one\ntwo\r\nthree\rfour")).toBe("one\\ntwo\\nthree\\nfour");
    expect(escapeText("9:00 AM - 4:00 PM")).toBe("9:00 AM - 4:00 PM");
  });

  it("folds a long line at 75 octets, each continuation after one space, never inside a multi-byte character", () => {
    const value = `DESCRIPTION:${"Camp día ✓ 🤼 Ünïcödé ".repeat(12)}`;
    const folded = foldLine(value);
    const lines = folded.split("\r\n");
    expect(lines.length).toBeGreaterThan(3);
    for (const [i, line] of lines.entries()) {
      expect(octets(line)).toBeLessThanOrEqual(75);
      if (i > 0) expect(line.startsWith(" ")).toBe(true);
      // Each piece is whole UTF-8 (a split character would come back as U+FFFD) and whole code points.
      expect(Buffer.from(line, "utf8").toString("utf8")).toBe(line);
      expect(line).not.toMatch(/[\ud800-\udbff]$|^ ?[\udc00-\udfff]/);
    }
    // Unfolding (RFC 5545 3.1: CRLF and one space removed) gives the line back.
    expect(folded.replace(/\r\n /g, "")).toBe(value);
    // Lines are filled: a break comes only where the next character would pass 75 octets.
    for (let i = 0; i < lines.length - 1; i++) {
      const next = [...lines[i + 1]!.slice(1)][0]!;
      expect(octets(lines[i]!) + octets(next)).toBeGreaterThan(75);
    }
  });

  it("leaves a line of 75 octets as it is and folds one of 76", () => {
    expect(foldLine("X".repeat(75))).toBe("X".repeat(75));
    expect(foldLine("X".repeat(76))).toBe(`${"X".repeat(75)}\r\n X`);
    // 74 ASCII octets and a 2-octet character make 76: the character goes to the next line whole.
    expect(foldLine(`${"X".repeat(74)}é`)).toBe(`${"X".repeat(74)}\r\n é`);
  });

  it("writes whole-day events: DATE values, the end the day after (across a month's end), CRLF lines", () => {
    const ics = calendarFile({
      name: "Bama Wrestling, Inc.",
      now: new Date("2026-11-28T09:05:07Z"),
      events: [
        { uid: "REG-1-2027-06-30@bama-registration", date: "2027-06-30", summary: "Camp (Wednesday, June 30)", description: "2 Days; 9 to 4.\nBring shoes.", location: "Hall A, Birmingham" },
        { uid: "REG-1-2027-12-31@bama-registration", date: "2027-12-31", summary: "Camp", description: "D", location: "L" },
      ],
    });
    expect(ics.endsWith("END:VCALENDAR\r\n")).toBe(true);
    expect(ics.replace(/\r\n/g, "")).not.toMatch(/[\r\n]/);
    const lines = ics.split("\r\n");
    expect(lines.slice(0, 7)).toEqual(["BEGIN:VCALENDAR", "VERSION:2.0", "CALSCALE:GREGORIAN", "PRODID:Bama Wrestling\\, Inc.", "METHOD:PUBLISH", "X-WR-CALNAME:Bama Wrestling\\, Inc.", "X-PUBLISHED-TTL:PT1H"]);
    expect(ics.match(/BEGIN:VEVENT/g)).toHaveLength(2);
    expect(lines).toContain("UID:REG-1-2027-06-30@bama-registration");
    expect(lines).toContain("DTSTAMP:20261128T090507Z");
    expect(lines).toContain("DTSTART;VALUE=DATE:20270630");
    expect(lines).toContain("DTEND;VALUE=DATE:20270701");
    expect(lines).toContain("DTSTART;VALUE=DATE:20271231");
    expect(lines).toContain("DTEND;VALUE=DATE:20280101");
    expect(lines).toContain("SUMMARY:Camp (Wednesday\\, June 30)");
    expect(lines).toContain("DESCRIPTION:2 Days\\; 9 to 4.\\nBring shoes.");
    expect(lines).toContain("LOCATION:Hall A\\, Birmingham");
    expect(lines.filter((l) => l === "STATUS:CONFIRMED")).toHaveLength(2);
    expect(lines.filter((l) => l === "TRANSP:OPAQUE")).toHaveLength(2);
  });

  it("refuses a day that is not a date rather than writing a broken file", () => {
    expect(() => calendarFile({ name: "X", events: [{ uid: "u", date: "June 5", summary: "s", description: "d", location: "l" }] })).toThrow(/not a date/);
  });
});
