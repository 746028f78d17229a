import type { Knex } from "knex";
import { discountAmount } from "./rules.ts";
import * as repo from "./repository.ts";
import type { Redemption } from "./repository.ts";

/**
 * How a registration's redemption follows its hold, called inside the registration's own transactions:
 * paid -> redeemed, a re-held form -> re-priced (or dropped when the hold had lapsed), a lapsed hold -> released.
 */

export type RedeemOutcome = { redemption: Redemption | undefined } | { reject: string };

/**
 * Inside the transaction that marks the registration paid (its payment row locked first). A redemption held by
 * a live hold becomes redeemed; one whose hold lapsed is redeemed only while the code still has a use left,
 * decided under the code's row lock; otherwise the payment is rejected (and refunded by the payment core).
 */
export async function redeemOnPaid(trx: Knex.Transaction, registrationId: number, holdLive: boolean, now: Date): Promise<RedeemOutcome> {
  const found = await repo.redemptionOf(trx, registrationId);
  if (!found || found.status === "redeemed") return { redemption: found };
  if (!(found.status === "held" && holdLive)) {
    await trx("discount_codes").where({ id: found.codeId }).forUpdate().first("id");
    const code = await repo.findCodeById(trx, found.codeId);
    const taken = await repo.usesTaken(trx, found.codeId, now, registrationId);
    if (code?.maxRedemptions !== null && code?.maxRedemptions !== undefined && taken >= code.maxRedemptions) {
      return { reject: `the hold expired and discount code ${found.code} was used up` };
    }
  }
  await repo.setStatus(trx, registrationId, ["held", "released"], "redeemed", now);
  return { redemption: { ...found, status: "redeemed" } };
}

/**
 * The same form came back (Back, a changed package) and the registration was held again at `listCents`:
 * a code held by a live hold stays, re-priced; one whose hold had lapsed is dropped (its use may have gone
 * to someone else) and the visitor applies it again. Returns the amount to pay.
 */
export async function repriceOnRehold(trx: Knex.Transaction, registrationId: number, wasLive: boolean, listCents: number, now: Date): Promise<number> {
  const found = await repo.redemptionOf(trx, registrationId);
  if (!found || found.status === "redeemed") return listCents;
  if (!wasLive || found.status !== "held") {
    await repo.deleteRedemption(trx, registrationId);
    return listCents;
  }
  const code = (await repo.findCodeById(trx, found.codeId))!;
  const amount = discountAmount(listCents, code);
  await repo.setAmountOff(trx, registrationId, amount.offCents, now);
  await trx("registrations").where({ id: registrationId }).update({ amount_cents: amount.finalCents });
  return amount.finalCents;
}

/** The sweep marked the hold expired: its use was already free for others; the row says so too. */
export async function releaseOnExpiry(conn: Knex | Knex.Transaction, registrationId: number, now: Date): Promise<void> {
  await repo.setStatus(conn, registrationId, ["held"], "released", now);
}
