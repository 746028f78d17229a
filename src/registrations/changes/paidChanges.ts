import type { Knex } from "knex";
import { placesTakenNow } from "../core/lapse.ts";
import { enqueueEmail } from "../../email/outbox.ts";
import { findEvent } from "../../events/repository.ts";
import type { EventDetail } from "../../shared/events/types.ts";
import { formatPrice } from "../../shared/money.ts";
import { toDate } from "../../db/rows.ts";
import { REJECTED_REFUND_KEY_PREFIX, type PaidOutcome } from "../../payments/core.ts";
import { eventKey } from "../core/locks.ts";
import type { Registration } from "../core/registration.ts";
import { addTeamAthletes, replaceDays } from "../core/tables/athletes.ts";
import { findChange, moveChange, type RegistrationChange } from "../core/tables/changes.ts";
import { addPaid, findByReference, setPackage } from "../core/tables/registrations.ts";
import * as changesRepo from "./repository.ts";
import { CHANGE_KIND, type RegistrationDeps } from "../core/deps.ts";
import { permissions } from "../core/permissions.ts";
import { lockChange } from "../core/withRegistration.ts";
import { placesForSale } from "../waitlist/forSale.ts";
import { changeRefundedEmail, registrationChangedEmail } from "./email.ts";
import { queueFamilyLinks } from "./family.ts";
import { registrationRefundFailed, syncRegistrationRefunds } from "./refundOutcomes.ts";

/**
 * A paid registration's changes that cost money (README: Managing a registration after payment): an individual's
 * upgrade (changes/upgrade.ts) and athletes added to a team (changes/addAthletes.ts). Each change is a row of
 * `registration_changes` paid through its own PaymentIntent: payment kind `registration_change`, reference the row's
 * id, group the registration's reference (src/payments/groups.ts: the registration's money is its group's). This
 * module is that kind's handler in the payment core; the change's payment page, its cancellation and the sweep of
 * changes not paid in time are pendingChanges.ts.
 */
/** How long a change's places are kept (renewed each time Stripe still says so) while its payment is `processing`. */
const PROCESSING_HOLD_MS = 24 * 60 * 60_000;
/** Statuses from which a payment that arrives is still applied when the registration allows it. */
const PAYABLE: readonly RegistrationChange["status"][] = ["pending", "expired", "cancelled"];

const changeId = (reference: string) => (/^\d{1,12}$/.test(reference) ? Number(reference) : -1);

/** Why a paid change can no longer be applied to the registration, or null when it can. Under the aggregate's locks. */
async function cannotApply(deps: RegistrationDeps, trx: Knex.Transaction, c: RegistrationChange, r: Registration, eventRow: Record<string, unknown>, event: EventDetail, now: Date, byOperator: boolean): Promise<string | null> {
  // A team on a deposit plan takes changes as a paid one does (the manage page's permissions); a change that raises
  // the balance needs the balance still to come (not charged meanwhile: the registration would read paid and owe).
  const addsToBalance = c.data.kind === "add_athletes" && (c.data.balanceCents ?? 0) > 0;
  if (addsToBalance ? r.status !== "deposit_paid" : r.status !== "paid" && r.status !== "deposit_paid") return `the registration is ${r.status}`;
  if (permissions(r.status, event, toDate(eventRow.changes_freeze_at), now).phase !== "open") return "the deadline for changes has passed";
  if (c.data.kind === "upgrade") {
    if (r.version !== c.pricedVersion || r.packageCode !== c.data.fromPackageCode || r.listPriceCents !== c.data.fromListPriceCents) return "the registration changed after the upgrade was priced";
    return null;
  }
  const active = r.athletes.filter((a) => a.withdrawnAt === null).length;
  if (active + c.places > deps.limits.maxTeamAthletes) return "the team would be larger than a team may be";
  const held = byOperator || c.status === "needs_review" || (c.status === "pending" && c.reservedUntil.getTime() > now.getTime());
  if (held) return null;
  // A payment for a lapsed hold takes its places only when they are still free and the waiting list does not keep them.
  const free = Number(eventRow.capacity) - (await placesTakenNow(trx, c.eventId, eventRow, now));
  if ((await placesForSale(trx, c.eventId, free, now)) < c.places) return "the hold expired and the event has no places for the athletes";
  return null;
}

/** The change takes its payment: the registration is changed at a new version, the amount paid grows, the contact is e-mailed. */
async function apply(deps: RegistrationDeps, trx: Knex.Transaction, c: RegistrationChange, r: Registration, event: EventDetail, now: Date): Promise<void> {
  let what: string;
  if (c.data.kind === "upgrade") {
    await setPackage(trx, r.id, { code: c.data.packageCode, label: c.data.packageLabel, priceCents: c.data.priceCents }, r.version + 1, now);
    await replaceDays(trx, r.id, c.data.dayIds);
    what = `package from ${r.packageLabel} to ${c.data.packageLabel}, ${formatPrice(c.amountCents)} paid`;
  } else {
    await addTeamAthletes(trx, r, c.data.athletes, c.amountCents + (c.data.balanceCents ?? 0), now);
    const names = c.data.athletes.map((a) => `${a.firstName} ${a.lastName}`).join(", ");
    const later = c.data.balanceCents ? `, ${formatPrice(c.data.balanceCents)} added to the balance` : "";
    what = `${c.places} ${c.places === 1 ? "athlete" : "athletes"} added (${names}), ${formatPrice(c.amountCents)} paid${later}`;
  }
  await addPaid(trx, r.id, c.amountCents, now);
  await moveChange(trx, c.id, "pay", now, { paid_at: now });
  const changed = (await findByReference(trx, r.reference))!;
  await enqueueEmail(trx, registrationChangedEmail(deps.site, event, changed, [what]));
  // The new athletes' families get their own links, as the team's first athletes did when it was paid.
  if (c.data.kind === "add_athletes") await queueFamilyLinks(trx, deps, event, changed, now);
}

export function registerChangePayments(deps: RegistrationDeps): void {
  deps.paymentCore.register(CHANGE_KIND, {
    async queueKey(db, reference) {
      const c = await findChange(db, changeId(reference));
      return c ? eventKey(c.eventId) : undefined;
    },

    async expected(trx, reference) {
      const locked = await lockChange(trx, changeId(reference));
      return locked ? { amountCents: locked.change.amountCents } : null;
    },

    async onPaid(trx, payment): Promise<PaidOutcome> {
      // The aggregate as `expected` locked it (taking a lock this transaction holds changes nothing).
      const locked = await lockChange(trx, changeId(payment.reference));
      if (!locked) return { reject: "no such change" };
      const { change: c, r, eventRow } = locked;
      if (c.status === "paid") return "duplicate";
      const byOperator = c.status === "needs_review" && payment.paidVia === "operator";
      if (!PAYABLE.includes(c.status) && !byOperator) return { reject: `the change is ${c.status}` };
      const event = (await findEvent(trx, c.eventId))!;
      const now = deps.clock();
      const why = await cannotApply(deps, trx, c, r, eventRow, event, now, byOperator);
      if (why) {
        await moveChange(trx, c.id, "reject", now);
        deps.logger.warn({ reference: r.reference, changeId: c.id, why }, "a paid registration change could no longer apply; refunded");
        return { reject: why };
      }
      await apply(deps, trx, c, r, event, now);
      deps.logger.info({ reference: r.reference, changeId: c.id, kind: c.kind }, "registration change paid and applied");
      return "accepted";
    },

    async onProcessing(trx, payment) {
      const now = deps.clock();
      await changesRepo.keepChangeUntil(trx, changeId(payment.reference), new Date(now.getTime() + PROCESSING_HOLD_MS), now);
    },

    async onReview(trx, payment, reason) {
      if (await moveChange(trx, changeId(payment.reference), "flagForReview", deps.clock())) {
        deps.logger.error({ changeId: payment.reference, reason }, "registration change payment does not match the change: needs_review");
      }
    },

    async onRefunded(trx, payment, refund) {
      const locked = await lockChange(trx, changeId(payment.reference));
      if (!locked) return;
      const event = await findEvent(trx, locked.r.eventId);
      if (refund.refund?.requestKey.startsWith(REJECTED_REFUND_KEY_PREFIX)) {
        if (event) await enqueueEmail(trx, changeRefundedEmail(deps.site, event, locked.r, refund.amountRefundedCents));
        return;
      }
      // A cancellation or a cheaper package refunded part of what this change paid: the registration's total follows.
      await syncRegistrationRefunds(deps, trx, locked.r);
    },

    async onRefundFailed(trx, payment, refund) {
      if (refund.requestKey.startsWith(REJECTED_REFUND_KEY_PREFIX)) return; // the change's payment waits in review
      const locked = await lockChange(trx, changeId(payment.reference));
      if (locked) await registrationRefundFailed(deps, trx, locked.r, refund);
    },

    async afterPaid() {
      deps.outbox.wake();
    },
    async afterChange() {
      deps.outbox.wake();
    },
  });
}

