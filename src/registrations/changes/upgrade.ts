import { isFamily } from "../core/family.ts";
import { SIBLING_TEXT } from "../../shared/registrations/siblings.ts";
import { DomainError } from "../../errors.ts";
import type { EventDetail } from "../../shared/events/types.ts";
import { findPackage, type IndividualRegistration } from "../../shared/registrations/rules.ts";
import { redemptionOf } from "../core/money/redemptions.ts";
import type { Registration } from "../core/registration.ts";
import { changesOf } from "../core/tables/changes.ts";
import { packagePriceCents } from "../core/tables/eventTerms.ts";
import type { Holder } from "../core/tables/holds.ts";
import * as changesRepo from "./repository.ts";
import { HOLD_MINUTES, type RegistrationDeps } from "../core/deps.ts";
import { PERMIT, withRegistration } from "../core/withRegistration.ts";
import { upgradeChoices, upgradeDifferenceCents } from "./rules.ts";
import { CHANGE_TEXT } from "../../shared/registrations/changeTexts.ts";

/** The packages a paid individual registration can move up to, with what each costs on top (none with a discount code). */
export function upgradeOptions(event: EventDetail, r: Registration): { code: string; label: string; priceCents: number; differenceCents: number }[] {
  if (r.kind !== "individual" || (r.status !== "paid" && r.status !== "deposit_paid")) return [];
  return upgradeChoices(
    event.packages.map((p) => ({ code: p.code, label: findPackage(event, p.code)?.label ?? p.label, priceCents: p.priceCents })),
    r,
  );
}

const sameDays = (a: number[], b: number[]) => [...a].sort((x, y) => x - y).join(",") === [...b].sort((x, y) => x - y).join(",");

/**
 * A paid individual registration asks to move to a dearer package before the freeze date. One transaction in the
 * aggregate's lock order (the event, then the registration) reads the freeze date, the registration and the price
 * under the locks, refuses a form of an older version, a registration with a discount code, a package that is not
 * dearer, and a second change while one waits for its payment; it writes a pending change priced at the new
 * package's list price minus the list price paid, against the registration's version. The same form posted again
 * (a double click, a second tab) gets the same change, so it is paid through one PaymentIntent. Nothing is charged
 * here: the change's payment page asks for the intent, and the change applies only when its payment settles.
 */
export async function startUpgrade(deps: RegistrationDeps, event: EventDetail, input: { reference: string; shownVersion: number; data: IndividualRegistration; holder: Holder }): Promise<number> {
  const need = { event, kind: "individual" as const, permit: PERMIT.open, shownVersion: input.shownVersion };
  const id = await withRegistration(deps, input.reference, need, async ({ trx, now, r }) => {
    if (isFamily(r)) throw new DomainError("conflict", SIBLING_TEXT.packageByRequest);
    const waiting = await changesOf(trx, r.id, ["pending", "needs_review"]);
    const same = waiting.find(
      (c) => c.status === "pending" && c.data.kind === "upgrade" && c.pricedVersion === r.version && c.data.packageCode === input.data.registrationType && sameDays(c.data.dayIds, input.data.dayIds) && c.reservedUntil.getTime() > now.getTime(),
    );
    if (same) return same.id;
    if (waiting.length > 0) throw new DomainError("conflict", CHANGE_TEXT.pendingElsewhere);
    if (await redemptionOf(trx, r.id)) throw new DomainError("conflict", CHANGE_TEXT.withCode);
    const priceCents = await packagePriceCents(trx, event.id, input.data.registrationType);
    const pkg = findPackage(event, input.data.registrationType);
    const difference = priceCents === undefined ? null : upgradeDifferenceCents(r.listPriceCents, priceCents);
    if (!pkg || priceCents === undefined || difference === null) throw new DomainError("invalid", CHANGE_TEXT.notDearer);
    return changesRepo.insertChange(
      trx,
      {
        registrationId: r.id,
        eventId: event.id,
        data: { kind: "upgrade", fromPackageCode: r.packageCode, fromListPriceCents: r.listPriceCents, packageCode: pkg.code, packageLabel: pkg.label, priceCents, dayIds: input.data.dayIds },
        places: 0,
        amountCents: difference,
        pricedVersion: r.version,
        reservedUntil: new Date(now.getTime() + HOLD_MINUTES * 60_000),
        holder: input.holder,
      },
      now,
    );
  });
  deps.logger.info({ reference: input.reference, changeId: id }, "registration upgrade waiting for its payment");
  return id;
}
