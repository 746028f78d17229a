import { describe, expect, it } from "vitest";
import { validate } from "../../src/shared/forms.ts";
import { REGISTRATION_ERRORS, REGISTRATION_MESSAGES, type RegistrationEventFacts } from "../../src/shared/registrations/rules.ts";
import { chooseOffers, holdsLine, joinSchema, offerFamilyPrice, offerPriceText, PASSES_BEFORE_BLOCKING, WAITLIST_TEXT, type LineEntry } from "../../src/shared/registrations/waitingList.ts";

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

const NOW = Date.UTC(2027, 4, 1, 12);
const OPEN = NOW + 3_600_000;
/** [places, passed over, holds the line until (ms)]: the window defaults to one still open when passed over enough. */
const line = (...sizes: [number, number?, (number | null)?][]): LineEntry[] =>
  sizes.map(([places, passedOver = 0, holdsLineUntil], i) => ({ id: i + 1, places, passedOver, holdsLineUntil: holdsLineUntil === undefined ? (passedOver >= PASSES_BEFORE_BLOCKING ? OPEN : null) : holdsLineUntil }));
const ids = (entries: LineEntry[]) => entries.map((e) => e.id);
const choose = (l: LineEntry[], free: number) => chooseOffers(l, free, NOW);

describe("the line's rule", () => {
  it("offers in order to every entry that fits; an entry that does not fit keeps its place and is counted as passed over", () => {
    const { offered, passed, heldBack } = choose(line([2], [6], [1], [3]), 4);
    expect(ids(offered)).toEqual([1, 3]);
    expect(ids(passed)).toEqual([2]);
    expect(heldBack).toBe(3);
  });

  it("counts no pass when nobody behind got an offer, and an entry that does not fit keeps nothing back from sale", () => {
    const { offered, passed, heldBack } = choose(line([6], [6]), 5);
    expect(offered).toEqual([]);
    expect(passed).toEqual([]);
    expect(heldBack).toBe(0);
    // The probe's attack: a team of 60 in line on an event with 55 free places keeps none of them.
    expect(choose(line([60]), 55).heldBack).toBe(0);
  });

  it(`an entry passed over ${PASSES_BEFORE_BLOCKING} times holds the line (and the free places) until its places are free together, within its window`, () => {
    expect(ids(choose(line([1], [6, PASSES_BEFORE_BLOCKING], [1]), 3).offered)).toEqual([1]);
    expect(choose(line([1], [6, PASSES_BEFORE_BLOCKING], [1]), 3).heldBack).toBe(3);
    expect(ids(choose(line([6, PASSES_BEFORE_BLOCKING], [1]), 5).offered)).toEqual([]);
    expect(choose(line([6, PASSES_BEFORE_BLOCKING], [1]), 5).heldBack).toBe(5);
    expect(ids(choose(line([6, PASSES_BEFORE_BLOCKING], [1]), 7).offered)).toEqual([1, 2]);
    // Below the threshold it is still passed over.
    expect(ids(choose(line([6, PASSES_BEFORE_BLOCKING - 1], [1]), 5).offered)).toEqual([2]);
  });

  it("an entry whose window to hold the line is over (or never opened) is passed over and keeps nothing back", () => {
    const over = line([6, PASSES_BEFORE_BLOCKING, NOW], [1]);
    expect(ids(choose(over, 5).offered)).toEqual([2]);
    expect(choose(over, 5).heldBack).toBe(1);
    expect(choose(line([6, PASSES_BEFORE_BLOCKING + 3, NOW - 1]), 5).heldBack).toBe(0);
    expect(choose(line([6, PASSES_BEFORE_BLOCKING, null]), 5).heldBack).toBe(0);
    expect(holdsLine({ id: 1, places: 6, passedOver: PASSES_BEFORE_BLOCKING, holdsLineUntil: NOW + 1 }, NOW)).toBe(true);
  });

  it("offers nothing when nothing is free", () => {
    expect(choose(line([1]), 0)).toEqual({ offered: [], passed: [], heldBack: 0 });
    expect(choose(line([1]), -3).heldBack).toBe(0);
  });
});

describe("offerPriceText: what an offer costs, on its page and in its e-mail", () => {
  const offerEvent = {
    packages: [
      { code: "full" as const, label: "Full Event", priceCents: 29900, dayCount: 3 },
      { code: "singleDay" as const, label: "Single Day Pass", priceCents: 11900, dayCount: 1 },
    ],
    days: [],
    teamPriceCents: 19900,
  };
  it("names the package's price per athlete, and the total for several places", () => {
    expect(offerPriceText(offerEvent, { kind: "individual", packageCode: "full", places: 1 })).toBe("$299.00 per athlete (Full Event)");
    expect(offerPriceText(offerEvent, { kind: "individual", packageCode: "full", places: 2 })).toBe("$299.00 per athlete (Full Event): $598.00 for 2 places");
    expect(offerPriceText(offerEvent, { kind: "individual", packageCode: "singleDay", places: 1 })).toBe("$119.00 per athlete (Single Day)");
  });
  it("a team pays the team price per athlete", () => {
    expect(offerPriceText(offerEvent, { kind: "team", packageCode: "team", places: 6 })).toBe("$199.00 per athlete (team price): $1,194.00 for 6 athletes");
  });
  it("siblings pay the family price: the event's sibling discount off each additional athlete (offerFamilyPrice)", () => {
    const fixed = { ...offerEvent, siblingDiscount: { kind: "fixed" as const, value: 2500 } };
    expect(offerPriceText(fixed, { kind: "individual", packageCode: "full", places: 3 })).toBe("$299.00 per athlete (Full Event), $25.00 off each additional athlete: $847.00 for 3 places");
    expect(offerFamilyPrice(fixed, 29900, 3)).toBe(84700);
    // One athlete pays the full price; 10% of $299.00 is $29.90 off each other athlete.
    const percent = { ...offerEvent, siblingDiscount: { kind: "percent" as const, value: 10 } };
    expect(offerPriceText(percent, { kind: "individual", packageCode: "full", places: 1 })).toBe("$299.00 per athlete (Full Event)");
    expect(offerFamilyPrice(percent, 29900, 2)).toBe(29900 + 26910);
    // A team's price has no sibling discount.
    expect(offerPriceText(fixed, { kind: "team", packageCode: "team", places: 6 })).toBe("$199.00 per athlete (team price): $1,194.00 for 6 athletes");
  });
  it("says nothing for a package the event no longer offers", () => {
    expect(offerPriceText(offerEvent, { kind: "individual", packageCode: "2day", places: 1 })).toBe("");
  });
});
