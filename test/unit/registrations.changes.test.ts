import { describe, expect, it } from "vitest";
import { addedAthletesCents, teamHasRoom, upgradeChoices, upgradeDifferenceCents } from "../../src/registrations/changes/rules.ts";
import { CHANGE_TEXT } from "../../src/shared/registrations/changeTexts.ts";

/** Event 2's packages: full camp $299, 2 days $238, 1 day $119. */
const PACKAGES = [
  { code: "full", label: "Full Camp (3 Days)", priceCents: 29900 },
  { code: "2day", label: "2 Days", priceCents: 23800 },
  { code: "1day", label: "Single Day", priceCents: 11900 },
];

describe("an upgrade's price", () => {
  it("is the new package's list price minus the list price paid, for dearer packages only", () => {
    expect(upgradeChoices(PACKAGES, { packageCode: "1day", listPriceCents: 11900 })).toEqual([
      { ...PACKAGES[0], differenceCents: 18000 },
      { ...PACKAGES[1], differenceCents: 11900 },
    ]);
    expect(upgradeChoices(PACKAGES, { packageCode: "2day", listPriceCents: 23800 })).toEqual([{ ...PACKAGES[0], differenceCents: 6100 }]);
    expect(upgradeChoices(PACKAGES, { packageCode: "full", listPriceCents: 29900 })).toEqual([]);
  });

  it("counts from the price paid, not today's price of the package held (a price raised since is not charged twice)", () => {
    expect(upgradeChoices(PACKAGES, { packageCode: "2day", listPriceCents: 20000 })).toEqual([{ ...PACKAGES[0], differenceCents: 9900 }]);
  });

  it("is null when the package is not dearer or a price is not whole cents", () => {
    expect(upgradeDifferenceCents(23800, 29900)).toBe(6100);
    expect(upgradeDifferenceCents(23800, 23800)).toBeNull();
    expect(upgradeDifferenceCents(23800, 11900)).toBeNull();
    expect(upgradeDifferenceCents(23800, 299.5)).toBeNull();
  });
});

describe("new athletes' price and room", () => {
  it("is the team price per athlete: a sixth athlete at $199 costs $199", () => {
    expect(addedAthletesCents(1, 19900)).toBe(19900);
    expect(addedAthletesCents(3, 19900)).toBe(59700);
    expect(addedAthletesCents(0, 19900)).toBeNull();
    expect(addedAthletesCents(2, 0)).toBeNull();
    expect(addedAthletesCents(1.5, 19900)).toBeNull();
  });

  it("never lets a team past its ceiling", () => {
    expect(teamHasRoom(5, 1, 60)).toBe(true);
    expect(teamHasRoom(59, 1, 60)).toBe(true);
    expect(teamHasRoom(59, 2, 60)).toBe(false);
    expect(teamHasRoom(5, 0, 60)).toBe(false);
  });

  it("says how many places are left in words", () => {
    expect(CHANGE_TEXT.notEnoughPlaces(0, 1)).toContain("no athlete can be added");
    expect(CHANGE_TEXT.notEnoughPlaces(1, 2)).toBe("Only 1 place is left at this event, not enough for 2 more athletes. Please add fewer.");
  });
});
