import { describe, expect, it } from "vitest";
import { validate } from "../../src/shared/forms.ts";
import { coachRequestSchema, COACH_MESSAGES, normaliseWebsite } from "../../src/shared/collegeCoachRequests/schemas.ts";
import { TEXT_MESSAGES } from "../../src/shared/text.ts";
import { checkLogo, coachRegistrationState, detectLogoType, LOGO_MAX_BYTES, LOGO_MESSAGES } from "../../src/shared/collegeCoachRequests/rules.ts";

const DAYS = ["2027-06-12", "2027-06-13"];
const schema = coachRequestSchema(DAYS);
const valid = {
  fullName: "Dana Reyes",
  title: "Head Coach",
  collegeName: "Ironwood University",
  email: "dana@ironwood.example.edu",
  cellPhone: "817.555.0134",
  divisionLevel: "NAIA",
  conference: "Sooner Athletic",
  daysAttending: ["2027-06-13"],
};
const errorsOf = (input: Record<string, unknown>) => {
  const r = validate(schema, input);
  return r.ok ? {} : r.errors;
};

describe("coach request schema", () => {
  it("gives the spec's message for each missing required field", () => {
    expect(errorsOf({})).toEqual({
      fullName: "Full name is required",
      title: "Title/Position is required",
      collegeName: "College/University name is required",
      email: "Email is required",
      cellPhone: "Cell phone is required",
      divisionLevel: "Division level is required",
      conference: "Conference is required",
      daysAttending: "At least one day must be selected",
    });
  });

  it("tells a blank e-mail from a malformed one", () => {
    expect(errorsOf({ ...valid, email: "   " }).email).toBe("Email is required");
    expect(errorsOf({ ...valid, email: "dana at ironwood" }).email).toBe("Valid email is required");
    expect(errorsOf({ ...valid, email: "dana@ironwood" }).email).toBe("Valid email is required");
  });

  it.each([
    [undefined, null], ["", null], [null, null], [0, 0], ["0", 0], [50, 50], ["17", 17],
  ])("reads %j athletes as %j", (input, expected) => {
    const r = validate(schema, { ...valid, numberOfAthletes: input });
    expect(r.ok && r.data.numberOfAthletes).toBe(expected);
  });

  it.each([51, -1, 2.5, "abc", "1e1x", " 17 ", "0x10", "1e1", true, [3]])("refuses %j athletes", (input) => {
    expect(errorsOf({ ...valid, numberOfAthletes: input }).numberOfAthletes).toBe(COACH_MESSAGES.numberOfAthletes);
  });

  it("keeps only the event's days, in the event's order, once each", () => {
    const r = validate(schema, { ...valid, daysAttending: ["2027-06-13", "2027-06-12", "2027-06-13"] });
    expect(r.ok && r.data.daysAttending).toEqual(DAYS);
    expect(errorsOf({ ...valid, daysAttending: "2027-06-12" })).toEqual({});
    expect(errorsOf({ ...valid, daysAttending: ["2025-06-05"] }).daysAttending).toBe(COACH_MESSAGES.unknownDay);
    expect(errorsOf({ ...valid, daysAttending: [] }).daysAttending).toBe("At least one day must be selected");
    expect(errorsOf({ ...valid, daysAttending: [{}] }).daysAttending).toBe(COACH_MESSAGES.unknownDay);
  });

  it("accepts the four areas of interest only", () => {
    const r = validate(schema, { ...valid, areasOfInterest: ["Open to All Weight Classes", "Lightweight (125-141 lbs)"] });
    expect(r.ok && r.data.areasOfInterest).toEqual(["Lightweight (125-141 lbs)", "Open to All Weight Classes"]);
    expect(errorsOf({ ...valid, areasOfInterest: ["Featherweight"] }).areasOfInterest).toBe(COACH_MESSAGES.areasOfInterest);
  });

  it("checks phone numbers have 10 digits and keeps single-line fields to one line", () => {
    expect(errorsOf({ ...valid, cellPhone: "555-0134" }).cellPhone).toBe(COACH_MESSAGES.phoneFormat);
    expect(errorsOf({ ...valid, schoolPhone: "12" }).schoolPhone).toBe(COACH_MESSAGES.phoneFormat);
    expect(errorsOf({ ...valid, schoolPhone: "" })).toEqual({});
    expect(errorsOf({ ...valid, fullName: "Dana\r\nBcc: x@example.com" }).fullName).toBe(TEXT_MESSAGES.control);
    expect(errorsOf({ ...valid, conference: "Big\u202e12" }).conference).toBe(TEXT_MESSAGES.format);
    expect(errorsOf({ ...valid, numberOfAthletes: "0x10" }).numberOfAthletes).toBe(COACH_MESSAGES.numberOfAthletes);
    expect(errorsOf({ ...valid, notes: "Line one\nLine two" })).toEqual({});
  });

  it("reads a school website with or without its scheme, and refuses other schemes", () => {
    expect(normaliseWebsite("athletics.ironwood.edu")).toBe("https://athletics.ironwood.edu/");
    expect(normaliseWebsite("http://ironwood.edu/wrestling")).toBe("http://ironwood.edu/wrestling");
    for (const bad of ["javascript:alert(1)", "ftp://ironwood.edu", "localhost", "https://user:pw@ironwood.edu", "not a site"]) {
      expect(normaliseWebsite(bad), bad).toBeNull();
    }
  });
});

describe("school logo", () => {
  const bytes = (...b: number[]) => new Uint8Array(b);
  it("knows PNG, JPEG and GIF by their first bytes, whatever the name", () => {
    expect(detectLogoType(bytes(0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a))).toBe("png");
    expect(detectLogoType(bytes(0xff, 0xd8, 0xff, 0xe1))).toBe("jpg");
    expect(detectLogoType(new TextEncoder().encode("GIF87a.."))).toBe("gif");
    expect(detectLogoType(new TextEncoder().encode("GIF89a.."))).toBe("gif");
    expect(detectLogoType(new TextEncoder().encode("GIF88a.."))).toBeNull();
    expect(detectLogoType(new TextEncoder().encode("%PDF-1.7"))).toBeNull();
    expect(detectLogoType(bytes(0x89, 0x50, 0x4e))).toBeNull();
    expect(detectLogoType(bytes())).toBeNull();
  });

  it("allows 5 MB exactly and refuses one byte more or an empty file", () => {
    const png = bytes(0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a);
    expect(checkLogo(LOGO_MAX_BYTES, png)).toEqual({ ok: true, type: "png" });
    expect(checkLogo(LOGO_MAX_BYTES + 1, png)).toEqual({ ok: false, message: LOGO_MESSAGES.size });
    expect(checkLogo(0, png)).toEqual({ ok: false, message: LOGO_MESSAGES.empty });
    expect(checkLogo(100, new TextEncoder().encode("%PDF-1.7"))).toEqual({ ok: false, message: LOGO_MESSAGES.type });
  });
});

describe("coach registration state", () => {
  const now = new Date("2027-05-01T12:00:00Z");
  it("is offered only where the event says so, and closes with the event's registration", () => {
    const later = new Date("2027-06-12T00:00:00Z");
    expect(coachRegistrationState({ coachRegistration: false, registrationClosesAt: later }, now)).toBe("notOffered");
    expect(coachRegistrationState({ registrationClosesAt: later }, now)).toBe("notOffered");
    expect(coachRegistrationState({ coachRegistration: true, registrationClosesAt: new Date("2027-06-12T00:00:00Z") }, now)).toBe("open");
    expect(coachRegistrationState({ coachRegistration: true, registrationClosesAt: new Date("2027-05-01T12:00:00Z") }, now)).toBe("closed");
  });
});
