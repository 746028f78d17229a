import { describe, expect, it } from "vitest";
import { dateFormat } from "../../src/shared/dateFormats.ts";

describe("dateFormat", () => {
  it("makes one format per locale and options, and reuses it", () => {
    const chicago = dateFormat("en-US", { timeZone: "America/Chicago", year: "numeric", month: "long", day: "numeric" });
    expect(dateFormat("en-US", { timeZone: "America/Chicago", year: "numeric", month: "long", day: "numeric" })).toBe(chicago);
    expect(dateFormat("en-US", { timeZone: "America/Denver", year: "numeric", month: "long", day: "numeric" })).not.toBe(chicago);
    expect(dateFormat("en-CA", { timeZone: "America/Chicago", year: "numeric", month: "long", day: "numeric" })).not.toBe(chicago);
    expect(chicago.format(new Date("2027-06-05T04:59:00Z"))).toBe("June 4, 2027");
  });

  it("refuses an unknown zone as Intl does, and keeps nothing for it", () => {
    expect(() => dateFormat("en-US", { timeZone: "Mars/Olympus" })).toThrow(RangeError);
    expect(() => dateFormat("en-US", { timeZone: "Mars/Olympus" })).toThrow(RangeError);
  });
});
