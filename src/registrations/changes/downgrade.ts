import { isFamily } from "../core/family.ts";
import { SIBLING_TEXT } from "../../shared/registrations/siblings.ts";
import { packageMove } from "../../shared/registrations/packages.ts";
import { enqueueEmail } from "../../email/outbox.ts";
import { DomainError } from "../../errors.ts";
import type { EventDetail } from "../../shared/events/types.ts";
import { formatPrice } from "../../shared/money.ts";
import { findPackage, type IndividualRegistration } from "../../shared/registrations/rules.ts";
import { redemptionOf } from "../core/money/redemptions.ts";
import type { Registration } from "../core/registration.ts";
import { replaceDays } from "../core/tables/athletes.ts";
import { packagePriceCents } from "../core/tables/eventTerms.ts";
import { findByReference, setPackage, transition } from "../core/tables/registrations.ts";
import type { RegistrationDeps } from "../core/deps.ts";
import { registrationChangedEmail } from "./email.ts";
import { refundAcross } from "../../payments/core.ts";
import { PERMIT, withRegistration } from "../core/withRegistration.ts";

export const DOWNGRADE_TEXT = {
  withCode: "A registration paid with a discount code changes package through us: please write to us.",
  notCheaper: "Please choose a package that costs less than the one you have.",
  done: (cents: number) => `Your package is changed. ${formatPrice(cents)} is on its way back to your card; we've e-mailed you the details.`,
} as const;

/** The packages a paid individual registration can move down to (cheaper than what it paid for), with what each gives back. */
export function downgradeOptions(event: EventDetail, r: Registration): { code: string; label: string; priceCents: number; refundCents: number }[] {
  if (r.kind !== "individual" || (r.status !== "paid" && r.status !== "deposit_paid")) return [];
  return event.packages
    .filter((p) => packageMove({ code: r.packageCode, priceCents: r.listPriceCents }, p) === "downgrade")
    .map((p) => ({ code: p.code, label: findPackage(event, p.code)?.label ?? p.label, priceCents: p.priceCents, refundCents: downgradeRefundCents(r, p.priceCents) }));
}

/**
 * What a cheaper package gives back: the difference in list price; on a deposit plan only what was paid above the new
 * price (the balance shrinks first), never more than was paid.
 */
export function downgradeRefundCents(r: Pick<Registration, "status" | "listPriceCents" | "amountPaidCents">, newPriceCents: number): number {
  if (r.status === "deposit_paid") return Math.max(0, (r.amountPaidCents ?? 0) - newPriceCents);
  return r.listPriceCents - newPriceCents;
}

/**
 * A paid individual registration moves to a cheaper package before the freeze date (an upgrade, which needs a
 * PaymentIntent of its own, is not offered). One transaction in settlement's lock order (the payment row, the event,
 * the registration) re-reads the price under the lock, refuses a form of an older version, writes the package, its
 * days, price and amount at a new version, requests the difference's refund through the payment core (key
 * `downgrade:registration:{id}:v{version}`) and e-mails the contact. A registration with a discount code is refused
 * (its share of the code would need an operator's decision).
 */
export async function downgradeIndividual(deps: RegistrationDeps, event: EventDetail, input: { reference: string; shownVersion: number; data: IndividualRegistration }): Promise<{ refundCents: number }> {
  const need = { event, kind: "individual" as const, permit: PERMIT.open, shownVersion: input.shownVersion, money: true, noPendingChange: true };
  const outcome = await withRegistration(deps, input.reference, need, async ({ trx, now, r, money }) => {
    if (isFamily(r)) throw new DomainError("conflict", SIBLING_TEXT.packageByRequest);
    if (await redemptionOf(trx, r.id)) throw new DomainError("conflict", DOWNGRADE_TEXT.withCode);
    const priceCents = await packagePriceCents(trx, event.id, input.data.registrationType);
    const pkg = findPackage(event, input.data.registrationType);
    if (priceCents === undefined || !pkg || priceCents >= r.listPriceCents) throw new DomainError("invalid", DOWNGRADE_TEXT.notCheaper);
    if (!money.payments.some((p) => p.kept && p.payment.provider !== "none")) throw new DomainError("conflict", DOWNGRADE_TEXT.withCode);
    const refundCents = Math.min(downgradeRefundCents(r, priceCents), money.refundableCents);

    await setPackage(trx, r.id, { code: pkg.code, label: pkg.label, priceCents }, r.version + 1, now);
    // A deposit that now covers the whole (new) price: nothing is owed, the registration is paid.
    if (r.status === "deposit_paid" && priceCents <= (r.amountPaidCents ?? 0)) await transition(trx, r.id, "payBalance", now);
    await replaceDays(trx, r.id, input.data.dayIds);
    if (refundCents > 0) {
      await refundAcross(trx, deps.paymentCore, r.reference, refundCents, `downgrade:registration:${r.id}:v${r.version}`, `package changed from ${r.packageLabel} to ${pkg.label}`);
    }
    const changed = (await findByReference(trx, r.reference))!;
    const owed = changed.status === "deposit_paid" ? `, the balance is now ${formatPrice(changed.amountCents - (changed.amountPaidCents ?? 0))}` : "";
    await enqueueEmail(trx, registrationChangedEmail(deps.site, event, changed, [`package from ${r.packageLabel} to ${pkg.label}, ${formatPrice(refundCents)} refunded to your card${owed}`]));
    return { refundCents };
  });
  deps.outbox.wake();
  if (outcome.refundCents > 0) deps.paymentCore.refundJobs.wake();
  deps.logger.info({ reference: input.reference, refundCents: outcome.refundCents }, "registration moved to a cheaper package through its manage link");
  return outcome;
}
