import { describe, expect, it } from "vitest";
import { homeOffers } from "../../src/shared/home/eventOffers.ts";
import type { EventSummary } from "../../src/shared/events/types.ts";
import { NO_DEPOSIT } from "../../src/shared/registrations/deposits.ts";

function event(id: number, over: Partial<EventSummary>): EventSummary {
  return {
    id, title: `Event ${id}`, shortDescription: "", category: "Camp", dateText: `June ${id}, 2025`, startDate: new Date(), endDate: new Date(),
    time: "", location: `City ${id}`, image: "", cardOverlay: null, capacity: 200, ageGroup: "", ageLimits: { min: 10, max: 19 }, timeZone: "America/Chicago", listed: true, registrationClosesAt: new Date(),
    fullPriceCents: 24900, regularPriceCents: 24900, teamPriceCents: 19900, originalPriceCents: null, packages: [], days: [], collegeLogos: [], depositPolicy: NO_DEPOSIT,
    ...over,
  };
}

const events = [
  event(1, {}),
  event(2, {
    fullPriceCents: 29900, regularPriceCents: 29900, originalPriceCents: 34900,
    packages: [
      { code: "full", label: "Full Camp (3 Days)", priceCents: 29900, dayCount: 3 },
      { code: "2day", label: "2 Days", priceCents: 23800, dayCount: 2 },
      { code: "1day", label: "1 Day", priceCents: 11900, dayCount: 1 },
    ],
  }),
  event(3, {}),
  event(4, { fullPriceCents: 20000, regularPriceCents: 20000 }),
];

describe("home offers from the event data", () => {
  it("offers events 1, 2 and 3 to teams with their savings", () => {
    const { teamEvents } = homeOffers(events, new Date());
    expect(teamEvents.map((e) => [e.id, e.regularPriceCents, e.teamPriceCents, e.savingsCents])).toEqual([
      [1, 24900, 19900, 5000],
      [2, 29900, 19900, 10000],
      [3, 24900, 19900, 5000],
    ]);
  });

  it("builds the promo from event 2: struck-through price, savings and day options by day count", () => {
    const { promo } = homeOffers(events, new Date());
    expect(promo).toMatchObject({ id: 2, originalPriceCents: 34900, priceCents: 29900, savingsCents: 5000 });
    expect(promo?.dayOptions).toEqual([
      { label: "1 Day", priceCents: 11900 },
      { label: "2 Days", priceCents: 23800 },
      { label: "3 Days", priceCents: 29900 },
    ]);
  });

  it("gives the banner the team price and the largest saving", () => {
    expect(homeOffers(events, new Date()).teamDeal).toEqual({ teamPriceCents: 19900, maxSavingsCents: 10000 });
  });

  it("leaves out what the data does not have instead of inventing it", () => {
    const offers = homeOffers([event(1, {})], new Date());
    expect(offers.promo).toBeNull();
    expect(offers.teamEvents.map((e) => e.id)).toEqual([1]);
    expect(homeOffers([event(2, {})], new Date()).promo).toBeNull();
    expect(homeOffers([], new Date()).teamDeal).toBeNull();
  });
});
