import { describe, expect, it } from "vitest";
import { toText } from "../../src/shared/toText.ts";

describe("toText", () => {
  it("gives what String() gives for text, numbers, booleans, dates, null and undefined", () => {
    const date = new Date("2027-06-12T09:00:00Z");
    for (const value of ["a b", 42, 10n, true, date, null, undefined]) expect(toText(value)).toBe(String(value));
  });

  it("gives JSON for a plain object or an array, never [object Object]", () => {
    expect(toText({ places: 2 })).toBe('{"places":2}');
    expect(toText(["a", 1])).toBe('["a",1]');
  });
});
