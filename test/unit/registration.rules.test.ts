import { describe, expect, it } from "vitest";
import {
  REGISTRATION_MESSAGES,
  attendedDayLabels,
  dayChoiceHint,
  dayChoiceMessage,
  findPackage,
  formValuesOf,
  packageOptions,
  registrationSchema,
  type RegistrationEventFacts,
} from "../../src/shared/registrations/rules.ts";
import { validate } from "../../src/shared/forms.ts";

const champCamp: RegistrationEventFacts = {
  packages: [
    { code: "full", label: "Full Camp (3 Days)", priceCents: 29900, dayCount: 3 },
    { code: "2day", label: "2 Days", priceCents: 23800, dayCount: 2 },
    { code: "1day", label: "1 Day", priceCents: 11900, dayCount: 1 },
  ],
  days: [
    { id: 11, label: "Saturday, June 5", date: "2027-06-05" },
    { id: 12, label: "Sunday, June 6", date: "2027-06-06" },
    { id: 13, label: "Monday, June 7", date: "2027-06-07" },
  ],
};
const trainTour: RegistrationEventFacts = {
  packages: [
    { code: "full", label: "Full Tour (3 Days)", priceCents: 20000, dayCount: 3 },
    { code: "singleDay", label: "One stop", priceCents: 9900, dayCount: 1 },
  ],
  days: champCamp.days,
};

const valid = {
  formSessionId: "abcdefghijklmnop1234",
  registrationType: "full",
  firstName: " Jordan ",
  lastName: "Reyes",
  email: "jordan@example.com",
  phone: "(555) 123-4567",
  grade: "10th",
  gender: "Male",
  schoolName: "Central High",
  emergencyContactName: "Maria Reyes",
  emergencyContactPhone: "555.987.6543", adult: "on",
  agrees: "on",
};

describe("package pricing", () => {
  it("prices a place from the event's package, in cents", () => {
    expect(findPackage(champCamp, "full")?.priceCents).toBe(29900);
    expect(findPackage(champCamp, "2day")?.priceCents).toBe(23800);
    expect(findPackage(champCamp, "1day")?.priceCents).toBe(11900);
    expect(findPackage(champCamp, "singleDay")?.priceCents).toBeUndefined();
    expect(findPackage(trainTour, "singleDay")?.priceCents).toBe(9900);
  });
  it("labels the single-day option 'Single Day'", () => {
    expect(packageOptions(trainTour).map((p) => p.label)).toEqual(["Full Tour (3 Days)", "Single Day"]);
  });
});

describe("day rules", () => {
  const schema = registrationSchema(champCamp);
  it("gives a full package every day, whatever is ticked", () => {
    const r = validate(schema, { ...valid, day2: "on" });
    expect(r.ok && r.data.dayIds).toEqual([11, 12, 13]);
  });
  it("needs exactly the package's number of days", () => {
    expect(validate(schema, { ...valid, registrationType: "2day", day1: "on" })).toMatchObject({
      ok: false,
      errors: { days: "You must select exactly 2 days to match your chosen package" },
    });
    expect(validate(schema, { ...valid, registrationType: "1day", day1: "on", day3: true })).toMatchObject({
      ok: false,
      errors: { days: "You must select exactly 1 day to match your chosen package" },
    });
    const two = validate(schema, { ...valid, registrationType: "2day", day1: "on", day3: true });
    expect(two.ok && two.data.dayIds).toEqual([11, 13]);
    expect(dayChoiceMessage(2)).toBe("You must select exactly 2 days to match your chosen package");
  });
  it("defaults to the full package and refuses one the event does not offer", () => {
    const r = validate(schema, { ...valid, registrationType: undefined });
    expect(r.ok && r.data.registrationType).toBe("full");
    expect(validate(schema, { ...valid, registrationType: "singleDay", day1: "on" })).toMatchObject({ ok: false, errors: { registrationType: "Please choose one of the registration options" } });
  });
});

describe("the days a payment step lists", () => {
  it("names every day of a full package and the ticked ones of the others, in the event's order", () => {
    expect(attendedDayLabels(champCamp, { registrationType: "full" })).toEqual(["Saturday, June 5", "Sunday, June 6", "Monday, June 7"]);
    expect(attendedDayLabels(champCamp, { registrationType: "2day", day3: "on", day1: "on" })).toEqual(["Saturday, June 5", "Monday, June 7"]);
    expect(attendedDayLabels(champCamp, { registrationType: "nope" })).toEqual([]);
  });
});

describe("the day boxes' hint", () => {
  it("says what to tick for every package while the package is not known (the page as sent, without JavaScript)", () => {
    expect(dayChoiceHint(champCamp, undefined)).toBe("Full Camp (3 Days) includes every day (no need to tick any). For 2 Days, tick 2 days; for 1 Day, tick 1 day.");
    expect(dayChoiceHint(trainTour, undefined)).toBe("Full Tour (3 Days) includes every day (no need to tick any). For Single Day, tick 1 day.");
  });
  it("names the chosen package's count once it is known", () => {
    expect(dayChoiceHint(champCamp, champCamp.packages[0])).toBe("Your package includes every day.");
    expect(dayChoiceHint(champCamp, champCamp.packages[1])).toBe("Tick 2 days for your package.");
    expect(dayChoiceHint(champCamp, champCamp.packages[2])).toBe("Tick 1 day for your package.");
  });
});

describe("the schema's messages", () => {
  const schema = registrationSchema(champCamp);
  it("says 'This field is required' for every required field left blank", () => {
    const r = validate(schema, { formSessionId: valid.formSessionId });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    for (const f of ["firstName", "lastName", "email", "phone", "grade", "gender", "schoolName", "emergencyContactName", "emergencyContactPhone"]) {
      expect(r.errors[f], f).toBe(REGISTRATION_MESSAGES.required);
    }
    expect(r.errors.agrees).toBe("You must agree to the terms and conditions");
    expect(r.errors.clubName).toBeUndefined();
    expect(r.errors.specialRequirements).toBeUndefined();
  });
  it("checks the e-mail, both phones (10 digits) and the gender", () => {
    const r = validate(schema, { ...valid, email: "nope@", phone: "555-1234", emergencyContactPhone: "1 (555) 123-45678", gender: "Other" });
    expect(r).toMatchObject({
      ok: false,
      errors: {
        email: "Please enter a valid email address",
        phone: "Please enter a valid 10-digit phone number",
        emergencyContactPhone: "Please enter a valid 10-digit phone number",
        gender: "This field is required",
      },
    });
  });
  it("trims values and keeps them for the form", () => {
    const r = validate(schema, { ...valid, registrationType: "1day", day2: "on", clubName: "  ", tShirtSize: "XL" });
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.data).toMatchObject({ firstName: "Jordan", clubName: undefined, tShirtSize: "XL", dayIds: [12] });
    expect(formValuesOf(r.data, champCamp)).toMatchObject({ firstName: "Jordan", registrationType: "1day", day2: "on", agrees: "on" });
    expect(formValuesOf(r.data, champCamp).day1).toBeUndefined();
  });
  it("refuses a missing or malformed form session id", () => {
    expect(validate(schema, { ...valid, formSessionId: "x" })).toMatchObject({ ok: false, errors: { formSessionId: expect.any(String) } });
  });
});

describe("the parent or guardian of an athlete under 18", () => {
  const schema = registrationSchema(champCamp);
  const { adult: _adult, ...minor } = valid;
  it("is asked unless the athlete is 18 or older, with the spec's messages", () => {
    const r = validate(schema, { ...minor, guardianEmail: "nope@", guardianPhone: "555" });
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.errors).toMatchObject({ guardianName: "This field is required", guardianEmail: "Please enter a valid email address", guardianPhone: "Please enter a valid 10-digit phone number" });
    }
    const ok = validate(schema, { ...minor, guardianName: " Maria Reyes ", guardianEmail: "maria@example.com", guardianPhone: "(555) 222-3333" });
    expect(ok.ok && ok.data.guardian).toEqual({ name: "Maria Reyes", email: "maria@example.com", phone: "(555) 222-3333" });
    const adult = validate(schema, valid);
    expect(adult.ok && adult.data.guardian).toBeNull();
  });
  it("comes back on the form as it was entered, or as the ticked box", () => {
    const ok = validate(schema, { ...minor, guardianName: "Maria Reyes", guardianEmail: "maria@example.com", guardianPhone: "(555) 222-3333" });
    if (!ok.ok) throw new Error("valid form refused");
    expect(formValuesOf(ok.data, champCamp)).toMatchObject({ guardianName: "Maria Reyes", guardianEmail: "maria@example.com", guardianPhone: "(555) 222-3333" });
    expect(formValuesOf(ok.data, champCamp).adult).toBeUndefined();
    const adult = validate(schema, valid);
    if (!adult.ok) throw new Error("valid form refused");
    expect(formValuesOf(adult.data, champCamp).adult).toBe("on");
  });
});
