import { describe, expect, it } from "vitest";
import { validate } from "../../src/shared/forms.ts";
import { countAthletes, teamErrorTitle, teamFormValues, teamRegistrationSchema, shownTotalMatches, teamSchemaFor, teamTotalCents, TEAM_TEXT } from "../../src/shared/registrations/teamRules.ts";

const coach = { firstName: "Dana", lastName: "Brooks", email: "coach@example.com", phone: "2055550142", teamName: "" };
const row = (i: number, over: Record<string, string> = {}) => ({
  firstName: `A${i}`, lastName: "B", age: "12", email: `a${i}@example.com`, shirtSize: "Large", parentName: "P", parentPhoneNumber: "205", ...over,
});
const rows = (n: number) => Array.from({ length: n }, (_, i) => row(i));

describe("team rules", () => {
  it("gives the spec's first message and title in the spec's order", () => {
    const r = validate(teamRegistrationSchema, { coachInfo: { ...coach, lastName: "", email: "" }, athletes: rows(2) });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.message).toBe("Please fill in: Last Name, Email");
    expect(teamErrorTitle(r.message)).toBe("Coach Information Required");
    expect(r.errors.athletes).toBe("You have 2 complete athletes. Need at least 5. Please add more athletes.");
  });

  it("counts complete athletes; blank rows are not 'missing information'", () => {
    expect(countAthletes(teamFormValues({ athletes: [row(1), row(2, { age: " " }), {}, row(3)] }).athletes)).toEqual({ complete: 2, incomplete: 1 });
    expect(TEAM_TEXT.minimum(4, 1)).toBe("You have 4 complete athletes. Need at least 5. 1 athletes have missing information.");
  });

  it("accepts ages 10 to 19 ('Ages 10+ through high school') as whole numbers only, with a clear message", () => {
    for (const [age, ok] of [["10", true], ["19", true], ["6", false], ["9", false], ["20", false], ["12.0", false], ["-12", false], ["", true]] as const) {
      const r = validate(teamRegistrationSchema, { coachInfo: coach, athletes: [...rows(5), row(9, { age })] });
      expect(r.ok, age).toBe(ok);
    }
    const six = validate(teamRegistrationSchema, { coachInfo: coach, athletes: [...rows(5), row(9, { age: "6" })] });
    expect(!six.ok && six.errors["athletes.5.age"]).toBe("Athletes must be 10 to 19 years old (ages 10+ through high school): enter the age in whole years");
  });

  it("compares the total a form showed with the one it would charge", () => {
    expect(shownTotalMatches("99500", 99500)).toBe(true);
    expect(shownTotalMatches(undefined, 99500)).toBe(true);
    expect(shownTotalMatches("79600", 99500)).toBe(false);
    for (const odd of ["", " 99500", "995.00", "-1", 99500, ["99500"]]) expect(shownTotalMatches(odd, 99500), String(odd)).toBe(false);
    expect(TEAM_TEXT.totalChanged(5, 99500)).toBe("Your team now has 5 complete athletes, so the total is $995.00. Please check it and press Register Team again.");
  });

  it("takes an event's own age limits", () => {
    const schema = teamSchemaFor({ min: 14, max: 18 });
    const older = rows(5).map((r) => ({ ...r, age: "16" }));
    expect(validate(schema, { coachInfo: coach, athletes: [...older, row(9, { age: "14" })] }).ok).toBe(true);
    const twelve = validate(schema, { coachInfo: coach, athletes: [...older, row(9, { age: "12" })] });
    expect(!twelve.ok && twelve.errors["athletes.5.age"]).toBe("Athletes must be 14 to 18 years old for this event: enter the age in whole years");
  });

  it("reads rows posted as an object with numeric keys (past 20 rows) in their order, and trims", () => {
    const v = teamFormValues({ athletes: { 10: row(10), 2: row(2, { firstName: "  Two " }), x: row(0) } });
    expect(v.athletes.map((a) => a.firstName)).toEqual(["  Two ", "A10"]);
    const r = validate(teamRegistrationSchema, { coachInfo: coach, athletes: { 0: row(0), 1: row(1), 2: row(2, { firstName: " Two " }), 3: row(3), 25: row(25) } });
    expect(r.ok && r.data.athletes.map((a) => a.firstName)).toEqual(["A0", "A1", "Two", "A3", "A25"]);
  });

  it("prices complete athletes at the team price", () => {
    expect(teamTotalCents(5, 19900)).toBe(99500);
    expect(teamTotalCents(6, 19900)).toBe(119400);
  });
});

describe("team rules: what a form could not have sent", () => {
  it("refuses non-text values, control and direction characters, invisible-only text and over-long values", () => {
    const cases: [Record<string, unknown>, string, string][] = [
      [{ coachInfo: { ...coach, teamName: true } }, "coachInfo.teamName", "Please enter this as text"],
      [{ coachInfo: { ...coach, teamName: "A\u0000B" } }, "coachInfo.teamName", "Please remove line breaks and special control characters"],
      [{ coachInfo: { ...coach, lastName: "Br\u202eooks" } }, "coachInfo.lastName", "Please remove invisible direction or layout characters"],
      [{ coachInfo: { ...coach, teamName: "\u200b\u200b" } }, "coachInfo.teamName", "Please enter visible text"],
      [{ coachInfo: { ...coach, teamName: "a".repeat(5001) } }, "coachInfo.teamName", "Please keep this under 160 characters"],
      [{ athletes: [...rows(5), { ...row(6), parentName: ["x"] }] }, "athletes.5.parentName", "Please enter this as text"],
    ];
    for (const [input, path, message] of cases) {
      const r = validate(teamRegistrationSchema, { coachInfo: coach, athletes: rows(5), ...input });
      expect(r.ok, path).toBe(false);
      if (!r.ok) expect(r.errors[path], path).toBe(message);
    }
    const ok = validate(teamRegistrationSchema, { coachInfo: coach, athletes: rows(5).map((a, i) => ({ ...a, age: 10 + i })) });
    expect(ok.ok).toBe(true);
  });
});
