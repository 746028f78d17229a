import { describe, expect, it } from "vitest";
import { validate } from "../../src/shared/forms.ts";
import { REGISTRATION_ERRORS, REGISTRATION_MESSAGES, type RegistrationEventFacts } from "../../src/shared/registrations/rules.ts";
import { chooseOffers, joinSchema, PASSES_BEFORE_BLOCKING, WAITLIST_TEXT, type LineEntry } from "../../src/shared/registrations/waitingList.ts";

const event: RegistrationEventFacts = {
  packages: [
    { code: "full", label: "Full Camp (3 Days)", priceCents: 29900, dayCount: 3 },
    { code: "1day", label: "1 Day", priceCents: 11900, dayCount: 1 },
  ],
  days: [],
};
const family = { kind: "individual", places: "2", registrationType: "full", firstName: " Lena ", lastName: "Park", email: "Lena.Park@Example.com", phone: "(205) 555-0111" };

describe("joining the waiting list: the registration's rules and messages", () => {
  it("takes an athlete or 2-4 siblings with a package, and a team of 5 up to the maximum at the team package", () => {
    const ok = validate(joinSchema(event, 60), family);
    expect(ok).toMatchObject({ ok: true, data: { kind: "individual", places: 2, packageCode: "full", firstName: "Lena", email: "lena.park@example.com", teamName: undefined } });
    const team = validate(joinSchema(event, 60), { ...family, kind: "team", places: "12", registrationType: "", teamName: "Steel City WC" });
    expect(team).toMatchObject({ ok: true, data: { kind: "team", places: 12, packageCode: "team", teamName: "Steel City WC" } });
  });

  it("refuses sizes outside the kind's range, an unknown package, and gives the registration form's messages", () => {
    for (const [kind, places] of [["individual", "5"], ["individual", "0"], ["team", "4"], ["team", "61"], ["team", "5.5"], ["individual", "two"]]) {
      const r = validate(joinSchema(event, 60), { ...family, kind, places });
      expect(r.ok ? null : r.errors.places, `${kind} ${places}`).toBe(WAITLIST_TEXT.places(60));
    }
    const r = validate(joinSchema(event, 60), { ...family, registrationType: "2day", firstName: "", email: "x@", phone: "555", kind: "crowd" });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.errors).toMatchObject({
      registrationType: REGISTRATION_ERRORS.packageUnknown,
      firstName: REGISTRATION_MESSAGES.required,
      email: REGISTRATION_MESSAGES.email,
      phone: REGISTRATION_MESSAGES.phone,
      kind: WAITLIST_TEXT.kind,
    });
  });
});

const line = (...sizes: [number, number?][]): LineEntry[] => sizes.map(([places, passedOver = 0], i) => ({ id: i + 1, places, passedOver }));
const ids = (entries: LineEntry[]) => entries.map((e) => e.id);

describe("the line's rule", () => {
  it("offers in order to every entry that fits; an entry that does not fit keeps its place and is counted as passed over", () => {
    const { offered, passed } = chooseOffers(line([2], [6], [1], [3]), 4);
    expect(ids(offered)).toEqual([1, 3]);
    expect(ids(passed)).toEqual([2]);
  });

  it("counts no pass when nobody behind got an offer", () => {
    const { offered, passed } = chooseOffers(line([6], [6]), 5);
    expect(offered).toEqual([]);
    expect(passed).toEqual([]);
  });

  it(`an entry passed over ${PASSES_BEFORE_BLOCKING} times blocks the line until its places are free together`, () => {
    expect(ids(chooseOffers(line([1], [6, PASSES_BEFORE_BLOCKING], [1]), 3).offered)).toEqual([1]);
    expect(ids(chooseOffers(line([6, PASSES_BEFORE_BLOCKING], [1]), 5).offered)).toEqual([]);
    expect(ids(chooseOffers(line([6, PASSES_BEFORE_BLOCKING], [1]), 7).offered)).toEqual([1, 2]);
    // Below the threshold it is still passed over.
    expect(ids(chooseOffers(line([6, PASSES_BEFORE_BLOCKING - 1], [1]), 5).offered)).toEqual([2]);
  });

  it("offers nothing when nothing is free", () => {
    expect(chooseOffers(line([1]), 0).offered).toEqual([]);
  });
});
