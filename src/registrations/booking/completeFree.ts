import { queuedLockingTransaction } from "../../db/rowQueue.ts";
import { enqueueEmail } from "../../email/outbox.ts";
import { findEvent } from "../../events/repository.ts";
import { PaymentNotOpenError } from "../../payments/core.ts";
import * as codes from "../../discounts/repository.ts";
import { DISCOUNT_REASONS, DISCOUNT_TEXT, discountAmount, refusal } from "../../shared/discounts/rules.ts";
import { eventKey, lockEvent } from "../core/locks.ts";
import { redemptionOf } from "../core/money/redemptions.ts";
import type { Registration } from "../core/registration.ts";
import { findByReference, lockByReference, setAmount, transition } from "../core/tables/registrations.ts";
import * as redemptions from "../core/money/redemptions.ts";
import { registrationConfirmationEmail } from "../core/email.ts";
import { confirmationManageUrl } from "../changes/links.ts";
import { queueFamilyLinks } from "../changes/familyLinks.ts";
import { closeInviteOnPayment } from "./invites/invites.ts";
import { DiscountRefused, codeText, lockCodeNamed, refuseUse } from "../core/money/codes.ts";
import { holdIsLive, REGISTRATION_KIND, type RegistrationDeps } from "../core/deps.ts";

export type FreeOutcome = { status: "free" } | { status: "paid" };

/**
 * Completes a registration that a code makes free. A first check without locks spares the visitor's PaymentIntent
 * when the code cannot make it free; then the PaymentIntent is canceled (should it have succeeded meanwhile, the
 * registration is paid by card, not free); then one transaction locks the event, the code and the registration, and
 * decides on what it reads there: the code's limit, and "free" from the list price as it now stands (a re-post of
 * the form in another tab may have changed the package). It takes the use, records the free settlement in the
 * payment core (no Stripe call), marks the registration paid and queues the confirmation.
 */
export async function completeFree(deps: RegistrationDeps, registration: Registration, raw: string | undefined): Promise<FreeOutcome> {
  if (registration.status === "paid") return { status: "paid" };
  const applied = await redemptionOf(deps.db, registration.id);
  const text = codeText(raw?.trim() ? raw : (applied?.code ?? ""));
  const early = await codes.findCode(deps.db, text);
  if (!early) throw new DiscountRefused("discount_unknown", DISCOUNT_REASONS.unknown);
  const reason = refusal(early, { eventId: registration.eventId, kind: registration.kind, now: deps.clock(), usesTaken: await redemptions.usesTaken(deps.db, early.id, deps.clock(), registration.id) });
  if (reason) throw new DiscountRefused("discount_not_usable", reason);
  if (!discountAmount(registration.listPriceCents, early).free) throw new DiscountRefused("discount_not_free", DISCOUNT_REASONS.notFree);

  const live = await deps.paymentCore.liveFor(REGISTRATION_KIND, registration.reference);
  if (live && live.provider !== "none" && (await deps.paymentCore.cancel(live)) === "already_succeeded") {
    if ((await findByReference(deps.db, registration.reference))?.status === "paid") return { status: "paid" };
    throw new DiscountRefused("discount_free_failed", DISCOUNT_TEXT.freeFailed);
  }

  const outcome = await queuedLockingTransaction(deps.db, eventKey(registration.eventId), async (trx): Promise<FreeOutcome> => {
    const now = deps.clock();
    await lockEvent(trx, registration.eventId);
    const code = await lockCodeNamed(trx, text);
    const r = await lockByReference(trx, registration.reference);
    if (r?.status === "paid") return { status: "paid" };
    if (!r || !holdIsLive(r, now)) throw new DiscountRefused("discount_no_registration", DISCOUNT_REASONS.noRegistration);
    await refuseUse(trx, code, r, now);
    const amount = discountAmount(r.listPriceCents, code);
    if (!amount.free) throw new DiscountRefused("discount_not_free", DISCOUNT_REASONS.notFree);
    await redemptions.putRedemption(trx, r.id, code.id, amount.offCents, "redeemed", now);
    await setAmount(trx, r.id, 0, r.version, now);
    try {
      await deps.paymentCore.recordFree(trx, REGISTRATION_KIND, r.reference);
    } catch (err) {
      // A PaymentIntent came back to life between the cancel and now (another tab): nothing is recorded.
      if (err instanceof PaymentNotOpenError) throw new DiscountRefused("discount_free_failed", DISCOUNT_TEXT.freeFailed);
      throw err;
    }
    if (!(await transition(trx, r.id, "pay", now, { amount_paid_cents: 0, paid_at: now, reserved_until: null }))) {
      throw new DiscountRefused("discount_free_failed", DISCOUNT_TEXT.freeFailed);
    }
    const paid = (await findByReference(trx, r.reference))!;
    const event = await findEvent(trx, paid.eventId);
    if (event) {
      await enqueueEmail(trx, registrationConfirmationEmail(deps.site, event, paid, { code: code.code, amountOffCents: amount.offCents }, await confirmationManageUrl(trx, deps, paid.id, now)));
      await queueFamilyLinks(trx, deps, event, await closeInviteOnPayment(trx, paid, now), now);
    }
    return { status: "free" };
  });
  if (outcome.status === "free") {
    deps.outbox.wake();
    deps.logger.info({ reference: registration.reference, code: text }, "free registration recorded");
  }
  return outcome;
}
