import type { Knex } from "knex";
import { lockForUpdate } from "../db/locks.ts";
import { DomainError } from "../errors.ts";
import { toDate } from "../db/rows.ts";
import { enqueueEmail } from "../email/outbox.ts";
import { findEvent } from "../events/repository.ts";
import { PaymentNotOpenError } from "../payments/core.ts";
import { REGISTRATION_KIND, intentDescription, type RegistrationDeps } from "../registration/individual.ts";
import * as registrations from "../registration/repository.ts";
import type { Registration } from "../registration/repository.ts";
import { registrationConfirmationEmail } from "../registration/email.ts";
import { DISCOUNT_REASONS, DISCOUNT_TEXT, MAX_CODE_LENGTH, discountAmount, normalizeCode, refusal, type DiscountAmount } from "./rules.ts";
import * as repo from "./repository.ts";

/**
 * Discount codes on a pending registration: apply (hold one use with the registration's hold and change the
 * amount of its one PaymentIntent), remove, and complete a free registration without any charge.
 */

/** A refusal the visitor can act on: the message says why; the discount routes answer it with `status`. */
export class DiscountRefused extends DomainError {
  constructor(
    message: string,
    readonly status: 400 | 409 | 422,
  ) {
    super(status === 409 ? "conflict" : "invalid", message);
  }
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

const clockOf = (deps: RegistrationDeps) => (deps.now ?? (() => new Date()))();

function checkCodeText(raw: string): string {
  const code = normalizeCode(raw);
  if (!code) throw new DiscountRefused(DISCOUNT_TEXT.missing, 400);
  if (code.length > MAX_CODE_LENGTH) throw new DiscountRefused(DISCOUNT_REASONS.tooLong, 422);
  return code;
}

/** The registration row read again inside a transaction: it must still hold its place. */
async function lockedPending(trx: Knex.Transaction, registrationId: number, now: Date) {
  const row = await trx("registrations").where({ id: registrationId }).first("id", "event_id", "kind", "status", "reserved_until", "list_price_cents");
  const live = row && row.status === "pending_payment" && (toDate(row.reserved_until)?.getTime() ?? 0) > now.getTime();
  return live ? row : undefined;
}

async function intentFor(deps: RegistrationDeps, registration: Registration, amountCents: number): Promise<string> {
  const event = await findEvent(deps.db, registration.eventId);
  const { clientSecret } = await deps.paymentCore.ensureIntent({
    kind: REGISTRATION_KIND,
    reference: registration.reference,
    amountCents,
    description: intentDescription(event ?? { title: "Event" }, registration),
    email: registration.contact.email,
  });
  return clientSecret;
}

/**
 * Applies (or replaces) the registration's code. The limit is decided in a transaction whose first statement
 * locks the code's row; the use is held with the registration's hold. Then, outside the transaction, the same
 * PaymentIntent gets the new amount; a free amount makes no Stripe call at all.
 */
export async function applyDiscount(deps: RegistrationDeps, registration: Registration, raw: string): Promise<AppliedDiscount> {
  const { code, amount } = await holdCode(deps, registration, raw);
  const applied: AppliedDiscount = { code, amount, listCents: registration.listPriceCents, clientSecret: null, paymentUpdated: true };
  if (amount.free) return applied;
  try {
    applied.clientSecret = await intentFor(deps, registration, amount.finalCents);
  } catch (err) {
    deps.logger.error({ err: (err as Error).message, reference: registration.reference }, "discount held, but the PaymentIntent's amount could not be changed");
    applied.paymentUpdated = false;
  }
  return applied;
}

/**
 * A code entered with step 1, checked before anything is held (no lock: the locked check follows in holdCode).
 * `formSessionId` finds the registration the same form made before, whose own use does not count against it.
 */
export async function precheckCode(deps: RegistrationDeps, eventId: number, formSessionId: string, raw: string, kind: "individual" | "team" = "individual"): Promise<void> {
  const text = checkCodeText(raw);
  const code = await repo.findCode(deps.db, text);
  if (!code) throw new DiscountRefused(DISCOUNT_REASONS.unknown, 422);
  const existing = await registrations.findByFormSession(deps.db, formSessionId);
  const now = clockOf(deps);
  const reason = refusal(code, { eventId, kind, now, usesTaken: await repo.usesTaken(deps.db, code.id, now, existing?.id) });
  if (reason) throw new DiscountRefused(reason, 422);
}

/** The transaction of applying a code: the code's row locked first, the limit decided, the use held, the amount set. */
export async function holdCode(deps: RegistrationDeps, registration: Registration, raw: string): Promise<{ code: string; amount: DiscountAmount }> {
  const text = checkCodeText(raw);
  const now = clockOf(deps);
  const code = await repo.findCode(deps.db, text);
  if (!code) throw new DiscountRefused(DISCOUNT_REASONS.unknown, 422);

  const amount = await deps.db.transaction(async (trx) => {
    await lockForUpdate(trx, "discount_codes", code.id);
    const row = await lockedPending(trx, registration.id, now);
    if (!row) throw new DiscountRefused(DISCOUNT_REASONS.noRegistration, 409);
    const current = (await repo.findCodeById(trx, code.id))!;
    const taken = await repo.usesTaken(trx, code.id, now, registration.id);
    const reason = refusal(current, { eventId: Number(row.event_id), kind: row.kind === "team" ? "team" : "individual", now, usesTaken: taken });
    if (reason) throw new DiscountRefused(reason, 422);
    const result = discountAmount(Number(row.list_price_cents), current);
    await repo.putRedemption(trx, registration.id, code.id, result.offCents, "held", now);
    await trx("registrations").where({ id: registration.id }).update({ amount_cents: result.finalCents, updated_at: now });
    return result;
  });
  return { code: code.code, amount };
}

/** Takes the code off before paying: the use goes back, the amount returns to the list price on the same PaymentIntent. */
export async function removeDiscount(deps: RegistrationDeps, registration: Registration): Promise<{ clientSecret: string }> {
  const now = clockOf(deps);
  await deps.db.transaction(async (trx) => {
    const row = await lockedPending(trx, registration.id, now);
    if (!row) throw new DiscountRefused(DISCOUNT_REASONS.noRegistration, 409);
    await repo.deleteRedemption(trx, registration.id);
    await trx("registrations").where({ id: registration.id }).update({ amount_cents: row.list_price_cents, updated_at: now });
  });
  return { clientSecret: await intentFor(deps, registration, registration.listPriceCents) };
}

export type FreeOutcome = { status: "free" } | { status: "paid" };

/**
 * Completes a registration that a code makes free: the code is checked again, an earlier PaymentIntent is
 * canceled (should it have succeeded meanwhile, the registration is paid by card, not free), then one
 * transaction that first locks the code's row takes the use, records the free settlement in the payment core
 * (no Stripe call) and queues the confirmation e-mail.
 */
export async function completeFree(deps: RegistrationDeps, registration: Registration, raw: string | undefined): Promise<FreeOutcome> {
  if (registration.status === "paid") return { status: "paid" };
  const now = clockOf(deps);
  const applied = await repo.redemptionOf(deps.db, registration.id);
  const text = checkCodeText(raw?.trim() ? raw : (applied?.code ?? ""));
  const code = await repo.findCode(deps.db, text);
  if (!code) throw new DiscountRefused(DISCOUNT_REASONS.unknown, 422);
  const ctx = { eventId: registration.eventId, kind: registration.kind, now };

  // A first check without the lock, so that a hopeless attempt does not cancel the visitor's PaymentIntent.
  const early = refusal(code, { ...ctx, usesTaken: await repo.usesTaken(deps.db, code.id, now, registration.id) });
  if (early) throw new DiscountRefused(early, 422);
  if (!discountAmount(registration.listPriceCents, code).free) throw new DiscountRefused(DISCOUNT_REASONS.notFree, 422);

  const live = await deps.paymentCore.liveFor(REGISTRATION_KIND, registration.reference);
  if (live && live.provider !== "none") {
    if ((await deps.paymentCore.cancel(live)) === "already_succeeded") {
      const now2 = await registrations.findByReference(deps.db, registration.reference);
      if (now2?.status === "paid") return { status: "paid" };
      throw new DiscountRefused(DISCOUNT_TEXT.freeFailed, 409);
    }
  }

  const outcome = await deps.db.transaction(async (trx): Promise<FreeOutcome> => {
    await lockForUpdate(trx, "discount_codes", code.id);
    const current = await trx("registrations").where({ id: registration.id }).first("status");
    if (current?.status === "paid") return { status: "paid" };
    if (!(await lockedPending(trx, registration.id, now))) throw new DiscountRefused(DISCOUNT_REASONS.noRegistration, 409);
    const locked = (await repo.findCodeById(trx, code.id))!;
    const reason = refusal(locked, { ...ctx, usesTaken: await repo.usesTaken(trx, code.id, now, registration.id) });
    if (reason) throw new DiscountRefused(reason, 422);
    const amount = discountAmount(registration.listPriceCents, locked);
    if (!amount.free) throw new DiscountRefused(DISCOUNT_REASONS.notFree, 422);
    await repo.putRedemption(trx, registration.id, code.id, amount.offCents, "redeemed", now);
    await trx("registrations").where({ id: registration.id }).update({ amount_cents: 0 });
    try {
      await deps.paymentCore.recordFree(trx, REGISTRATION_KIND, registration.reference);
    } catch (err) {
      // A PaymentIntent came back to life between the cancel and now (another tab): nothing is recorded.
      if (err instanceof PaymentNotOpenError) throw new DiscountRefused(DISCOUNT_TEXT.freeFailed, 409);
      throw err;
    }
    if (!(await registrations.markPaid(trx, registration.id, 0, now))) throw new DiscountRefused(DISCOUNT_TEXT.freeFailed, 409);
    const paid = (await registrations.findByReference(trx, registration.reference))!;
    const event = await findEvent(trx, paid.eventId);
    if (event) await enqueueEmail(trx, registrationConfirmationEmail(deps.site, event, paid, { code: locked.code, amountOffCents: amount.offCents }));
    return { status: "free" };
  });
  if (outcome.status === "free") {
    deps.outbox.wake();
    deps.logger.info({ reference: registration.reference, code: code.code }, "free registration recorded");
  }
  return outcome;
}

/** What the payment step shows about the registration's code: null when none is held. */
export async function discountOf(deps: RegistrationDeps, registration: Registration): Promise<{ code: string; offCents: number; listCents: number } | null> {
  const found = await repo.redemptionOf(deps.db, registration.id);
  if (!found || found.status === "released") return null;
  return { code: found.code, offCents: found.amountOffCents, listCents: registration.listPriceCents };
}
