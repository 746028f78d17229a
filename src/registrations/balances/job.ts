import { randomUUID } from "node:crypto";
import { isUniqueViolation } from "../../db/rows.ts";
import { lockingTransaction } from "../../db/transaction.ts";
import type { ChargeOutcome, ChargeSavedCardInput } from "../../payments/core.ts";
import { isPermanentRefusal } from "../../payments/gateway.ts";
import { STALE_CLAIM_MS } from "../../db/jobQueue.ts";
import { transition } from "../core/tables/registrations.ts";
import { BALANCE_KIND, type RegistrationDeps } from "../core/deps.ts";
import { queueBalanceEmail as email } from "./notify.ts";
import * as repo from "./repository.ts";
import type { Balance, BalanceCharge } from "./repository.ts";
import { graceEndsAt, MAX_ATTEMPTS, nextAttemptAt } from "./schedule.ts";
import { sendBalanceReminders } from "./reminders.ts";
import { releaseUnpaidBalances } from "./release.ts";
import { balanceAuthenticationEmail, balanceDeclinedEmail, balanceOverdueEmail } from "./email.ts";
import { countBalanceCharge } from "../../metrics/hooks.ts";

/**
 * The balance job (README: Deposits and balances): every app instance runs it each minute. A balance due now (its
 * registration `deposit_paid`, `balance_due_at` passed, the next attempt due) is claimed by inserting its attempt's
 * row in `balance_charges` under the registration's lock (unique per registration and attempt: one instance wins),
 * with the attempt's own Stripe idempotency key. The charge runs after that commits, never inside a transaction.
 * An attempt whose claimer died (claimed longer than STALE_CLAIM_MS ago) or whose call failed before Stripe answered
 * is sent again with the SAME key: Stripe answers with the first attempt's charge, so there is never a second charge
 * and never a lost attempt. Outcomes: succeeded (the payment kind settles the registration paid, once, with the
 * receipt), authentication_required (no retry: the payer gets a link to pay on the manage page), a soft decline
 * (tried again 1, 3 and 7 days after the due date, each failure e-mailed), a hard decline or the last attempt
 * failed (balance_overdue: places kept until the grace date, see release.ts).
 */

/** One pass of the balances' periodic work, in this order: the reminders, the charges due, the grace releases. */
export async function runBalanceJob(deps: RegistrationDeps): Promise<{ reminded: number; charged: number; released: number }> {
  const reminded = await sendBalanceReminders(deps);
  const charged = await chargeDueBalances(deps);
  const released = await releaseUnpaidBalances(deps);
  await reportUndecidedBalances(deps);
  return { reminded, charged, released };
}

/** A balance the job has not charged nor declined this long after it should have is reported (not a slow moment). */
export const UNDECIDED_AFTER_MS = 60 * 60_000;

/** Each pass: the balances past due the job has not settled either way (undecidedPastDue), one line at error. */
async function reportUndecidedBalances(deps: RegistrationDeps): Promise<void> {
  const undecided = await repo.undecidedPastDue(deps.db, deps.clock(), UNDECIDED_AFTER_MS);
  if (undecided.length === 0) return;
  deps.logger.error({ references: undecided.map((b) => b.reference) }, `${undecided.length} balance(s) past their due date, neither paid nor overdue: see npm run payments -- balances`);
}

/** What an attempt came to: the payment core's answer, or a decline without Stripe (no card saved). */
type ChargeAnswer = ChargeOutcome | { outcome: "declined"; code: string; declineCode: string | null; hard: boolean; message: string; payment?: undefined };

/** What the charge row and the payer's e-mail say of an attempt Stripe refused for a reason no retry can cure. */
const REFUSED_CODE = "refused_by_stripe";
const REFUSED_MESSAGE = "The saved card could not be used for this payment.";

/** A call that failed before Stripe answered is sent again (same attempt, same key) this much later. */
export const CALL_RETRY_MS = 5 * 60_000;

/**
 * Charges every balance whose attempt is due (at most `limit` per pass), after taking over the attempts whose
 * claimer went silent or whose call failed. Resolves with the attempts made.
 */
export async function chargeDueBalances(deps: RegistrationDeps, limit = 50): Promise<number> {
  let made = 0;
  const now = deps.clock();
  for (const stale of await repo.staleCharges(deps.db, now, new Date(now.getTime() - STALE_CLAIM_MS), limit)) {
    if (await resumeAttempt(deps, stale)) made += 1;
  }
  for (const balance of await repo.dueBalances(deps.db, deps.clock(), limit)) {
    const charge = await claimAttempt(deps, balance);
    if (!charge) continue;
    await runAttempt(deps, balance, charge);
    made += 1;
  }
  if (made > 0) deps.outbox.wake();
  return made;
}

/**
 * An attempt left behind: taken over (one instance wins) and sent again with its own key while the balance is owed.
 * When nothing is owed any more (its charge, or another payment, settled it meanwhile) it is not sent again: it reads
 * succeeded when a balance payment was paid, else dropped.
 */
async function resumeAttempt(deps: RegistrationDeps, stale: BalanceCharge): Promise<boolean> {
  const now = deps.clock();
  const charge = await repo.takeOver(deps.db, stale, now, new Date(now.getTime() - STALE_CLAIM_MS));
  const balance = charge && (await repo.balanceById(deps.db, charge.registrationId));
  if (!charge || !balance) return false;
  if (balance.status === "deposit_paid") {
    await runAttempt(deps, balance, charge);
    return true;
  }
  const paymentId = await repo.paidBalancePaymentId(deps.db, BALANCE_KIND, balance.reference);
  await repo.finishCharge(deps.db, charge, paymentId === undefined ? { status: "dropped", lastError: `not sent again: the registration is ${balance.status}` } : { status: "succeeded", paymentId }, now);
  return false;
}

/** A new attempt this instance now owns, or null: nothing due, one in flight, or another instance has it. */
async function claimAttempt(deps: RegistrationDeps, balance: Balance): Promise<BalanceCharge | null> {
  const now = deps.clock();
  const latest = await repo.latestCharge(deps.db, balance.registrationId);
  if (latest && !(latest.status === "declined" && latest.nextAttemptAt && latest.nextAttemptAt.getTime() <= now.getTime())) return null;
  const attempt = (latest?.attempt ?? 0) + 1;
  if (attempt > MAX_ATTEMPTS) return null;
  try {
    return await lockingTransaction(deps.db, async (trx) => {
      if (!(await repo.lockRegistration(trx, balance.registrationId))) return null;
      // Decided under the lock: still owed, and no other instance made this attempt since the read above.
      const b = (await repo.balanceOf(trx, balance.reference))!;
      const last = await repo.latestCharge(trx, balance.registrationId);
      if (b.status !== "deposit_paid" || b.owedCents <= 0 || (last?.attempt ?? 0) !== attempt - 1) return null;
      return repo.insertClaim(trx, { registrationId: b.registrationId, attempt, idempotencyKey: idempotencyKey(b.reference, attempt), amountCents: b.owedCents }, now);
    });
  } catch (err) {
    if (isUniqueViolation(err)) return null;
    throw err;
  }
}

/** Unique per attempt, and per database (a random part: two databases never share Stripe keys). */
function idempotencyKey(reference: string, attempt: number): string {
  return `balance-${reference}-${attempt}-${randomUUID().slice(0, 8)}`;
}

async function runAttempt(deps: RegistrationDeps, balance: Balance, charge: BalanceCharge): Promise<void> {
  let answer: ChargeAnswer;
  try {
    answer = await chargeSavedCard(deps, balance, charge);
  } catch (err) {
    const message = (err as Error).message;
    if (isPermanentRefusal(err)) {
      // Stripe refused the request itself (a card of another Customer, a Customer deleted...): sent again, it is
      // refused again. The decline path, as a hard decline: overdue, e-mailed, released at the grace date.
      deps.logger.error({ reference: balance.reference, attempt: charge.attempt, err: message }, "balance charge refused by Stripe; no retry can cure it");
      countBalanceCharge(deps.db, "declined");
      await recordOutcome(deps, balance, charge, { outcome: "declined", code: REFUSED_CODE, declineCode: null, hard: true, message: REFUSED_MESSAGE });
      return;
    }
    // Whether Stripe took it is unknown: the same attempt goes again with the same key, which Stripe answers once.
    countBalanceCharge(deps.db, "no_answer");
    await repo.finishCharge(deps.db, charge, { status: "retry", lastError: message, nextAttemptAt: new Date(deps.clock().getTime() + CALL_RETRY_MS) }, deps.clock());
    deps.logger.warn({ reference: balance.reference, attempt: charge.attempt, err: message }, "balance charge did not get an answer; sent again later with the same key");
    return;
  }
  countBalanceCharge(deps.db, answer.outcome);
  await recordOutcome(deps, balance, charge, answer);
}

async function chargeSavedCard(deps: RegistrationDeps, b: Balance, charge: BalanceCharge): Promise<ChargeAnswer> {
  if (!b.customerId || !b.paymentMethodId) return { outcome: "declined", code: "no_saved_card", declineCode: null, hard: true, message: "no card is saved for this registration" };
  return deps.paymentCore.chargeSavedCard(chargeInput(b, { customerId: b.customerId, paymentMethodId: b.paymentMethodId }, charge));
}

/**
 * What an attempt asks Stripe for: only what the claim row and the saved card fix, so that the attempt sent again
 * after a crash is the same request (Stripe refuses a key reused with other parameters).
 */
export function chargeInput(b: Pick<Balance, "reference">, card: { customerId: string; paymentMethodId: string }, charge: Pick<BalanceCharge, "attempt" | "amountCents" | "idempotencyKey">): ChargeSavedCardInput {
  return {
    kind: BALANCE_KIND,
    reference: b.reference,
    group: b.reference,
    ...card,
    amountCents: charge.amountCents,
    description: `Balance of registration ${b.reference}`,
    idempotencyKey: charge.idempotencyKey,
    metadata: { attempt: String(charge.attempt) },
  };
}

/** The attempt's outcome, written by its claimer only (a claim taken over meanwhile is the taker's to write). */
async function recordOutcome(deps: RegistrationDeps, balance: Balance, charge: BalanceCharge, answer: ChargeAnswer): Promise<void> {
  const log = { reference: balance.reference, attempt: charge.attempt };
  if (answer.outcome === "succeeded") {
    // The payment core settled it (the payment kind made the registration paid and queued the receipt, once).
    await repo.finishCharge(deps.db, charge, { status: "succeeded", paymentId: answer.payment.id }, deps.clock());
    deps.logger.info(log, "balance charged");
    return;
  }
  if (answer.outcome === "processing") {
    // Stripe is still deciding: the same attempt is asked again later with its key (the webhook may settle it first).
    await repo.finishCharge(deps.db, charge, { status: "retry", paymentId: answer.payment.id, lastError: "processing at Stripe", nextAttemptAt: new Date(deps.clock().getTime() + CALL_RETRY_MS) }, deps.clock());
    return;
  }
  if (answer.outcome === "not_kept") {
    // Charged, but the registration did not take it (paid another way meanwhile: refunded; or in review for the operator).
    await repo.finishCharge(deps.db, charge, { status: "dropped", paymentId: answer.payment.id, lastError: answer.reason }, deps.clock());
    deps.logger.error({ ...log, reason: answer.reason }, "balance charged but not kept by the registration: refunded or in review");
    return;
  }
  await lockingTransaction(deps.db, async (trx) => {
    if (!(await repo.lockRegistration(trx, balance.registrationId))) return;
    const now = deps.clock();
    const b = (await repo.balanceOf(trx, balance.reference))!;
    if (answer.outcome === "authentication_required") {
      if (!(await repo.finishCharge(trx, charge, { status: "authentication_required", paymentId: answer.payment.id }, now))) return;
      if (b.status === "deposit_paid") await email(deps, trx, b, (event, r, url) => balanceAuthenticationEmail(deps.site, event, r, b, graceEndsAt(b.dueAt!, b.graceDays), url));
      deps.logger.warn(log, "balance charge needs the cardholder's authentication: link e-mailed");
      return;
    }
    const next = answer.hard || charge.attempt >= MAX_ATTEMPTS ? null : nextAttemptAt(b.dueAt!, charge.attempt, now);
    const fields = { status: "declined" as const, paymentId: answer.payment?.id ?? null, declineCode: answer.declineCode ?? answer.code, hardDecline: answer.hard, lastError: answer.message, nextAttemptAt: next };
    if (!(await repo.finishCharge(trx, charge, fields, now))) return;
    if (next) {
      if (b.status === "deposit_paid") await email(deps, trx, b, (event, r, url) => balanceDeclinedEmail(deps.site, event, r, b, answer.message, next, url));
      deps.logger.warn({ ...log, declineCode: fields.declineCode }, "balance charge declined; tried again later");
      return;
    }
    if (await transition(trx, b.registrationId, "balanceOverdue", now)) {
      await email(deps, trx, b, (event, r, url) => balanceOverdueEmail(deps.site, event, r, b, answer.message, graceEndsAt(b.dueAt!, b.graceDays), url));
      deps.logger.error({ ...log, declineCode: fields.declineCode, hard: answer.hard }, "balance overdue: places kept until the grace date");
    }
  });
}
