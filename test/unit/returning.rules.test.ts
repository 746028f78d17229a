import { describe, expect, it } from "vitest";
import { ageMovedUp, askedFrom, gradeMovedUp, LAST_GRADE, returningAskSchema, returningBackTo, RETURNING_LINK, RETURNING_PATH, seasonsBetween } from "../../src/shared/registrations/returning.ts";
import { validate } from "../../src/shared/forms.ts";
import { newSecretToken, SECRET_TOKEN_PATTERN, secretTokenHash } from "../../src/http/secretLinks.ts";
import { SENT_LINK_PLACEHOLDER, withoutLinkSecrets } from "../../src/email/outbox.ts";
import { urlForLog } from "../../src/logger.ts";

describe("a grade moved up where the season changed", () => {
  it("moves a numbered grade up in the form it was typed", () => {
    expect(gradeMovedUp("10th", 1)).toBe("11th");
    expect(gradeMovedUp("8th", 1)).toBe("9th");
    expect(gradeMovedUp("1st", 1)).toBe("2nd");
    expect(gradeMovedUp("2nd", 1)).toBe("3rd");
    expect(gradeMovedUp("10", 1)).toBe("11");
    expect(gradeMovedUp("9th grade", 1)).toBe("10th grade");
    expect(gradeMovedUp("10TH", 1)).toBe("11TH");
    expect(gradeMovedUp("7th", 2)).toBe("9th");
    expect(gradeMovedUp("10th", 1)).not.toBe("11st");
  });

  it("keeps the last grade, and never goes past it", () => {
    expect(gradeMovedUp(`${LAST_GRADE}th`, 1)).toBe("12th");
    expect(gradeMovedUp("11th", 3)).toBe("12th");
    expect(gradeMovedUp("Senior", 1)).toBe("Senior");
  });

  it("moves the high-school years by name", () => {
    expect(gradeMovedUp("Freshman", 1)).toBe("Sophomore");
    expect(gradeMovedUp("junior", 1)).toBe("senior");
  });

  it("changes nothing in the same season, or a text it does not read", () => {
    expect(gradeMovedUp("10th", 0)).toBe("10th");
    expect(gradeMovedUp("Middle school", 1)).toBe("Middle school");
    expect(gradeMovedUp("", 1)).toBe("");
  });

  it("counts the seasons between two events by their starting years, never negative", () => {
    expect(seasonsBetween(new Date("2026-06-05T00:00:00Z"), new Date("2027-06-19T00:00:00Z"))).toBe(1);
    expect(seasonsBetween(new Date("2027-06-05T00:00:00Z"), new Date("2027-06-19T00:00:00Z"))).toBe(0);
    expect(seasonsBetween(new Date("2028-06-05T00:00:00Z"), new Date("2027-06-19T00:00:00Z"))).toBe(0);
    expect(ageMovedUp(14, 1)).toBe("15");
    expect(ageMovedUp(null, 1)).toBe("");
  });
});

describe("the ask", () => {
  it("takes an address and where it was asked; refuses anything else", () => {
    expect(validate(returningAskSchema, { email: " pat@example.com ", from: "register" })).toMatchObject({ ok: true, data: { email: "pat@example.com", from: "register" } });
    expect(validate(returningAskSchema, { email: "pat@example.com" }).ok).toBe(true);
    expect(validate(returningAskSchema, { email: "not an address" }).ok).toBe(false);
    expect(validate(returningAskSchema, { email: "pat@example.com", from: "elsewhere" }).ok).toBe(false);
    expect(askedFrom("team")).toBe("team");
    expect(askedFrom(["team"])).toBe("event");
    expect(returningBackTo(2, "register")).toBe("/register/2#returning");
    expect(returningBackTo(2, "team")).toBe("/team-register/2#returning");
    expect(returningBackTo(2, undefined)).toBe("/events/2#returning");
  });
});

describe("the link's token", () => {
  it("is 256 random bits, stored only as its hash, valid 30 minutes, 3 a day", () => {
    const a = newSecretToken();
    expect(a).toMatch(SECRET_TOKEN_PATTERN);
    expect(newSecretToken()).not.toBe(a);
    expect(secretTokenHash(a)).toMatch(/^[0-9a-f]{64}$/);
    expect(secretTokenHash(a)).not.toContain(a);
    expect(RETURNING_LINK).toEqual({ validMs: 30 * 60_000, perAddressPerDay: 3 });
  });

  it("is redacted from request logs and from a sent e-mail kept in the outbox", () => {
    const token = newSecretToken();
    expect(urlForLog(`${RETURNING_PATH}/${token}`)).toBe(`${RETURNING_PATH}/[redacted]`);
    const sent = withoutLinkSecrets(`Open it:\nhttps://camp.example${RETURNING_PATH}/${token}\nThanks`);
    expect(sent).not.toContain(token);
    expect(sent).toContain(`https://camp.example${RETURNING_PATH}/${SENT_LINK_PLACEHOLDER}`);
  });
});
