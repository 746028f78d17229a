import { enqueueEmail } from "../../email/outbox.ts";
import { DomainError } from "../../errors.ts";
import type { EventDetail } from "../../shared/events/types.ts";
import type { Registration } from "../core/registration.ts";
import { withdrawAthlete } from "../core/tables/athletes.ts";
import { findByReference, transition } from "../core/tables/registrations.ts";
import { TEAM_MINIMUM } from "../../shared/registrations/teamRules.ts";
import type { RegistrationDeps } from "../core/deps.ts";
import { athleteWithdrawnEmail, registrationCanceledEmail } from "./email.ts";
import { ADULT_AGE } from "./familyRules.ts";
import { cancellationRefundCents, refundPercent } from "../../shared/registrations/changePolicy.ts";
import { placesFreed } from "../core/placesFreed.ts";
import { refundAcross } from "../../payments/core.ts";
import { withRegistration, type Permit } from "../core/withRegistration.ts";
import { isFamily } from "../core/family.ts";

export const CANCEL_TEXT = {
  alreadyCanceled: "This registration is already canceled.",
  athleteGone: "That athlete is no longer on the team.",
  teamMinimum: `A team needs at least ${TEAM_MINIMUM} athletes. To go below that, cancel the whole team.`,
  familyLast: "This is the last athlete of the registration: cancel the whole registration instead.",
} as const;

/** A registration may be canceled until the camp starts (its places are freed at once). */
const mayCancel: Permit = (allowed, r) => {
  if (r.status === "withdrawn" || r.status === "refunded") return CANCEL_TEXT.alreadyCanceled;
  return allowed.canCancel ? undefined : allowed.reason || "The camp has started: the registration can no longer be canceled.";
};

/** What is being canceled: the whole registration, or one athlete of a team (by position). */
export type CancelScope = { whole: true } | { whole: false; athletePosition: number };

/** The athletes still on a registration (a team's withdrawn ones are kept for the record). */
export const activeAthletes = (r: Registration) => r.athletes.filter((a) => a.withdrawnAt === null);

/**
 * The part of the amount paid that a cancellation gives up: the whole of what is still registered, or one
 * athlete's share of a team (the amount paid split evenly over the athletes it paid for).
 */
export function canceledPartCents(r: Registration, scope: CancelScope): number {
  // What it is still paid for: the amount paid, or less once a cheaper package gave the difference back.
  const paid = Math.min(r.amountPaidCents ?? 0, r.amountCents);
  if (isFamily(r)) return familyPartCents(r, paid, scope);
  const all = Math.max(1, r.athletes.length);
  return scope.whole ? Math.round((paid * activeAthletes(r).length) / all) : Math.round(paid / all);
}

/**
 * Siblings: an athlete's share of what was paid is in proportion to its own price after the sibling discount (a code
 * or a deposit scales every share alike), rounded down, so no athlete's refund is ever more than it paid for; the
 * whole is what was paid less the shares of the athletes already canceled. The discount stays as it was priced.
 */
function familyPartCents(r: Registration, paid: number, scope: CancelScope): number {
  const due = (a: Registration["athletes"][number]) => (a.family ? a.family.listPriceCents - a.family.siblingDiscountCents : 0);
  const total = r.athletes.reduce((sum, a) => sum + due(a), 0);
  const share = (a: Registration["athletes"][number]) => (total > 0 ? Math.floor((paid * due(a)) / total) : 0);
  if (scope.whole) return paid - r.athletes.filter((a) => a.withdrawnAt !== null).reduce((sum, a) => sum + share(a), 0);
  const athlete = r.athletes.find((a) => a.position === scope.athletePosition);
  return athlete ? share(athlete) : 0;
}

/** What a cancellation now refunds, before it is confirmed: the manage page's figure. */
export function cancellationQuote(r: Registration, scope: CancelScope, startsAt: Date, now: Date): { cents: number; percent: number; partCents: number } {
  const partCents = canceledPartCents(r, scope);
  return { cents: cancellationRefundCents(partCents, 0, startsAt, now), percent: refundPercent(startsAt, now), partCents };
}

export interface CancelOutcome {
  registration: Registration;
  refundCents: number;
  percent: number;
}

/**
 * A registrant cancels through the manage link (a coach: the whole team or one athlete). One transaction takes
 * the locks in the aggregate's order as settlement does (the payment row, the event, the registration; queued
 * behind this process's other transactions on the event), reads everything it decides on after them, refuses a
 * form shown for an older version (two tabs), frees the places at once (status `withdrawn`, or one athlete
 * withdrawn and one place fewer), requests the policy's refund through the payment core in the same transaction
 * (the refund job sends it after the commit; the key makes a retry harmless) and queues the receipt e-mail.
 */
export async function cancelRegistration(deps: RegistrationDeps, event: EventDetail, input: { reference: string; shownVersion: number; scope: CancelScope }): Promise<CancelOutcome> {
  // Every payment holding the registration's money (its own, and its paid changes': an upgrade, added athletes) is locked first.
  const need = { event, permit: mayCancel, shownVersion: input.shownVersion, money: true, noPendingChange: true };
  const outcome = await withRegistration(deps, input.reference, need, async ({ trx, now, r, allowed, money }): Promise<CancelOutcome> => {
    const active = activeAthletes(r);
    const athlete = input.scope.whole ? undefined : active.find((a) => a.position === (input.scope as { athletePosition: number }).athletePosition);
    const family = isFamily(r);
    if (!input.scope.whole && ((r.kind !== "team" && !family) || !athlete)) throw new DomainError("conflict", CANCEL_TEXT.athleteGone);
    if (athlete && family && active.length < 2) throw new DomainError("conflict", CANCEL_TEXT.familyLast);
    if (athlete && !family && active.length - 1 < TEAM_MINIMUM) throw new DomainError("conflict", CANCEL_TEXT.teamMinimum);

    const quote = cancellationQuote(r, input.scope, allowed.startsAt, now);
    const refundCents = Math.min(quote.cents, money.refundableCents);
    if (athlete) {
      await withdrawAthlete(trx, r.id, athlete.position, refundCents, r.places - 1, r.version + 1, now);
    } else if (!(await transition(trx, r.id, "withdraw", now, { withdrawn_at: now, withdrawal_refund_cents: refundCents, version: r.version + 1 }))) {
      throw new DomainError("conflict", CANCEL_TEXT.alreadyCanceled);
    }
    let refundParts: number[] = [];
    if (refundCents > 0) {
      const what = athlete ? `athlete:${athlete.position}` : "all";
      refundParts = await refundAcross(trx, deps.paymentCore, r.reference, refundCents, `cancel:registration:${r.id}:${what}:v${r.version}`, `canceled by the registrant (${quote.percent}% under the policy)`);
    }
    // The waiting list's hook: places were freed in this transaction (src/registrations/core/deps.ts).
    await placesFreed(trx, event.id);

    const after = (await findByReference(trx, r.reference))!;
    const receiptOf = athlete ? { ...after, kind: "individual" as const, athletes: [athlete] } : after;
    await enqueueEmail(trx, registrationCanceledEmail(deps.site, event, receiptOf, { cents: refundCents, percent: quote.percent, paidCents: quote.partCents, parts: refundParts }, now));
    // A team athlete's family hears from us; a sibling's family is the payer, and the receipt above is theirs.
    if (athlete && !family) await enqueueEmail(trx, athleteWithdrawnEmail(deps.site, event, after, athlete, now, athlete.age === null || athlete.age < ADULT_AGE));
    return { registration: after, refundCents, percent: quote.percent };
  });
  deps.outbox.wake();
  if (outcome.refundCents > 0) deps.paymentCore.refundJobs.wake();
  deps.logger.info({ reference: input.reference, whole: input.scope.whole, refundCents: outcome.refundCents }, "registration canceled through its manage link");
  return outcome;
}
