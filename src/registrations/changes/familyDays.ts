import { DomainError } from "../../errors.ts";
import { isFamily } from "../core/family.ts";
import { enqueueEmail } from "../../email/outbox.ts";
import type { EventDetail } from "../../shared/events/types.ts";
import { attendedDayIds, coversEveryDay, dayChoiceMessage, findPackage } from "../../shared/registrations/rules.ts";
import { replaceDays, setAthleteDays } from "../core/tables/athletes.ts";
import { findByReference, setVersion } from "../core/tables/registrations.ts";
import type { RegistrationDeps } from "../core/deps.ts";
import { registrationChangedEmail } from "./email.ts";
import { PERMIT, withRegistration } from "../core/withRegistration.ts";
import type { Registration } from "../core/registration.ts";

type ChangeOutcome = { status: "changed" | "unchanged"; registration: Registration };

export const FAMILY_DAYS_TEXT = {
  chooseAthlete: "Please choose the athlete whose days change.",
  everyDay: "This athlete's package includes every day.",
  /** The details form keeps a family's days: each athlete's change with its own form. */
  eachAthlete: "Each athlete of a family has its own days: change them under \"Change an athlete's days\".",
} as const;

/**
 * One athlete of a family attends other days of its own package (issue 43): the same package, so the same price and
 * sibling discount. Under the registration's locks, for the version the form was shown for, before the freeze date:
 * the athlete's row takes the days (and the registration's own days, for the first athlete, whose package it carries).
 */
export async function changeFamilyDays(deps: RegistrationDeps, event: EventDetail, input: { reference: string; shownVersion: number; athletePosition: number; chosenDayIds: number[] }): Promise<ChangeOutcome> {
  const need = { event, kind: "individual" as const, permit: PERMIT.open, shownVersion: input.shownVersion, noPendingChange: true };
  const outcome = await withRegistration(deps, input.reference, need, async ({ trx, now, r }): Promise<ChangeOutcome> => {
    if (!isFamily(r)) throw new DomainError("conflict", FAMILY_DAYS_TEXT.chooseAthlete);
    const athlete = r.athletes.find((a) => a.position === input.athletePosition && a.withdrawnAt === null && a.family);
    if (!athlete?.family) throw new DomainError("invalid", FAMILY_DAYS_TEXT.chooseAthlete);
    const pkg = findPackage(event, athlete.family.packageCode);
    if (!pkg || coversEveryDay(pkg, event)) throw new DomainError("invalid", FAMILY_DAYS_TEXT.everyDay);
    const chosen = event.days.filter((d) => input.chosenDayIds.includes(d.id)).map((d) => d.id);
    if (chosen.length !== pkg.dayCount) throw new DomainError("invalid", dayChoiceMessage(pkg.dayCount));
    const days = attendedDayIds(event, pkg, chosen);
    const before = athlete.family.dayIds;
    if (days.length === before.length && days.every((d) => before.includes(d))) return { status: "unchanged", registration: r };

    await setAthleteDays(trx, r.id, athlete.position, days);
    // The registration's own days are the first athlete's, as booking stored them (its package is that athlete's too).
    if (athlete.position === 1) await replaceDays(trx, r.id, days);
    await setVersion(trx, r.id, r.version + 1, now);
    const changed = (await findByReference(trx, r.reference))!;
    await enqueueEmail(trx, registrationChangedEmail(deps.site, event, changed, [`days of ${athlete.firstName} ${athlete.lastName}`]));
    return { status: "changed", registration: changed };
  });
  if (outcome.status === "changed") {
    deps.outbox.wake();
    deps.logger.info({ reference: input.reference }, "a family's athlete changed days through the manage link");
  }
  return outcome;
}
