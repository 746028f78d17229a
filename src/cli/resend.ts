// `npm run resend -- registration|order REFERENCE`: the confirmation e-mail of a paid registration or order, queued
// again in the outbox, built by the same function as when it was paid.
import { enqueueEmail } from "../email/outbox.ts";
import { findEvent } from "../events/repository.ts";
import { maskEmail } from "../logger.ts";
import { newStatusToken, orderStatusUrl, statusTokenHash } from "../orders/checkout.ts";
import { orderConfirmationEmail } from "../orders/email.ts";
import * as orders from "../orders/repository.ts";
import { isErasedAddress } from "../privacy/erase.ts";
import { registrationConfirmationEmail } from "../registrations/core/email.ts";
import { confirmationManageUrl } from "../registrations/changes/links.ts";
import { redemptionOf } from "../registrations/core/money/redemptions.ts";
import { findByReference } from "../registrations/core/tables/registrations.ts";
import { lockingTransaction } from "../db/transaction.ts";
import { parseResendArgs, RESEND_USAGE, type ResendCommand } from "./operatorArgs.ts";
import { isMain, OperatorError, runOperatorCommand, type OperatorContext } from "./operatorContext.ts";

const erased = (cmd: ResendCommand) => new OperatorError(`The payer of ${cmd.kind} ${cmd.reference} was erased on request: there is no address to send to.`);

/** Queues the confirmation again; resolves with the outbox row's id and the (masked) address it goes to. */
export async function resendConfirmation(ctx: OperatorContext, cmd: ResendCommand): Promise<{ emailId: number; to: string }> {
  return lockingTransaction(ctx.db, async (trx) => {
    if (cmd.kind === "registration") {
      const r = await findByReference(trx, cmd.reference);
      if (!r) throw new OperatorError(`There is no registration ${cmd.reference}.`);
      if (r.status !== "paid") throw new OperatorError(`Registration ${r.reference} is ${r.status}: only a paid registration has a confirmation.`);
      const event = await findEvent(trx, r.eventId);
      if (!event) throw new OperatorError(`The event of registration ${r.reference} is gone.`);
      const redemption = await redemptionOf(trx, r.id);
      const manageUrl = await confirmationManageUrl(trx, ctx, r.id, ctx.now());
      const email = registrationConfirmationEmail(ctx.site, event, r, redemption?.status === "redeemed" ? redemption : undefined, manageUrl);
      if (isErasedAddress(email.to)) throw erased(cmd);
      return { emailId: await enqueueEmail(trx, email), to: maskEmail(email.to) };
    }
    const order = await orders.findOrder(trx, cmd.reference);
    if (!order) throw new OperatorError(`There is no order ${cmd.reference}.`);
    if (order.status !== "paid") throw new OperatorError(`Order ${order.reference} is ${order.status}: only a paid order has a confirmation.`);
    if (isErasedAddress(order.customer.email)) throw erased(cmd);
    // Only the status link's hash is kept: the new e-mail gets a new link, and the earlier one stops working.
    const token = newStatusToken();
    await orders.setStatusTokenHash(trx, order.id, statusTokenHash(token));
    const email = orderConfirmationEmail(ctx.site, order, orderStatusUrl(ctx.publicUrl, token));
    return { emailId: await enqueueEmail(trx, email), to: maskEmail(email.to) };
  });
}

export async function runResendCommand(ctx: OperatorContext, cmd: ResendCommand, out: (line: string) => void = console.log): Promise<number> {
  const { emailId, to } = await resendConfirmation(ctx, cmd);
  out(`Queued the confirmation of ${cmd.kind} ${cmd.reference} to ${to} (e-mail ${emailId}); a running app instance sends it.`);
  return 0;
}

if (isMain(import.meta.url)) process.exitCode = await runOperatorCommand(process.argv.slice(2), parseResendArgs, RESEND_USAGE, (ctx, cmd) => runResendCommand(ctx, cmd));
