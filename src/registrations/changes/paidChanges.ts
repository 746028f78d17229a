import type { Knex } from "knex";
import { toDate } from "../../db/rows.ts";
import { queuedLockingTransaction } from "../../db/rowQueue.ts";
import { enqueueEmail } from "../../email/outbox.ts";
import { DomainError } from "../../errors.ts";
import { findEvent, placesTaken } from "../../events/repository.ts";
import type { EventDetail } from "../../shared/events/types.ts";
import { formatPrice } from "../../shared/money.ts";
import { REJECTED_REFUND_KEY_PREFIX, type PaidOutcome } from "../../payments/core.ts";
import type { PaymentRow } from "../../payments/repository.ts";
import type { RefundRow } from "../../payments/refundLedger.ts";
import { refundableCents, refundsOfPayment } from "../../payments/refundLedger.ts";
import { OPEN_STATUSES } from "../../payments/transitions.ts";
import * as repo from "../core/repository.ts";
import type { Registration, RegistrationChange } from "../core/repository.ts";
import { releaseUse } from "../booking/codes.ts";
import { registrationRefundedEmail } from "../core/email.ts";
import { REGISTRATION_KIND, type RegistrationDeps } from "../core/deps.ts";
import { PAYMENT_SETUP_ERROR } from "../booking/payment.ts";
import { placesFreed } from "../waitlist/offers.ts";
import { placesForSale } from "../waitlist/forSale.ts";
import { changeRefundedEmail, refundFailedEmail, registrationChangedEmail } from "./email.ts";
import { queueFamilyLinks } from "./family.ts";
import { permissions } from "./rules.ts";
import { CHANGE_TEXT } from "../../shared/registrations/changeTexts.ts";

/**
 * A paid registration's changes that cost money (README: Managing a registration after payment): an individual's
 * upgrade (manage/upgrade.ts) and athletes added to a team (manage/addAthletes.ts). Each change is a row of
 * `registration_changes` paid through its own PaymentIntent: payment kind `registration_change`, reference the row's
 * id. This module is that kind's handler in the payment core, the change's payment page's intent, its cancellation,
 * the sweep of changes not paid in time, and what the registration's other changes need from it (the guard while
 * a change waits for its payment, and refunds spread over every payment that paid the registration).
 */
export const CHANGE_KIND = "registration_change";
/** How long a change's places are kept (renewed each time Stripe still says so) while its payment is `processing`. */
const PROCESSING_HOLD_MS = 24 * 60 * 60_000;
/** Statuses from which a payment that arrives is still applied when the registration allows it. */
const PAYABLE: readonly RegistrationChange["status"][] = ["pending", "expired", "cancelled"];

const changeId = (reference: string) => (/^\d{1,12}$/.test(reference) ? Number(reference) : -1);

/** The aggregate's locks in their order (the event, the registration), then the change's own row; everything as it now stands. */
export async function lockChangeAggregate(trx: Knex.Transaction, id: number): Promise<{ change: RegistrationChange; r: Registration; eventRow: Record<string, unknown> } | undefined> {
  const plain = await repo.findChange(trx, id);
  if (!plain) return undefined;
  const eventRow = await repo.lockEvent(trx, plain.eventId);
  const reference = await repo.referenceOf(trx, plain.registrationId);
  const r = reference === undefined ? undefined : await repo.lockByReference(trx, reference);
  const change = await repo.lockChange(trx, id);
  if (!eventRow || !r || !change) return undefined;
  return { change, r, eventRow };
}

/**
 * Refuses a change to a registration while one of its paid changes waits for its payment: whatever is paid must
 * match what is registered, so nothing that moves money or the registration's version goes ahead meanwhile (the
 * registrant pays the change, cancels it, or lets it lapse). Under the registration's lock.
 */
export async function refuseWhileChangePending(trx: Knex.Transaction, registrationId: number, exceptChangeId?: number): Promise<void> {
  const pending = (await repo.changesOf(trx, registrationId, ["pending", "needs_review"])).filter((c) => c.id !== exceptChangeId);
  if (pending.length > 0) throw new DomainError("conflict", CHANGE_TEXT.pendingElsewhere);
}

/** Why a paid change can no longer be applied to the registration, or null when it can. Under the aggregate's locks. */
async function cannotApply(deps: RegistrationDeps, trx: Knex.Transaction, c: RegistrationChange, r: Registration, eventRow: Record<string, unknown>, event: EventDetail, now: Date, byOperator: boolean): Promise<string | null> {
  if (r.status !== "paid") return `the registration is ${r.status}`;
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
  const free = Number(eventRow.capacity) - (await placesTaken(trx, c.eventId, now));
  if ((await placesForSale(trx, c.eventId, free, now)) < c.places) return "the hold expired and the event has no places for the athletes";
  return null;
}

/** The change takes its payment: the registration is changed at a new version, the amount paid grows, the contact is e-mailed. */
async function apply(deps: RegistrationDeps, trx: Knex.Transaction, c: RegistrationChange, r: Registration, event: EventDetail, now: Date): Promise<void> {
  let what: string;
  if (c.data.kind === "upgrade") {
    await repo.setPackage(trx, r.id, { code: c.data.packageCode, label: c.data.packageLabel, priceCents: c.data.priceCents }, r.version + 1, now);
    await repo.replaceDays(trx, r.id, c.data.dayIds);
    what = `package from ${r.packageLabel} to ${c.data.packageLabel}, ${formatPrice(c.amountCents)} paid`;
  } else {
    await repo.addTeamAthletes(trx, r, c.data.athletes, c.amountCents, now);
    const names = c.data.athletes.map((a) => `${a.firstName} ${a.lastName}`).join(", ");
    what = `${c.places} ${c.places === 1 ? "athlete" : "athletes"} added (${names}), ${formatPrice(c.amountCents)} paid`;
  }
  await repo.addPaid(trx, r.id, c.amountCents, now);
  await repo.moveChange(trx, c.id, [...PAYABLE, "needs_review"], "paid", now, { paid_at: now });
  const changed = (await repo.findByReference(trx, r.reference))!;
  await enqueueEmail(trx, registrationChangedEmail(deps.site, event, changed, [what]));
  // The new athletes' families get their own links, as the team's first athletes did when it was paid.
  if (c.data.kind === "add_athletes") await queueFamilyLinks(trx, deps, event, changed, now);
}

export function registerChangePayments(deps: RegistrationDeps): void {
  deps.paymentCore.register(CHANGE_KIND, {
    async queueKey(db, reference) {
      const c = await repo.findChange(db, changeId(reference));
      return c ? repo.eventKey(c.eventId) : undefined;
    },

    async expected(trx, reference) {
      const locked = await lockChangeAggregate(trx, changeId(reference));
      return locked ? { amountCents: locked.change.amountCents } : null;
    },

    async onPaid(trx, payment): Promise<PaidOutcome> {
      const c = await repo.findChange(trx, changeId(payment.reference));
      if (!c) return { reject: "no such change" };
      if (c.status === "paid") return "duplicate";
      const byOperator = c.status === "needs_review" && payment.paidVia === "operator";
      if (!PAYABLE.includes(c.status) && !byOperator) return { reject: `the change is ${c.status}` };
      const r = (await repo.findByReference(trx, (await repo.referenceOf(trx, c.registrationId))!))!;
      const eventRow = (await trx("events").where({ id: c.eventId }).first()) as Record<string, unknown>;
      const event = (await findEvent(trx, c.eventId))!;
      const now = deps.clock();
      const why = await cannotApply(deps, trx, c, r, eventRow, event, now, byOperator);
      if (why) {
        await repo.moveChange(trx, c.id, [...PAYABLE, "needs_review"], "rejected", now);
        deps.logger.warn({ reference: r.reference, changeId: c.id, why }, "a paid registration change could no longer apply; refunded");
        return { reject: why };
      }
      await apply(deps, trx, c, r, event, now);
      deps.logger.info({ reference: r.reference, changeId: c.id, kind: c.kind }, "registration change paid and applied");
      return "accepted";
    },

    async onProcessing(trx, payment) {
      const now = deps.clock();
      await repo.keepChangeUntil(trx, changeId(payment.reference), new Date(now.getTime() + PROCESSING_HOLD_MS), now);
    },

    async onReview(trx, payment, reason) {
      if (await repo.moveChange(trx, changeId(payment.reference), PAYABLE, "needs_review", deps.clock())) {
        deps.logger.error({ changeId: payment.reference, reason }, "registration change payment does not match the change: needs_review");
      }
    },

    async onRefunded(trx, payment, refund) {
      const locked = await lockChangeAggregate(trx, changeId(payment.reference));
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
      const locked = await lockChangeAggregate(trx, changeId(payment.reference));
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

/** The payments that hold a registration's money, read before a transaction: its own, then each applied change's. */
export async function moneyPayments(deps: RegistrationDeps, reference: string): Promise<{ own: PaymentRow | undefined; changes: { change: RegistrationChange; payment: PaymentRow }[] }> {
  const own = await deps.paymentCore.latestFor(REGISTRATION_KIND, reference);
  const id = await repo.idOf(deps.db, reference);
  const changes: { change: RegistrationChange; payment: PaymentRow }[] = [];
  for (const change of id === undefined ? [] : await repo.changesOf(deps.db, id, ["paid"])) {
    const payment = await deps.paymentCore.latestFor(CHANGE_KIND, String(change.id));
    if (payment) changes.push({ change, payment });
  }
  return { own, changes };
}

/**
 * The first statements of a transaction that refunds a registration: every payment holding its money locked, in id
 * order (settlement's lock order: payments before the event and the registration).
 */
export async function lockMoneyPayments(trx: Knex.Transaction, money: Awaited<ReturnType<typeof moneyPayments>>, first: (trx: Knex.Transaction, id: number) => Promise<unknown>): Promise<void> {
  const ids = [money.own?.id, ...money.changes.map((c) => c.payment.id)].filter((id): id is number => id !== undefined).sort((a, b) => a - b);
  for (const [i, id] of ids.entries()) {
    if (i === 0) await first(trx, id);
    else await trx("payments").where({ id }).forUpdate().first("id");
  }
}

/** Under the registration's lock: the changes paid are still the ones whose payments were locked (else another tab changed it). */
export async function sameMoneyPayments(trx: Knex.Transaction, registrationId: number, money: Awaited<ReturnType<typeof moneyPayments>>): Promise<boolean> {
  const now = (await repo.changesOf(trx, registrationId, ["paid"])).map((c) => c.id).join(",");
  return now === money.changes.map((c) => c.change.id).join(",");
}

/** What is left to refund over every payment that holds the registration's money. Under the payments' locks. */
export async function refundableAcross(trx: Knex.Transaction, money: Awaited<ReturnType<typeof moneyPayments>>): Promise<number> {
  let left = 0;
  for (const p of payable(money)) left += refundableCents(p.amountCents, await refundsOfPayment(trx, p.id));
  return left;
}

/**
 * Asks for a refund of `cents` spread over the registration's payments, the newest change's first, each up to what is
 * left on it; `key` names the request (the registration's own payment keeps it as it is, a change's gets
 * `:change:{id}`), so a retry never refunds twice. In the caller's transaction, under the payments' locks. Returns the
 * refunds' amounts, one per payment, as the card will show them.
 */
export async function requestRefundAcross(deps: RegistrationDeps, trx: Knex.Transaction, money: Awaited<ReturnType<typeof moneyPayments>>, cents: number, reason: string, key: string): Promise<number[]> {
  let left = cents;
  const parts: number[] = [];
  const order = [...money.changes].reverse().map((c) => ({ payment: c.payment, key: `${key}:change:${c.change.id}` }));
  if (money.own && money.own.provider !== "none") order.push({ payment: money.own, key });
  for (const { payment, key: k } of order) {
    if (left <= 0) break;
    const part = Math.min(left, refundableCents(payment.amountCents, await refundsOfPayment(trx, payment.id)));
    if (part <= 0) continue;
    await deps.paymentCore.requestRefund(trx, payment, { amountCents: part, reason, key: k });
    parts.push(part);
    left -= part;
  }
  return parts;
}

const payable = (money: Awaited<ReturnType<typeof moneyPayments>>) =>
  [money.own, ...money.changes.map((c) => c.payment)].filter((p): p is PaymentRow => p !== undefined && p.provider !== "none");

/**
 * What Stripe has refunded of each payment that paid the registration (its own and its paid changes'), oldest first:
 * one part per payment, as the card shows the refunds.
 */
async function refundedPartsAcross(trx: Knex.Transaction, r: Registration): Promise<number[]> {
  const changeRefs = (await repo.changesOf(trx, r.id, ["paid"])).map((c) => String(c.id));
  const rows: { amount_refunded_cents: unknown }[] = await trx("payments")
    .where((w) => {
      w.where({ kind: REGISTRATION_KIND, reference: r.reference });
      if (changeRefs.length > 0) w.orWhere((c) => { c.where("kind", CHANGE_KIND).whereIn("reference", changeRefs); });
    })
    .orderBy("id")
    .select("amount_refunded_cents");
  return rows.map((row) => Number(row.amount_refunded_cents) || 0).filter((c) => c > 0);
}

/** What Stripe has refunded over every payment that paid the registration. */
export async function refundedAcross(trx: Knex.Transaction, r: Registration): Promise<number> {
  return (await refundedPartsAcross(trx, r)).reduce((sum, c) => sum + c, 0);
}

/**
 * A refund of one of a registration's payments succeeded: the registration's amount refunded becomes the total over
 * every payment that paid it, and once that is everything paid, the registration is refunded (its places freed, the
 * contact e-mailed). Under the aggregate's locks, in the refund's transaction.
 */
export async function syncRegistrationRefunds(deps: RegistrationDeps, trx: Knex.Transaction, r: Registration, ownPaymentFullyRefunded = false): Promise<void> {
  const now = deps.clock();
  const parts = await refundedPartsAcross(trx, r);
  const total = parts.reduce((sum, c) => sum + c, 0);
  if (total > r.amountRefundedCents) await repo.setAmountRefunded(trx, r.id, total, now);
  // A registration in review was never counted as paid (amount_paid_cents 0): its own payment refunded in full is all of it.
  const paid = r.amountPaidCents ?? 0;
  const everything = paid > 0 ? total >= paid : ownPaymentFullyRefunded;
  if (!everything || !(await repo.transition(trx, r.id, "refund", now, { reserved_until: null }))) return;
  await releaseUse(trx, r.id, now);
  await placesFreed(trx, r.eventId);
  const event = await findEvent(trx, r.eventId);
  if (event) await enqueueEmail(trx, registrationRefundedEmail(deps.site, event, r, parts));
}

/**
 * A refund of the registration's money failed for good (Stripe refused it, or took it and then failed it: card 5126),
 * under the aggregate's locks in the refund's transaction, once per refund: the amount refunded goes back to what
 * Stripe still holds as refunded, a canceled or refunded registration reads `refund_failed` (its places stay free; the
 * roster shows it) and its payer gets the correction. The operator sees it in `npm run payments -- refunds failed`.
 */
export async function registrationRefundFailed(deps: RegistrationDeps, trx: Knex.Transaction, r: Registration, refund: RefundRow): Promise<void> {
  const now = deps.clock();
  await repo.setAmountRefunded(trx, r.id, await refundedAcross(trx, r), now);
  // Only a payer who was told of a refund (a cancellation's receipt, the refunded e-mail) is told it failed.
  if (await repo.transition(trx, r.id, "refundFailed", now)) {
    const event = await findEvent(trx, r.eventId);
    if (event) await enqueueEmail(trx, refundFailedEmail(deps.site, event, r, refund.amountCents));
  }
  deps.logger.error({ reference: r.reference, refundId: refund.id, amountCents: refund.amountCents }, "registration refund failed: the payer is told, an operator must refund it again");
}

/**
 * The change's PaymentIntent for its payment page: created, or the same one again (a reload, a second tab, a re-post).
 * Null when the change no longer waits for a payment.
 */
export async function prepareChangePayment(deps: RegistrationDeps, event: Pick<EventDetail, "title">, r: Registration, c: RegistrationChange): Promise<string | null> {
  if (c.status !== "pending" || c.reservedUntil.getTime() <= deps.clock().getTime()) return null;
  const what = c.data.kind === "upgrade" ? `upgrade to ${c.data.packageLabel}` : `${c.places} ${c.places === 1 ? "athlete" : "athletes"} added`;
  const { clientSecret } = await deps.paymentCore.ensureIntent({
    kind: CHANGE_KIND,
    reference: String(c.id),
    amountCents: c.amountCents,
    description: `${event.title}: ${what} (${r.reference})`,
    email: r.contact.email,
  });
  return clientSecret;
}

/**
 * Whether the change's payment is confirmed or being confirmed at Stripe (then nothing may undo it); a confirmed
 * payment is settled here at once.
 */
async function changePaymentUnderWay(deps: RegistrationDeps, c: RegistrationChange): Promise<boolean> {
  const live = await deps.paymentCore.liveFor(CHANGE_KIND, String(c.id));
  if (!live) return false;
  if (!OPEN_STATUSES.includes(live.status)) return true;
  if (!live.providerPaymentId) return false;
  const intent = await deps.paymentCore.gateway.retrieveIntent(live.providerPaymentId);
  if (intent.status === "processing" || intent.status === "requires_action") return true;
  if (intent.status !== "succeeded") return false;
  await deps.paymentCore.settle(live.providerPaymentId, "return");
  return true;
}

/**
 * The registrant lets a pending change go: its PaymentIntent is canceled first (outside any transaction; a payment
 * that went through meanwhile is settled instead and the change is not cancelled), then, under the aggregate's
 * locks, the change is marked cancelled and any places it held are freed for the waiting list.
 */
export async function cancelChange(deps: RegistrationDeps, registrationId: number, id: number): Promise<"cancelled" | "paid"> {
  const c = await repo.findChange(deps.db, id);
  if (!c || c.registrationId !== registrationId) throw new DomainError("not_found", "No such change");
  if (c.status !== "pending") return c.status === "paid" ? "paid" : "cancelled";
  const live = await deps.paymentCore.liveFor(CHANGE_KIND, String(c.id));
  try {
    if (await changePaymentUnderWay(deps, c)) throw new DomainError("conflict", CHANGE_TEXT.cancelTooLate);
    if (live && (await deps.paymentCore.cancel(live)) === "already_succeeded") throw new DomainError("conflict", CHANGE_TEXT.cancelTooLate);
  } catch (err) {
    if (err instanceof DomainError) throw err;
    deps.logger.warn({ err: (err as Error).message, changeId: c.id }, "could not cancel a registration change's PaymentIntent");
    throw new DomainError("upstream_failed", PAYMENT_SETUP_ERROR.message);
  }
  return queuedLockingTransaction(deps.db, repo.eventKey(c.eventId), async (trx) => {
    const locked = await lockChangeAggregate(trx, c.id);
    if (!locked) throw new DomainError("not_found", "No such change");
    if (locked.change.status === "paid") return "paid" as const;
    if (await repo.moveChange(trx, c.id, ["pending"], "cancelled", deps.clock())) {
      if (locked.change.places > 0) await placesFreed(trx, c.eventId);
    }
    return "cancelled" as const;
  });
}

/**
 * The periodic sweep of changes not paid in time (with sweepLapsedHolds, every minute on each instance): the
 * PaymentIntent is canceled (a payment Stripe is still confirming is left to the webhook; one that succeeded
 * meanwhile is settled by the core instead), then the change is marked expired under the aggregate's locks and
 * the waiting list is told of the places it held. Safe with several instances: each step happens once.
 */
export async function sweepLapsedChanges(deps: RegistrationDeps, limit = 50): Promise<number> {
  let swept = 0;
  for (const lapsed of await repo.lapsedChanges(deps.db, deps.clock(), limit)) {
    const live = await deps.paymentCore.liveFor(CHANGE_KIND, String(lapsed.id));
    try {
      if (live?.providerPaymentId) {
        const intent = await deps.paymentCore.gateway.retrieveIntent(live.providerPaymentId);
        if (intent.status === "processing" || intent.status === "requires_action") continue;
      }
      if (live && (await deps.paymentCore.cancel(live)) === "already_succeeded") continue;
    } catch (err) {
      deps.logger.warn({ err: (err as Error).message, changeId: lapsed.id }, "could not cancel a lapsed change's PaymentIntent; the next sweep tries again");
      continue;
    }
    const expired = await queuedLockingTransaction(deps.db, repo.eventKey(lapsed.eventId), async (trx) => {
      const locked = await lockChangeAggregate(trx, lapsed.id);
      const now = deps.clock();
      if (!locked || locked.change.status !== "pending" || locked.change.reservedUntil.getTime() > now.getTime()) return false;
      if (!(await repo.moveChange(trx, lapsed.id, ["pending"], "expired", now))) return false;
      if (locked.change.places > 0) await placesFreed(trx, lapsed.eventId);
      return true;
    });
    if (expired) swept += 1;
  }
  return swept;
}
