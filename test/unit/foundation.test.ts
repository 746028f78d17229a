import { describe, expect, it } from "vitest";
import { z } from "zod";
import { validate } from "../../src/shared/forms.ts";
import { serializeProps } from "../../views/components/Widget.tsx";
import { badgeText, DESKTOP_BADGE_CAP, MOBILE_BADGE_CAP } from "../../src/shared/cart/badge.ts";
import { backoffMs } from "../../src/db/jobQueue.ts";
import { errorFor, fieldName, stateChoices, stateField } from "../../components/Form.tsx";
import { toDate, toJson } from "../../src/db/rows.ts";

describe("validate", () => {
  const schema = z.object({
    name: z.string().trim().min(2, "Name must be at least 2 characters"),
    athletes: z.array(z.object({ email: z.email("Please enter a valid email address") })),
  });

  it("returns the parsed data when valid", () => {
    expect(validate(schema, { name: " Al ", athletes: [] })).toEqual({ ok: true, data: { name: "Al", athletes: [] } });
  });

  it("keys the first message of each field by its path", () => {
    const r = validate(schema, { name: "A", athletes: [{ email: "x" }] });
    expect(r).toEqual({
      ok: false,
      message: "Name must be at least 2 characters",
      errors: { name: "Name must be at least 2 characters", "athletes.0.email": "Please enter a valid email address" },
    });
  });
});

describe("form fields", () => {
  it("maps field paths to the names the body parser nests", () => {
    expect(fieldName("athletes.0.firstName")).toBe("athletes[0][firstName]");
    expect(fieldName("email")).toBe("email");
    expect(stateField({ values: { athletes: [{ firstName: "Jo" }] }, errors: {} }, "athletes.0.firstName"))
      .toEqual({ name: "athletes.0.firstName", value: "Jo", error: undefined });
  });

  it("finds a list's error on the list or on its first bad item", () => {
    expect(errorFor({ needs: "Choose one" }, "needs")).toBe("Choose one");
    expect(errorFor({ "needs.1": "Not listed", needsMore: "other" }, "needs")).toBe("Not listed");
    expect(stateChoices({ values: { needs: "A" }, errors: {} }, "needs").value).toEqual(["A"]);
    expect(stateChoices({ values: { needs: ["A", "B"] }, errors: {} }, "needs").value).toEqual(["A", "B"]);
  });
});

describe("serializeProps", () => {
  it("cannot close the script tag or break a line", () => {
    const out = serializeProps({ s: "</script><script>alert(1)</script>", l: "a\u2028b\u2029c" });
    expect(out).not.toContain("<");
    expect(out).not.toMatch(/[\u2028\u2029]/);
    expect(JSON.parse(out)).toEqual({ s: "</script><script>alert(1)</script>", l: "a\u2028b\u2029c" });
  });
});

describe("badgeText", () => {
  it("caps at 99+ on desktop and 9+ on mobile", () => {
    expect(badgeText(99, DESKTOP_BADGE_CAP)).toBe("99");
    expect(badgeText(100, DESKTOP_BADGE_CAP)).toBe("99+");
    expect(badgeText(9, MOBILE_BADGE_CAP)).toBe("9");
    expect(badgeText(10, MOBILE_BADGE_CAP)).toBe("9+");
    expect(badgeText(0, MOBILE_BADGE_CAP)).toBe("0");
  });
});

describe("outbox backoff", () => {
  it("doubles from 30 s and stops growing at an hour", () => {
    expect([1, 2, 3, 4].map(backoffMs)).toEqual([30_000, 60_000, 120_000, 240_000]);
    expect(backoffMs(20)).toBe(3_600_000);
  });
});

describe("row normalisation", () => {
  it("reads SQLite and MySQL timestamps alike", () => {
    const d = new Date("2026-06-05T10:00:00.000Z");
    expect(toDate(d.getTime())?.toISOString()).toBe(d.toISOString());
    expect(toDate(String(d.getTime()))?.toISOString()).toBe(d.toISOString());
    expect(toDate("2026-06-05 10:00:00")?.toISOString()).toBe(d.toISOString());
    expect(toDate(d)).toBe(d);
    expect(toDate(null)).toBeNull();
  });
  it("reads JSON columns from either database", () => {
    expect(toJson('{"a":1}', {})).toEqual({ a: 1 });
    expect(toJson({ a: 1 }, {})).toEqual({ a: 1 });
    expect(toJson("not json", [])).toEqual([]);
  });
});
