import { enqueueEmail } from "../../email/outbox.ts";
import { DomainError } from "../../errors.ts";
import type { EventDetail } from "../../shared/events/types.ts";
import { formatPrice } from "../../shared/money.ts";
import { findPackage, type IndividualRegistration } from "../../shared/registrations/rules.ts";
import { CHANGE_TEXT, MANAGE_TEXT } from "../../shared/registrations/changeTexts.ts";
import { dueDayText } from "../../shared/registrations/deposits.ts";
import { redemptionOf } from "../core/money/redemptions.ts";
import { replaceDays } from "../core/tables/athletes.ts";
import { packagePriceCents } from "../core/tables/eventTerms.ts";
import { findByReference, setPackage } from "../core/tables/registrations.ts";
import type { RegistrationDeps } from "../core/deps.ts";
import { registrationChangedEmail } from "./email.ts";
import { upgradeDifferenceCents } from "./rules.ts";
import { PERMIT, withRegistration } from "../core/withRegistration.ts";

/** What the page says once an upgrade raised the balance. */
export const BALANCE_UPGRADE_TEXT = {
  done: (balanceCents: number, due: string) => `Your package is changed. Nothing was charged now: your balance is ${formatPrice(balanceCents)}, due on ${due}.`,
} as const;

/**
 * A deposit-paid registration moves to a dearer package: the balance grows, the deposit stays and nothing is charged
 * now (the balance is charged on its date, or paid earlier from the manage page). withRegistration takes the locks
 * and checks the freeze date, the version and any change waiting, as an upgrade paid by card does; then it writes
 * the package, its days and price (the amount, so the balance) at a new version and e-mails the contact.
 */
export async function upgradeOnBalance(deps: RegistrationDeps, event: EventDetail, input: { reference: string; shownVersion: number; data: IndividualRegistration }): Promise<{ balanceCents: number; dueAt: Date }> {
  const need = { event, kind: "individual" as const, permit: PERMIT.open, shownVersion: input.shownVersion, noPendingChange: true };
  const outcome = await withRegistration(deps, input.reference, need, async ({ trx, now, r }) => {
    if (r.status !== "deposit_paid" || !r.deposit) throw new DomainError("conflict", MANAGE_TEXT.stale);
    if (await redemptionOf(trx, r.id)) throw new DomainError("conflict", CHANGE_TEXT.withCode);
    const priceCents = await packagePriceCents(trx, event.id, input.data.registrationType);
    const pkg = findPackage(event, input.data.registrationType);
    if (!pkg || priceCents === undefined || upgradeDifferenceCents(r.listPriceCents, priceCents) === null) throw new DomainError("invalid", CHANGE_TEXT.notDearer);
    await setPackage(trx, r.id, { code: pkg.code, label: pkg.label, priceCents }, r.version + 1, now);
    await replaceDays(trx, r.id, input.data.dayIds);
    const balanceCents = priceCents - (r.amountPaidCents ?? 0);
    const changed = (await findByReference(trx, r.reference))!;
    const due = dueDayText(r.deposit.balanceDueAt, event.timeZone);
    await enqueueEmail(trx, registrationChangedEmail(deps.site, event, changed, [`package from ${r.packageLabel} to ${pkg.label}, nothing charged now: the balance is ${formatPrice(balanceCents)}, due on ${due}`]));
    return { balanceCents, dueAt: r.deposit.balanceDueAt };
  });
  deps.outbox.wake();
  deps.logger.info({ reference: input.reference, balanceCents: outcome.balanceCents }, "deposit-paid registration moved to a dearer package: balance raised");
  return outcome;
}
