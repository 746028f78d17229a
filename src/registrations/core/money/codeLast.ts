import type { Knex } from "knex";
import { RestartTransaction } from "../../../db/transaction.ts";
import { committedByServer, rolledBackByServer } from "../../../db/serverCommits.ts";
import { isMysql } from "../../../db/dialect.ts";
import { admitPlaces } from "../../../events/places.ts";
import * as codes from "../../../discounts/repository.ts";
import { DISCOUNT_REASONS, type DiscountCode } from "../../../shared/discounts/rules.ts";
import type { RegistrationKind } from "../registration.ts";
import { DiscountRefused, refuseUse } from "./codes.ts";
import * as redemptions from "./redemptions.ts";

/**
 * A new hold's code use, taken last. A code that many families enter shares its limit among them as an event shares
 * its places, so its row is locked only at the end of the hold's transaction, with the event's count: on MySQL in the
 * same statement that takes the places and COMMITs (`admit_places_with_code`,
 * migrations/20261205000100_admit_with_code.ts), so no family waits for another's instance to get round to its next
 * statement. The hold read the code without a lock and priced on it (codes.ts: priceBeforeUse); under the lock the code
 * must still have that type and value, or the hold runs again from the start and reads it anew (the procedure also
 * checks it is still active, in its dates and for this event and kind, as refuseUse does).
 */
export interface CodeUse {
  code: DiscountCode;
  registrationId: number;
  eventId: number;
  kind: RegistrationKind;
  offCents: number;
}

type Row = Record<string, unknown>;

/** The code as locked still prices as the hold priced it (its type and value); otherwise the hold runs again. */
const pricesTheSame = (locked: DiscountCode | undefined, use: CodeUse): locked is DiscountCode =>
  locked !== undefined && locked.type === use.code.type && locked.value === use.code.value;

function codeChanged(use: CodeUse): never {
  throw new RestartTransaction(`discount code ${use.code.code} changed between its read and its use`);
}

function usedUp(): never {
  throw new DiscountRefused("discount_not_usable", DISCOUNT_REASONS.usedUp);
}

/**
 * The code's use taken under its lock, by statements (SQLite, and a hold past the waiting list's line): decided as
 * every other use is (codes.ts: refuseUse), refused with its reason when it may not be used now.
 */
export async function takeUseLast(trx: Knex.Transaction, use: CodeUse, now: Date): Promise<void> {
  const locked = await codes.lockCodeNamed(trx, use.code.code);
  if (!pricesTheSame(locked, use)) codeChanged(use);
  await refuseUse(trx, locked, { id: use.registrationId, eventId: use.eventId, kind: use.kind }, now);
  await redemptions.putRedemption(trx, use.registrationId, locked.id, use.offCents, "held", now);
}

/**
 * The hold's last statement when it has a code: the use and `places` taken (true), or nothing taken because the event
 * has not the places free (false: the caller rolls back; on MySQL the procedure has rolled back already, so the code's
 * row is not kept locked meanwhile). Refused when the code is used up.
 */
export async function admitWithCodeUse(trx: Knex.Transaction, places: number, use: CodeUse, now: Date): Promise<boolean> {
  if (!isMysql(trx)) {
    await takeUseLast(trx, use, now);
    return (await admitPlaces(trx, use.eventId, places, now)).admitted;
  }
  const bindings = [use.eventId, places, use.code.id, use.registrationId, use.offCents, use.code.type, use.code.value, use.kind, now];
  const result = (await trx.raw("call admit_places_with_code(?, ?, ?, ?, ?, ?, ?, ?, ?)", bindings)) as unknown as [[Row[], ...unknown[]], ...unknown[]];
  const outcome = String(result[0][0][0]?.outcome);
  if (outcome === "admitted") {
    committedByServer(trx);
    return true;
  }
  // Every other answer rolled back inside the server: the caller throws, and knex sends no ROLLBACK.
  rolledBackByServer(trx);
  if (outcome === "used_up") usedUp();
  if (outcome === "changed") codeChanged(use);
  if (outcome !== "full") throw new Error(`admit_places_with_code answered ${outcome}`);
  return false;
}
