import type { Knex } from "knex";
import { DomainError, type DiscountRefusalReason, type DomainErrorKind } from "../../../errors.ts";
import { PaymentNotOpenError, type AmountChange } from "../../../payments/core.ts";
import { queuedLockingTransaction } from "../../../db/rowQueue.ts";
import * as codes from "../../../discounts/repository.ts";
import { DISCOUNT_REASONS, DISCOUNT_TEXT, MAX_CODE_LENGTH, discountAmount, normalizeCode, refusal, type DiscountAmount, type DiscountCode } from "../../../shared/discounts/rules.ts";
import { eventKey, lockCode, lockEvent } from "../locks.ts";
import { redemptionOf, type Redemption } from "./redemptions.ts";
import type { Registration } from "../registration.ts";
import { findByReference, lockByReference, setAmount } from "../tables/registrations.ts";
import * as redemptions from "./redemptions.ts";
import { holdIsLive, REGISTRATION_KIND, type RegistrationDeps } from "../deps.ts";
import { amountDueNow } from "./deposit.ts";
import { preparePayment } from "./payment.ts";

/**
 * A discount code on a registration: the pieces every use case runs inside its locked transaction (find and lock the
 * code, decide its limit, hold, re-price, redeem, release its use), and the two use cases of the payment step:
 * apply a code, remove it.
 */

/** A refusal the visitor can act on: the message says why; its reason gives its kind, and so its status (src/http/errors.ts). */
export class DiscountRefused extends DomainError {
  declare readonly reason: DiscountRefusalReason;
  constructor(reason: DiscountRefusalReason, message: string) {
    super(DISCOUNT_REFUSAL_KIND[reason], message, reason);
  }
}
const DISCOUNT_REFUSAL_KIND: Record<DiscountRefusalReason, DomainErrorKind> = {
  discount_missing: "invalid",
  discount_too_long: "unprocessable",
  discount_unknown: "unprocessable",
  discount_not_usable: "unprocessable",
  discount_not_free: "unprocessable",
  discount_no_registration: "conflict",
  discount_payment_under_way: "conflict",
  discount_free_failed: "conflict",
};

/** The code as typed, upper-cased and trimmed; refused when empty (or not sent) or too long. */
export function codeText(raw: unknown): string {
  const code = normalizeCode(typeof raw === "string" ? raw : "");
  if (!code) throw new DiscountRefused("discount_missing", DISCOUNT_TEXT.missing);
  if (code.length > MAX_CODE_LENGTH) throw new DiscountRefused("discount_too_long", DISCOUNT_REASONS.tooLong);
  return code;
}

/** 2nd in the lock order: the code named by `raw`, its row locked; refused when there is none. */
export async function lockCodeNamed(trx: Knex.Transaction, raw: string): Promise<DiscountCode> {
  const found = await codes.lockCodeNamed(trx, codeText(raw));
  if (!found) throw new DiscountRefused("discount_unknown", DISCOUNT_REASONS.unknown);
  return found;
}

/** The code named, read without a lock (a new hold takes its use last: codeLast.ts); refused when there is none. */
export async function codeNamed(conn: Knex.Transaction, raw: string): Promise<DiscountCode> {
  const found = await codes.findCode(conn, codeText(raw));
  if (!found) throw new DiscountRefused("discount_unknown", DISCOUNT_REASONS.unknown);
  return found;
}

/**
 * A new hold's price with the code as read without its lock: refused when the code may not be used now for reasons
 * other than its limit, which is decided when the use is taken (codeLast.ts).
 */
export function priceBeforeUse(code: DiscountCode, r: Pick<Registration, "eventId" | "kind" | "listPriceCents">, now: Date): DiscountAmount {
  const reason = refusal(code, { eventId: r.eventId, kind: r.kind, now, usesTaken: 0 });
  if (reason) throw new DiscountRefused("discount_not_usable", reason);
  return discountAmount(r.listPriceCents, code);
}

/** Under the code's lock: why this registration may not use the code now (its limit counts every other live use). */
export async function refuseUse(trx: Knex.Transaction, code: DiscountCode, r: Pick<Registration, "id" | "eventId" | "kind">, now: Date): Promise<void> {
  const reason = refusal(code, { eventId: r.eventId, kind: r.kind, now, usesTaken: await redemptions.usesTaken(trx, code.id, now, r.id) });
  if (reason) throw new DiscountRefused("discount_not_usable", reason);
}

/** Under the locks: the code's use held by the registration at its list price; returns the amount to pay. */
export async function holdUse(trx: Knex.Transaction, code: DiscountCode, r: Pick<Registration, "id" | "eventId" | "kind" | "listPriceCents">, now: Date): Promise<DiscountAmount> {
  await refuseUse(trx, code, r, now);
  const amount = discountAmount(r.listPriceCents, code);
  await redemptions.putRedemption(trx, r.id, code.id, amount.offCents, "held", now);
  return amount;
}

/**
 * The same form came back and the registration was held again at `listCents`: a code held by a live hold stays,
 * re-priced; one whose hold had lapsed is dropped (its use may have gone to someone else) and the visitor applies it
 * again. Returns the amount to pay.
 */
export async function repriceHeldUse(trx: Knex.Transaction, registrationId: number, wasLive: boolean, listCents: number, now: Date): Promise<number> {
  const found = await redemptionOf(trx, registrationId);
  if (!found || found.status === "redeemed") return listCents;
  if (!wasLive || found.status !== "held") {
    await redemptions.deleteRedemption(trx, registrationId);
    return listCents;
  }
  const amount = discountAmount(listCents, (await codes.findCodeById(trx, found.codeId))!);
  await redemptions.setAmountOff(trx, registrationId, amount.offCents, now);
  return amount.finalCents;
}

export type RedeemOutcome = { redemption: Redemption | undefined } | { reject: string };

/**
 * When the registration is paid: a use held by a live hold becomes redeemed; one whose hold lapsed is redeemed only
 * while the code still has a use left (the code's row was locked by the settling transaction before the registration's).
 */
export async function redeemUse(trx: Knex.Transaction, registrationId: number, holdLive: boolean, now: Date, known?: Redemption | null): Promise<RedeemOutcome> {
  // `known`: read under the registration's lock in this transaction (null: none); otherwise read here.
  const found = known === undefined ? await redemptionOf(trx, registrationId) : (known ?? undefined);
  if (!found || found.status === "redeemed") return { redemption: found };
  if (!(found.status === "held" && holdLive)) {
    const code = await codes.findCodeById(trx, found.codeId);
    const taken = await redemptions.usesTaken(trx, found.codeId, now, registrationId);
    if (code?.maxRedemptions !== null && code?.maxRedemptions !== undefined && taken >= code.maxRedemptions) {
      return { reject: `the hold expired and discount code ${found.code} was used up` };
    }
  }
  await redemptions.setRedemptionStatus(trx, registrationId, ["held", "released"], "redeemed", now);
  return { redemption: { ...found, status: "redeemed" } };
}

/** The hold lapsed, or the registration was refunded: the code's use goes back. */
export async function releaseUse(trx: Knex.Transaction, registrationId: number, now: Date): Promise<void> {
  await redemptions.setRedemptionStatus(trx, registrationId, ["held", "redeemed"], "released", now);
}

/** The code's row id, read before the lock order reaches the code (the event lock is already held). */
export async function codeIdOf(trx: Knex.Transaction, registrationId: number): Promise<number | undefined> {
  return (await redemptionOf(trx, registrationId))?.codeId;
}

export interface AppliedDiscount {
  code: string;
  amount: DiscountAmount;
  listCents: number;
  /** The card form's new client secret; null when free (no Stripe call) or when the amount change failed. */
  clientSecret: string | null;
  /** false: the code is held but the PaymentIntent could not be given the new amount (refresh to continue). */
  paymentUpdated: boolean;
}

/** The pending registration, locked third; refused when it no longer holds its places. */
async function lockPending(trx: Knex.Transaction, reference: string, now: Date): Promise<Registration> {
  const r = await lockByReference(trx, reference);
  if (!r || !holdIsLive(r, now)) throw new DiscountRefused("discount_no_registration", DISCOUNT_REASONS.noRegistration);
  return r;
}

/**
 * Applies (or replaces) the registration's code so that the answer, the registration and its payment always agree,
 * whatever another tab's card does meanwhile (DESIGN: frozen from the moment a payment is confirmed or being
 * confirmed). One transaction locks the payment, the event, the code and the registration, decides the limit, holds
 * the use, sets the amount (a new version) and marks the payment's amount change in flight (a settlement waits for
 * it). After the commit Stripe is asked for the new amount: it refuses once the card is confirmed, and then the code is
 * undone in one more transaction (the payment covers the undone version) and the visitor hears that nothing changed;
 * the payment then settles as charged, paid, never in review. A free amount cancels the PaymentIntent the same way.
 */
export async function applyCode(deps: RegistrationDeps, registration: Registration, raw: string): Promise<AppliedDiscount> {
  const now = deps.clock();
  const text = codeText(raw);
  const live = await deps.paymentCore.liveFor(REGISTRATION_KIND, registration.reference);
  const { code, amount, held, before, change } = await queuedLockingTransaction(deps.db, eventKey(registration.eventId), async (trx) => {
    const payment = await deps.paymentCore.beginAmountChange(trx, live);
    await lockEvent(trx, registration.eventId);
    const code = await lockCodeNamed(trx, text);
    const r = await lockPending(trx, registration.reference, now);
    const before = { redemption: await redemptionOf(trx, r.id), amountCents: r.amountCents };
    const amount = await holdUse(trx, code, r, now);
    await setAmount(trx, r.id, amount.finalCents, r.version + 1, now);
    const held = (await findByReference(trx, r.reference))!;
    // Free: the PaymentIntent is canceled (no card may be charged for a free registration), or the code undone.
    const change = payment ? await payment.to(amountDueNow(held), held.version) : undefined;
    return { code, amount, held, before, change };
  });
  const applied: AppliedDiscount = { code: code.code, amount, listCents: held.listPriceCents, clientSecret: null, paymentUpdated: true };
  if (change) {
    const pushed = await pushOrUndo(deps, held, before, change);
    if (pushed === "unsure") {
      applied.paymentUpdated = false;
      return applied;
    }
    applied.clientSecret = pushed.clientSecret;
  }
  if (amount.free) return applied;
  try {
    applied.clientSecret = await preparePayment(deps, held);
  } catch (err) {
    // The card was confirmed after Stripe took the new amount: it was charged with the code, which stays applied.
    if (!(err instanceof PaymentNotOpenError)) {
      deps.logger.error({ err: (err as Error).message, reference: held.reference }, "discount held, but the PaymentIntent could not be prepared");
      applied.paymentUpdated = applied.clientSecret !== null;
    }
  }
  return applied;
}

type Before = { redemption: Redemption | undefined; amountCents: number };

/**
 * After the commit of a code's change (applied or removed): Stripe is asked for the new amount. Taken: its client
 * secret. Refused: the change is undone, and the card confirmed meanwhile is settled as charged (PaymentNotOpenError,
 * the 409 "nothing changed"), or an Error when Stripe kept the old amount of a PaymentIntent nobody is paying (the
 * 503, nothing changed). `unsure`: Stripe could not say what it holds; the change stays (the page is refreshed).
 */
async function pushOrUndo(deps: RegistrationDeps, held: Registration, before: Before, change: AmountChange): Promise<{ clientSecret: string | null } | "unsure"> {
  let pushed: Awaited<ReturnType<RegistrationDeps["paymentCore"]["pushAmountChange"]>>;
  try {
    pushed = await deps.paymentCore.pushAmountChange(change);
  } catch (err) {
    deps.logger.error({ err: (err as Error).message, reference: held.reference }, "discount changed, but the PaymentIntent's amount could not be changed");
    return "unsure";
  }
  if (pushed.applied) return { clientSecret: pushed.clientSecret };
  await undoCode(deps, held, before, change, pushed.intent.amountCents);
  const confirmed = pushed.intent.status === "succeeded" || pushed.intent.status === "processing";
  if (!confirmed) throw new Error(`Stripe kept ${pushed.intent.amountCents} on ${held.reference}'s PaymentIntent (${pushed.intent.status}): the code change was undone`);
  // The card was confirmed meanwhile (another tab), for the amount before the change: settled as charged, paid.
  const payment = await deps.paymentCore.settle(change.intentId, "return").then((r) => r.payment).catch(() => undefined);
  throw new PaymentNotOpenError(payment ?? (await deps.paymentCore.liveFor(REGISTRATION_KIND, held.reference))!);
}

/**
 * Stripe kept the amount before the code (the card was confirmed meanwhile): the registration goes back to what it was
 * (its code, or none, and its amount) in a new version, which the payment then covers, so it settles as paid.
 */
async function undoCode(deps: RegistrationDeps, held: Registration, before: Before, change: AmountChange, stripeCents: number): Promise<void> {
  const now = deps.clock();
  await queuedLockingTransaction(deps.db, eventKey(held.eventId), async (trx) => {
    await deps.paymentCore.abandonAmountChange(trx, change, stripeCents, held.version + 1);
    await lockEvent(trx, held.eventId);
    const applied = await codeIdOf(trx, held.id);
    for (const id of [...new Set([applied, before.redemption?.codeId].filter((c): c is number => c !== undefined))].sort((a, b) => a - b)) await lockCode(trx, id);
    const r = (await lockByReference(trx, held.reference))!;
    if (before.redemption) {
      await redemptions.putRedemption(trx, r.id, before.redemption.codeId, before.redemption.amountOffCents, before.redemption.status === "redeemed" ? "redeemed" : "held", now);
    } else {
      await redemptions.deleteRedemption(trx, r.id);
    }
    await setAmount(trx, r.id, before.amountCents, held.version + 1, now);
  });
}

/**
 * Takes the code off before paying: the use goes back, the amount returns to the list price on the same PaymentIntent,
 * decided with the payment's amount change as applyCode does (a card confirmed meanwhile undoes it: 409).
 */
export async function removeCode(deps: RegistrationDeps, registration: Registration): Promise<{ clientSecret: string | null; amountCents: number }> {
  const now = deps.clock();
  const live = await deps.paymentCore.liveFor(REGISTRATION_KIND, registration.reference);
  const { held, before, change } = await queuedLockingTransaction(deps.db, eventKey(registration.eventId), async (trx) => {
    const payment = await deps.paymentCore.beginAmountChange(trx, live);
    await lockEvent(trx, registration.eventId);
    const r = await lockPending(trx, registration.reference, now);
    const before = { redemption: await redemptionOf(trx, r.id), amountCents: r.amountCents };
    await redemptions.deleteRedemption(trx, r.id);
    await setAmount(trx, r.id, r.listPriceCents, r.version + 1, now);
    const held = (await findByReference(trx, r.reference))!;
    const change = payment ? await payment.to(amountDueNow(held), held.version) : undefined;
    return { held, before, change };
  });
  const pushed = change ? await pushOrUndo(deps, held, before, change) : undefined;
  if (pushed && pushed !== "unsure" && pushed.clientSecret) return { clientSecret: pushed.clientSecret, amountCents: held.amountCents };
  return { clientSecret: await preparePayment(deps, held), amountCents: held.amountCents };
}

/** What the payment step shows about the registration's code. */
export interface ShownDiscount {
  code: string;
  offCents: number;
  listCents: number;
  type: string;
  value: number;
}

/** What the payment step shows about the registration's code: null when none is held. */
export async function discountOf(deps: Pick<RegistrationDeps, "db">, registration: Registration): Promise<ShownDiscount | null> {
  const found = await redemptionOf(deps.db, registration.id);
  if (!found || found.status === "released") return null;
  return { code: found.code, offCents: found.amountOffCents, listCents: registration.listPriceCents, type: found.codeType, value: found.codeValue };
}

/** The same, for a code the caller has just held (holdUse): nothing to read back. */
export function shownDiscount(code: DiscountCode, amount: DiscountAmount, listCents: number): ShownDiscount {
  return { code: code.code, offCents: amount.offCents, listCents, type: code.type, value: code.value };
}
