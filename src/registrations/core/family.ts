import type { EventDetail } from "../../shared/events/types.ts";
import { packageName } from "../../shared/registrations/packages.ts";
import type { FamilyLineView } from "../../shared/registrations/siblings.ts";
import type { SiblingEntry } from "../../shared/registrations/rules.ts";
import type { PackageCode } from "../../shared/registrations/packages.ts";
import type { Registration } from "./registration.ts";

/** Siblings registered together (src/shared/registrations/siblings.ts): how the pages and e-mails list a family. */

/** A family's athletes, each with its own package, days, price and sibling discount; null for one athlete and a team. */
export function familyLines(event: EventDetail, r: Registration): FamilyLineView[] | null {
  if (r.kind !== "individual" || !r.athletes.some((a) => a.family)) return null;
  return r.athletes.map((a) => ({
    name: `${a.firstName} ${a.lastName}`,
    packageLabel: packageName(a.family?.packageCode ?? r.packageCode),
    days: event.days.filter((d) => (a.family?.dayIds ?? r.dayIds).includes(d.id)).map((d) => d.label),
    listCents: a.family?.listPriceCents ?? r.listPriceCents,
    siblingDiscountCents: a.family?.siblingDiscountCents ?? 0,
  }));
}

/** The days any athlete of the registration attends, as event_days ids (a family's athletes may attend different days). */
export function attendedDayIdsOf(r: Registration): number[] {
  const family = r.athletes.filter((a) => a.family);
  if (family.length === 0) return r.dayIds;
  return [...new Set(family.flatMap((a) => a.family!.dayIds))];
}

/** Siblings registered together: each athlete has its own package and days. */
export const isFamily = (r: Registration) => r.kind === "individual" && r.athletes.some((a) => a.family);

/** Athletes 2 to 4 of a family as the form's entries (Back from step 2 shows them again). */
export function siblingsOf(r: Registration): SiblingEntry[] {
  return r.athletes.slice(1).flatMap((a) =>
    a.family
      ? [{
          registrationType: a.family.packageCode as PackageCode,
          dayIds: a.family.dayIds,
          firstName: a.firstName,
          lastName: a.lastName,
          grade: a.grade ?? "",
          gender: (a.gender ?? "") as SiblingEntry["gender"],
          schoolName: a.schoolName ?? "",
          clubName: a.clubName ?? undefined,
          tShirtSize: (a.shirtSize ?? undefined) as SiblingEntry["tShirtSize"],
          specialRequirements: a.specialRequirements ?? undefined,
        }]
      : [],
  );
}
