import { describe, expect, it } from "vitest";
import { invitePlacesLeft, validateInviteRow, withInvitedRows } from "../../src/shared/registrations/invites.ts";
import { blankAthlete, blankCoach, TEAM_AGE, TEAM_MAXIMUM } from "../../src/shared/registrations/teamRules.ts";
import { urlForLog } from "../../src/logger.ts";
import { withoutLinkSecrets } from "../../src/email/outbox.ts";

const row = { firstName: " Sam ", lastName: "Lee", age: "14", email: "sam@example.com", shirtSize: "Large", parentName: "Pat Lee", parentPhoneNumber: "205-555-0100" };

describe("a family's row through a team's invite link", () => {
  it("takes a complete row as the team form does, trimmed, the age a number", () => {
    const r = validateInviteRow(TEAM_AGE, { athlete: row });
    expect(r).toEqual({ ok: true, data: { ...row, firstName: "Sam", age: 14 } });
  });

  it("requires every field and checks the others with the team form's messages", () => {
    const r = validateInviteRow(TEAM_AGE, { athlete: { ...row, lastName: " ", email: "nope", age: "25", shirtSize: "Huge" } });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.errors["athlete.lastName"]).toBe("This field is required");
    expect(r.errors["athlete.email"]).toBe("Please enter a valid email address");
    expect(r.errors["athlete.age"]).toMatch(/^Athletes must be 10 to 19 years old/);
    expect(r.errors["athlete.shirtSize"]).toBe("Please choose one of the listed sizes");
  });

  it("names the athlete in the e-mail's message as the team form does", () => {
    const r = validateInviteRow(TEAM_AGE, { athlete: { ...row, email: "nope" } });
    expect(r.ok ? null : r.errors["athlete.email"]).toBe("Please enter a valid email address for Sam Lee.");
  });

  it("refuses what the team form refuses in text (control and direction characters) and anything not text", () => {
    expect(validateInviteRow(TEAM_AGE, { athlete: { ...row, parentName: "Pat\u202eLee" } }).ok).toBe(false);
    expect(validateInviteRow(TEAM_AGE, { athlete: { ...row, firstName: ["a", "b"] } }).ok).toBe(false);
    expect(validateInviteRow(TEAM_AGE, { athlete: "x" }).ok).toBe(false);
    expect(validateInviteRow(TEAM_AGE, null).ok).toBe(false);
  });

  it("checks the event's own ages", () => {
    expect(validateInviteRow({ min: 15, max: 18 }, { athlete: row }).ok).toBe(false);
  });
});

describe("the team an invite makes", () => {
  it("counts the coach's non-blank rows and the families' rows against the team's maximum", () => {
    const coachRows = [{ ...blankAthlete(), firstName: "A" }, blankAthlete(), { ...blankAthlete(), email: "b@example.com" }];
    expect(invitePlacesLeft(TEAM_MAXIMUM, coachRows, 0)).toBe(TEAM_MAXIMUM - 2);
    expect(invitePlacesLeft(TEAM_MAXIMUM, coachRows, TEAM_MAXIMUM - 3)).toBe(1);
    expect(invitePlacesLeft(TEAM_MAXIMUM, coachRows, TEAM_MAXIMUM)).toBe(0);
  });

  it("puts the families' rows after the coach's own", () => {
    const values = { formSessionId: "f", coachInfo: blankCoach(), athletes: [{ ...blankAthlete(), firstName: "Own" }] };
    const joined = withInvitedRows(values, [{ id: 1, row: { ...row, firstName: "Fam" }, waiverSigned: false, missing: [] }]);
    expect(joined.athletes.map((a) => a.firstName)).toEqual(["Own", "Fam"]);
    expect(values.athletes).toHaveLength(1);
  });

  it("keeps the link's token out of logs and sent e-mails", () => {
    const token = "A".repeat(43);
    expect(urlForLog(`/team-invite/${token}`)).toBe("/team-invite/[redacted]");
    expect(withoutLinkSecrets(`Open https://example.com/team-invite/${token} now`)).not.toContain(token);
  });
});
