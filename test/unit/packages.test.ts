import { describe, expect, it } from "vitest";
import {
  defaultPackageLabel,
  HEADLINE_PACKAGE,
  isPackageCode,
  offeredLabel,
  PACKAGE_CODES,
  packageDayCount,
  packageMove,
  packageName,
  unknownPackageCodes,
} from "../../src/shared/registrations/packages.ts";
import { packageOptions } from "../../src/shared/registrations/rules.ts";

describe("the package module", () => {
  it("knows the four packages, each with one name", () => {
    expect(PACKAGE_CODES).toEqual(["full", "1day", "2day", "singleDay"]);
    expect(PACKAGE_CODES.map(packageName)).toEqual(["Full Event", "1 Day", "2 Days", "Single Day"]);
    expect(HEADLINE_PACKAGE).toBe("full");
    expect(isPackageCode("3day")).toBe(false);
    expect(isPackageCode("toString")).toBe(false);
    expect(packageName("3day")).toBe("3day");
  });

  it("says how many days each package attends", () => {
    expect(PACKAGE_CODES.map((c) => packageDayCount(c, 3))).toEqual([3, 1, 2, 1]);
    expect(packageDayCount("full", 5)).toBe(5);
    expect(defaultPackageLabel("full", 3)).toBe("Full Event (3 Days)");
    expect(defaultPackageLabel("full", 1)).toBe("Full Event (1 Day)");
    expect(defaultPackageLabel("2day", 3)).toBe("2 Days");
  });

  it("offers a package under the event's label, but the single day under its own name", () => {
    expect(offeredLabel("full", "Full Camp (3 Days)")).toBe("Full Camp (3 Days)");
    expect(offeredLabel("singleDay", "Single Day Pass")).toBe("Single Day");
    const event = { days: [], packages: [{ code: "full" as const, label: "Full Tour (3 Days)", priceCents: 1, dayCount: 3 }, { code: "singleDay" as const, label: "Day Pass", priceCents: 1, dayCount: 1 }] };
    expect(packageOptions(event).map((p) => p.label)).toEqual(["Full Tour (3 Days)", "Single Day"]);
  });

  it("allows an upgrade to a dearer package and a downgrade to a cheaper one, nothing else", () => {
    const full = { code: "full", priceCents: 29900 };
    const two = { code: "2day", priceCents: 23800 };
    expect(packageMove(two, full)).toBe("upgrade");
    expect(packageMove(full, two)).toBe("downgrade");
    expect(packageMove(full, full)).toBeNull();
    expect(packageMove(two, { code: "1day", priceCents: 23800 })).toBeNull();
  });

  it("finds the package rows that name no package", () => {
    expect(unknownPackageCodes([{ eventId: 1, code: "full" }, { eventId: 2, code: "3day" }])).toEqual([{ eventId: 2, code: "3day" }]);
  });
});
