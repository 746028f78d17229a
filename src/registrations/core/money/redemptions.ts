import type { Knex } from "knex";
import type { Db } from "../../../db/knex.ts";

/** A registration's use of a discount code (discount_redemptions): taken, counted, redeemed or released. */

type Conn = Db | Knex.Transaction;

/**
 * Uses of a code that count against its limit: redeemed ones, and held ones whose registration still holds
 * its place (a lapsed hold stops counting at once, before the sweep marks it released).
 */
export async function usesTaken(conn: Conn, codeId: number, now: Date, exceptRegistrationId?: number): Promise<number> {
  const q = conn("discount_redemptions as dr")
    .join("registrations as r", "r.id", "dr.registration_id")
    .where("dr.discount_code_id", codeId)
    .andWhere((w) => {
      w.where("dr.status", "redeemed").orWhere((h) => { h.where("dr.status", "held").andWhere("r.status", "pending_payment").andWhere("r.reserved_until", ">", now); });
    });
  if (exceptRegistrationId !== undefined) q.andWhereNot("dr.registration_id", exceptRegistrationId);
  const row = await q.count({ n: "*" }).first();
  return Number(row?.n ?? 0);
}

/** The registration's one redemption, taken (or moved to another code, or given a new amount) with the given status. */
export async function putRedemption(trx: Knex.Transaction, registrationId: number, codeId: number, amountOffCents: number, status: "held" | "redeemed", now: Date): Promise<void> {
  // One statement: a registration has at most one redemption (its unique registration_id).
  await trx("discount_redemptions")
    .insert({ registration_id: registrationId, discount_code_id: codeId, amount_off_cents: amountOffCents, status, created_at: now, updated_at: now })
    .onConflict("registration_id")
    .merge(["discount_code_id", "amount_off_cents", "status", "updated_at"]);
}

export async function setRedemptionStatus(conn: Conn, registrationId: number, from: RedemptionStatus[], to: RedemptionStatus, now: Date): Promise<boolean> {
  const changed = await conn("discount_redemptions").where({ registration_id: registrationId }).whereIn("status", from).update({ status: to, updated_at: now });
  return changed === 1;
}

export async function setAmountOff(trx: Knex.Transaction, registrationId: number, amountOffCents: number, now: Date): Promise<void> {
  await trx("discount_redemptions").where({ registration_id: registrationId }).update({ amount_off_cents: amountOffCents, updated_at: now });
}

/** The code is removed from the registration before paying. */
export async function deleteRedemption(conn: Conn, registrationId: number): Promise<void> {
  await conn("discount_redemptions").where({ registration_id: registrationId }).whereNot({ status: "redeemed" }).delete();
}

export type RedemptionStatus = "held" | "redeemed" | "released";

export interface Redemption {
  id: number;
  codeId: number;
  code: string;
  registrationId: number;
  amountOffCents: number;
  status: RedemptionStatus;
  /** The code's kind of discount and its value (read with it: what the payment step shows). */
  codeType: string;
  codeValue: number;
}

export async function redemptionOf(conn: Conn, registrationId: number): Promise<Redemption | undefined> {
  const row: Record<string, unknown> | undefined = await conn<Record<string, unknown>>("discount_redemptions as dr")
    .join("discount_codes as c", "c.id", "dr.discount_code_id")
    .where("dr.registration_id", registrationId)
    .first("dr.id", "dr.discount_code_id", "c.code", "c.discount_type", "c.value", "dr.registration_id", "dr.amount_off_cents", "dr.status");
  return row ? redemptionFrom(row) : undefined;
}

/** MySQL: the redemption of the registration `r` of the outer statement, as a JSON object (null: none), for redemptionFrom. */
export const REDEMPTION_JSON =
  "(select json_object('id', dr.id, 'discount_code_id', dr.discount_code_id, 'code', c.code, 'discount_type', c.discount_type, 'value', c.value, " +
  "'registration_id', dr.registration_id, 'amount_off_cents', dr.amount_off_cents, 'status', dr.status) " +
  "from discount_redemptions dr join discount_codes c on c.id = dr.discount_code_id where dr.registration_id = r.id) as redemption_json";

export function redemptionFrom(row: Record<string, unknown>): Redemption {
  return {
    id: Number(row.id),
    codeId: Number(row.discount_code_id),
    code: String(row.code),
    registrationId: Number(row.registration_id),
    amountOffCents: Number(row.amount_off_cents),
    status: String(row.status) as RedemptionStatus,
    codeType: String(row.discount_type),
    codeValue: Number(row.value),
  };
}
