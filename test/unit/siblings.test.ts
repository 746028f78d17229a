import { describe, expect, it } from "vitest";
import { parseEventsArgs } from "../../src/cli/eventsArgs.ts";
import { applySiblingIntent, familyPrice, siblingCount, siblingDiscountOn } from "../../src/shared/registrations/siblings.ts";
import { registrationSchema } from "../../src/shared/registrations/rules.ts";
import { validate } from "../../src/shared/forms.ts";

/** The sibling discount (issue 43): exact cents, from the second athlete, the dearest athlete paying full price. */
describe("sibling discount", () => {
  it("takes a fixed amount off each additional athlete, never more than its price", () => {
    const p = familyPrice([29900, 29900, 11900], { kind: "fixed", value: 2500 });
    expect(p.lines).toEqual([
      { listCents: 29900, discountCents: 0, dueCents: 29900 },
      { listCents: 29900, discountCents: 2500, dueCents: 27400 },
      { listCents: 11900, discountCents: 2500, dueCents: 9400 },
    ]);
    expect(p).toMatchObject({ listCents: 71700, discountCents: 5000, totalCents: 66700 });
    expect(siblingDiscountOn(1000, { kind: "fixed", value: 2500 })).toBe(1000);
  });

  it("takes a percentage in exact cents, half a cent rounding up", () => {
    expect(siblingDiscountOn(11900, { kind: "percent", value: 10 })).toBe(1190);
    expect(siblingDiscountOn(14905, { kind: "percent", value: 10 })).toBe(1491); // 1490.5
    expect(siblingDiscountOn(14904, { kind: "percent", value: 10 })).toBe(1490); // 1490.4
    expect(siblingDiscountOn(9999, { kind: "percent", value: 33 })).toBe(3300); // 3299.67
  });

  it("lets the dearest athlete pay full price wherever it stands in the form (the first of equals)", () => {
    const p = familyPrice([11900, 29900], { kind: "percent", value: 10 });
    expect(p.lines.map((l) => l.discountCents)).toEqual([1190, 0]);
    expect(p.totalCents).toBe(11900 - 1190 + 29900);
    expect(familyPrice([24900, 24900], { kind: "percent", value: 10 }).lines.map((l) => l.discountCents)).toEqual([0, 2490]);
  });

  it("gives one athlete, and an event without a discount, the package price", () => {
    expect(familyPrice([29900], { kind: "fixed", value: 2500 })).toMatchObject({ discountCents: 0, totalCents: 29900 });
    expect(familyPrice([29900, 29900], { kind: "none", value: 0 })).toMatchObject({ discountCents: 0, totalCents: 59800 });
  });
});

describe("the family form", () => {
  const event = { packages: [{ code: "full" as const, label: "Full Camp", priceCents: 29900, dayCount: 3 }, { code: "1day" as const, label: "1 Day", priceCents: 11900, dayCount: 1 }], days: [{ id: 11, label: "June 5", date: "2027-06-05" }, { id: 12, label: "June 6", date: "2027-06-06" }, { id: 13, label: "June 7", date: "2027-06-07" }] };
  const first = { formSessionId: "form-session-0001", registrationType: "full", firstName: "Ann", lastName: "Lee", email: "ann@example.com", phone: "205-555-0100", grade: "8th", gender: "Female", schoolName: "Oak", emergencyContactName: "Kim Lee", emergencyContactPhone: "205-555-0101", adult: "on", agrees: "on" };

  it("reads additional athletes with their own package and days, and none from the spec's one-athlete form", () => {
    const one = validate(registrationSchema(event), first);
    expect(one.ok && "siblings" in one.data).toBe(false);
    const two = validate(registrationSchema(event), { ...first, siblings: "1", sibling2_firstName: "Bo", sibling2_lastName: "Lee", sibling2_grade: "6th", sibling2_gender: "Male", sibling2_schoolName: "Oak", sibling2_registrationType: "1day", sibling2_day2: "on" });
    expect(two.ok && two.data.siblings).toEqual([expect.objectContaining({ firstName: "Bo", registrationType: "1day", dayIds: [12] })]);
  });

  it("reports an additional athlete's errors under its own names, and refuses more than four athletes", () => {
    const r = validate(registrationSchema(event), { ...first, siblings: "1", sibling2_registrationType: "1day" });
    expect(r.ok).toBe(false);
    expect(!r.ok && r.errors).toMatchObject({ sibling2_firstName: "This field is required", sibling2_gender: "This field is required", sibling2_days: "You must select exactly 1 day to match your chosen package" });
    const many = validate(registrationSchema(event), { ...first, siblings: "4" });
    expect(!many.ok && many.errors.siblings).toBe("Up to 4 athletes of one family can register together.");
    expect(siblingCount({ siblings: "x" })).toBeNull();
  });

  it("adds an athlete and removes one, moving the later ones up (the form without JavaScript)", () => {
    const added = applySiblingIntent({ siblings: "1", sibling2_firstName: "Bo" }, "add-sibling", 3);
    expect(added.siblings).toBe("2");
    const removed = applySiblingIntent({ siblings: "2", sibling2_firstName: "Bo", sibling3_firstName: "Cy", sibling3_day1: "on" }, "remove-sibling-2", 3);
    expect(removed).toEqual({ siblings: "1", sibling2_firstName: "Cy", sibling2_day1: "on" });
    expect(applySiblingIntent({ siblings: "3" }, "add-sibling", 3).siblings).toBe("3");
  });
});

describe("npm run events -- update ID --sibling-discount", () => {
  it("takes fixed dollars, a whole percent or none, and refuses anything else", () => {
    expect(parseEventsArgs(["update", "2", "--sibling-discount", "fixed=25.00"])).toMatchObject({ changes: { siblingDiscount: { kind: "fixed", value: 2500 } } });
    expect(parseEventsArgs(["update", "2", "--sibling-discount", "percent=10"])).toMatchObject({ changes: { siblingDiscount: { kind: "percent", value: 10 } } });
    expect(parseEventsArgs(["update", "2", "--sibling-discount", "none"])).toMatchObject({ changes: { siblingDiscount: { kind: "none", value: 0 } } });
    expect(parseEventsArgs(["update", "2", "--sibling-discount", "percent=150"])).toMatchObject({ error: expect.stringContaining("The sibling discount is none") });
  });
});
