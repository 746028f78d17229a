import { describe, expect, it } from "vitest";
import {
  eventApiBody,
  eventJsonLd,
  headlinePriceCents,
  parseEventId,
  registrationClosingTime,
  registrationStatus,
  realSavingCents,
  savingsCents,
  eventHoursText,
  seasonYear,
  teamSavingsCents,
} from "../../src/shared/events/rules.ts";
import { startOfDayIn } from "../../src/shared/timeZones.ts";
import { EVENT_PLACEHOLDER, pictureOr, withPictures } from "../../src/events/pictures.ts";
import type { EventDetail } from "../../src/shared/events/types.ts";
import { NO_DEPOSIT } from "../../src/shared/registrations/deposits.ts";
import { formatDollars, formatPrice } from "../../src/shared/money.ts";

const champCamp: EventDetail = {
  depositPolicy: NO_DEPOSIT,
  id: 2,
  title: "National Champ Camp",
  shortDescription: "Flagship camp.",
  description: "One.\n\nTwo.",
  category: "Camp",
  dateText: "June 5-7, 2027",
  startDate: new Date("2027-06-05T00:00:00Z"),
  endDate: new Date("2027-06-07T00:00:00Z"),
  time: "9:00 AM - 4:00 PM",
  location: "Las Vegas, NV",
  image: "/images/events/champ-camp.svg",
  cardOverlay: null,
  capacity: 200,
  ageGroup: "Ages 10+ through high school",
  ageLimits: { min: 10, max: 19 },
  timeZone: "America/Los_Angeles",
  listed: true,
  registrationClosesAt: new Date("2027-06-05T00:00:00Z"),
  fullPriceCents: 29900,
  regularPriceCents: 29900,
  teamPriceCents: 19900,
  originalPriceCents: 34900,
  packages: [
    { code: "full", label: "Full Camp (3 Days)", priceCents: 29900, dayCount: 3 },
    { code: "2day", label: "2 Days", priceCents: 23800, dayCount: 2 },
    { code: "1day", label: "1 Day", priceCents: 11900, dayCount: 1 },
  ],
  days: [{ id: 4, label: "Thursday, June 5", date: "2027-06-05" }],
  collegeLogos: [],
  features: ["Film study"],
  coaches: [],
};

describe("event ids", () => {
  it("accepts plain positive whole numbers only", () => {
    expect(parseEventId("1")).toBe(1);
    expect(parseEventId("42")).toBe(42);
    for (const bad of ["abc", "0", "-1", "1.5", "01", "1e3", " 1", "", "9999999999", "2abc"]) {
      expect(parseEventId(bad), bad).toBeNull();
    }
    expect(parseEventId(undefined)).toBeNull();
    expect(parseEventId(["1"])).toBeNull();
  });
});

describe("prices", () => {
  it("takes the full package as the headline price, else the dearest package", () => {
    expect(headlinePriceCents(champCamp.packages)).toBe(29900);
    expect(headlinePriceCents([{ code: "singleDay", label: "Single Day", priceCents: 9900, dayCount: 1 }, { code: "2day", label: "2 Days", priceCents: 18000, dayCount: 2 }])).toBe(18000);
    expect(headlinePriceCents([])).toBe(0);
  });

  it("saves the difference to the struck-through price, and nothing without a real promotion", () => {
    expect(savingsCents(champCamp)).toBe(5000);
    expect(savingsCents({ originalPriceCents: null, fullPriceCents: 24900 })).toBeNull();
    expect(savingsCents({ originalPriceCents: 24900, fullPriceCents: 24900 })).toBeNull();
    expect(savingsCents({ originalPriceCents: 20000, fullPriceCents: 24900 })).toBeNull();
  });

  it("counts team savings per athlete against the regular price, only when they are a real saving ($2 and 5% at least)", () => {
    expect(teamSavingsCents(champCamp)).toBe(10000);
    // Event 4 (regular 200, team 199): $1.00 is no saving to announce.
    expect(teamSavingsCents({ regularPriceCents: 20000, teamPriceCents: 19900 })).toBe(0);
    expect(teamSavingsCents({ regularPriceCents: 20000, teamPriceCents: 19000 })).toBe(1000);
    expect(teamSavingsCents({ regularPriceCents: 20000, teamPriceCents: 19001 })).toBe(0);
    expect(realSavingCents(3000, 2850)).toBe(0);
    expect(realSavingCents(3000, 2800)).toBe(200);
    expect(teamSavingsCents({ regularPriceCents: 15000, teamPriceCents: 19900 })).toBe(0);
  });

  it("formats cents at the edge", () => {
    expect(formatPrice(29900)).toBe("$299.00");
    expect(formatPrice(11950)).toBe("$119.50");
    expect(formatPrice(5)).toBe("$0.05");
    expect(formatPrice(123456789)).toBe("$1,234,567.89");
    expect(formatPrice(-5000)).toBe("-$50.00");
    expect(formatDollars(5000)).toBe("$50");
    expect(formatDollars(5050)).toBe("$50.50");
  });
});

describe("registration status", () => {
  const now = new Date("2027-05-01T12:00:00Z");
  it("is open with places left before the closing time", () => {
    expect(registrationStatus(champCamp, 200, now)).toBe("open");
    expect(registrationStatus(champCamp, 1, now)).toBe("open");
  });
  it("is sold out with no place left", () => {
    expect(registrationStatus(champCamp, 0, now)).toBe("soldOut");
  });
  it("closes at the closing time, before being sold out", () => {
    expect(registrationStatus({ registrationClosesAt: new Date("2027-05-01T12:00:01Z") }, 5, now)).toBe("open");
    expect(registrationStatus({ registrationClosesAt: new Date("2027-05-01T12:00:00Z") }, 5, now)).toBe("closed");
    expect(registrationStatus({ registrationClosesAt: new Date("2027-04-01T00:00:00Z") }, 0, now)).toBe("closed");
  });
});

describe("closing time and season", () => {
  const start = new Date("2027-06-05T00:00:00Z");
  it("closes at the start unless an operator closes it earlier", () => {
    expect(registrationClosingTime(null, start)).toEqual(start);
    expect(registrationClosingTime(new Date("2027-05-01T00:00:00Z"), start)).toEqual(new Date("2027-05-01T00:00:00Z"));
    // A closing time after the start never lets a started event sell.
    expect(registrationClosingTime(new Date("2027-07-01T00:00:00Z"), start)).toEqual(start);
  });
  it("advertises the year of the next event to start, else the last one", () => {
    const at = (iso: string) => ({ startDate: new Date(iso) });
    const events = [at("2027-06-19T00:00:00Z"), at("2027-06-05T00:00:00Z"), at("2028-06-01T00:00:00Z")];
    expect(seasonYear(events, new Date("2026-11-22T00:00:00Z"))).toBe(2027);
    expect(seasonYear(events, new Date("2027-07-01T00:00:00Z"))).toBe(2028);
    expect(seasonYear(events, new Date("2029-01-01T00:00:00Z"))).toBe(2028);
    expect(seasonYear([], new Date())).toBeNull();
  });
});

describe("JSON-LD and API body", () => {
  it("describes a schema.org Event with an offer per package", () => {
    const ld = eventJsonLd(champCamp, { origin: "https://example.test", brand: "Brand Wrestling", image: champCamp.image, placesLeft: 150, status: "open" }) as Record<string, any>;
    expect(ld["@type"]).toBe("Event");
    expect(ld.name).toBe("National Champ Camp");
    expect(ld.startDate).toBe("2027-06-05");
    expect(ld.endDate).toBe("2027-06-07");
    expect(ld.url).toBe("https://example.test/events/2");
    expect(ld.image).toEqual(["https://example.test/images/events/champ-camp.svg"]);
    expect(ld.location).toMatchObject({ "@type": "Place", name: "Las Vegas, NV" });
    expect(ld.remainingAttendeeCapacity).toBe(150);
    expect(ld.offers.map((o: any) => [o.name, o.price, o.priceCurrency])).toEqual([
      ["Full Camp (3 Days)", "299.00", "USD"],
      ["2 Days", "238.00", "USD"],
      ["1 Day", "119.00", "USD"],
    ]);
    expect(ld.offers[0].availability).toBe("https://schema.org/InStock");
    expect(ld.offers[0].url).toBe("https://example.test/register/2");
    const soldOut = eventJsonLd(champCamp, { origin: "https://example.test", brand: "B", image: "/x.svg", placesLeft: 0, status: "soldOut" }) as Record<string, any>;
    expect(soldOut.offers[0].availability).toBe("https://schema.org/SoldOut");
  });

  it("answers the spec's fields, amounts in dollars and exact cents", () => {
    const body = eventApiBody(champCamp, 12, new Date("2027-05-01T00:00:00Z"));
    expect(body).toMatchObject({
      id: 2,
      title: "National Champ Camp",
      shortDescription: "Flagship camp.",
      description: "One.\n\nTwo.",
      image: "/images/events/champ-camp.svg",
      category: "Camp",
      basePrice: 299,
      basePriceCents: 29900,
      originalPrice: 349,
      teamPrice: 199,
      features: ["Film study"],
      location: "Las Vegas, NV",
      date: "June 5-7, 2027",
      startDate: "2027-06-05",
      placesLeft: 12,
      registrationStatus: "open",
    });
    expect(body.packages[1]).toEqual({ code: "2day", label: "2 Days", priceCents: 23800, dayCount: 2, price: 238 });
  });
});

describe("pictures", () => {
  it("keeps pictures that exist under public/ and replaces the rest with the placeholder", () => {
    expect(pictureOr("/images/events/champ-camp.svg", EVENT_PLACEHOLDER)).toBe("/images/events/champ-camp.svg");
    for (const bad of ["/images/events/missing.svg", "https://elsewhere.test/a.png", "//cdn.test/a.png", "/../package.json", "/images/events", "images/events/champ-camp.svg", "/%E0%A4%A.svg"]) {
      expect(pictureOr(bad, EVENT_PLACEHOLDER), bad).toBe(EVENT_PLACEHOLDER);
    }
  });

  it("checks the event picture, its coaches and its logos", () => {
    const checked = withPictures({
      ...champCamp,
      image: "/images/events/nope.svg",
      coaches: [{ id: 1, name: "A", title: "T", bio: "B", image: "/nope.svg" }],
      collegeLogos: [{ id: 1, name: "C", image: "/images/events/colleges/cimarron-tech.svg" }],
    });
    expect(checked.image).toBe(EVENT_PLACEHOLDER);
    expect(checked.coaches[0]!.image).toBe("/images/events/coaches/coach-placeholder.svg");
    expect(checked.collegeLogos[0]!.image).toBe("/images/events/colleges/cimarron-tech.svg");
  });
});

describe("times in the event's own zone", () => {
  it("finds the start of a day in a zone, daylight saving time included", () => {
    expect(startOfDayIn("2027-06-05", "America/Los_Angeles").toISOString()).toBe("2027-06-05T07:00:00.000Z");
    expect(startOfDayIn("2027-06-19", "America/Chicago").toISOString()).toBe("2027-06-19T05:00:00.000Z");
    expect(startOfDayIn("2026-12-01", "America/New_York").toISOString()).toBe("2026-12-01T05:00:00.000Z");
    // The night the clocks go forward in Chicago (2027-03-14): midnight is still CST.
    expect(startOfDayIn("2027-03-14", "America/Chicago").toISOString()).toBe("2027-03-14T06:00:00.000Z");
  });
  it("writes the daily hours with the zone named", () => {
    expect(eventHoursText(champCamp)).toBe("9:00 AM - 4:00 PM PDT");
  });
});
