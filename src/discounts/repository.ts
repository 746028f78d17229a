import type { Knex } from "knex";
import type { Db } from "../db/knex.ts";
import { toBool, toDate } from "../db/rows.ts";
import { normalizeCode, type DiscountCode, type DiscountKind, type DiscountType } from "./rules.ts";

/** The one module that queries the discount tables. */

type Conn = Db | Knex.Transaction;
type Row = Record<string, unknown>;

export type RedemptionStatus = "held" | "redeemed" | "released";

export interface Redemption {
  id: number;
  codeId: number;
  code: string;
  registrationId: number;
  amountOffCents: number;
  status: RedemptionStatus;
}

const nullableNumber = (v: unknown) => (v === null || v === undefined ? null : Number(v));

function mapCode(r: Row): DiscountCode {
  return {
    id: Number(r.id),
    code: String(r.code),
    type: String(r.discount_type) as DiscountType,
    value: Number(r.value),
    eventId: nullableNumber(r.event_id),
    kind: String(r.kind) as DiscountKind,
    maxRedemptions: nullableNumber(r.max_redemptions),
    startsAt: toDate(r.starts_at),
    expiresAt: toDate(r.expires_at),
    active: toBool(r.active),
  };
}

export async function findCode(conn: Conn, raw: string): Promise<DiscountCode | undefined> {
  const row = await conn("discount_codes").where({ code: normalizeCode(raw) }).first();
  return row ? mapCode(row) : undefined;
}

export async function findCodeById(conn: Conn, id: number): Promise<DiscountCode | undefined> {
  const row = await conn("discount_codes").where({ id }).first();
  return row ? mapCode(row) : undefined;
}

/**
 * Uses of a code that count against its limit: redeemed ones, and held ones whose registration still holds
 * its place (a lapsed hold stops counting at once, before the sweep marks it released).
 */
export async function usesTaken(conn: Conn, codeId: number, now: Date, exceptRegistrationId?: number): Promise<number> {
  const q = conn("discount_redemptions as dr")
    .join("registrations as r", "r.id", "dr.registration_id")
    .where("dr.discount_code_id", codeId)
    .andWhere((w) =>
      w.where("dr.status", "redeemed").orWhere((h) => h.where("dr.status", "held").andWhere("r.status", "pending_payment").andWhere("r.reserved_until", ">", now)),
    );
  if (exceptRegistrationId !== undefined) q.andWhereNot("dr.registration_id", exceptRegistrationId);
  const row = await q.count({ n: "*" }).first();
  return Number(row?.n ?? 0);
}

export async function redemptionOf(conn: Conn, registrationId: number): Promise<Redemption | undefined> {
  const row = await conn("discount_redemptions as dr")
    .join("discount_codes as c", "c.id", "dr.discount_code_id")
    .where("dr.registration_id", registrationId)
    .first("dr.id", "dr.discount_code_id", "c.code", "dr.registration_id", "dr.amount_off_cents", "dr.status");
  if (!row) return undefined;
  return {
    id: Number(row.id),
    codeId: Number(row.discount_code_id),
    code: String(row.code),
    registrationId: Number(row.registration_id),
    amountOffCents: Number(row.amount_off_cents),
    status: String(row.status) as RedemptionStatus,
  };
}

/** The registration's one redemption, taken (or moved to another code, or given a new amount) with the given status. */
export async function putRedemption(trx: Knex.Transaction, registrationId: number, codeId: number, amountOffCents: number, status: "held" | "redeemed", now: Date): Promise<void> {
  const changed = await trx("discount_redemptions")
    .where({ registration_id: registrationId })
    .update({ discount_code_id: codeId, amount_off_cents: amountOffCents, status, updated_at: now });
  if (changed === 0) {
    await trx("discount_redemptions").insert({ registration_id: registrationId, discount_code_id: codeId, amount_off_cents: amountOffCents, status, created_at: now, updated_at: now });
  }
}

export async function setStatus(conn: Conn, registrationId: number, from: RedemptionStatus[], to: RedemptionStatus, now: Date): Promise<boolean> {
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

// ---- operators ----

export interface NewCode {
  code: string;
  type: DiscountType;
  value: number;
  eventId: number | null;
  kind: DiscountKind;
  maxRedemptions: number | null;
  startsAt: Date | null;
  expiresAt: Date | null;
}

export async function insertCode(conn: Conn, c: NewCode, now: Date): Promise<number> {
  const [id] = await conn("discount_codes").insert({
    code: normalizeCode(c.code),
    discount_type: c.type,
    value: c.value,
    event_id: c.eventId,
    kind: c.kind,
    max_redemptions: c.maxRedemptions,
    starts_at: c.startsAt,
    expires_at: c.expiresAt,
    active: true,
    created_at: now,
  });
  return Number(id);
}

export interface CodeUsage extends DiscountCode {
  held: number;
  redeemed: number;
}

export async function listCodes(conn: Conn, now: Date): Promise<CodeUsage[]> {
  const rows: Row[] = await conn("discount_codes").orderBy("code");
  const counts: Row[] = await conn("discount_redemptions as dr")
    .join("registrations as r", "r.id", "dr.registration_id")
    .where("dr.status", "redeemed")
    .orWhere((h) => h.where("dr.status", "held").andWhere("r.status", "pending_payment").andWhere("r.reserved_until", ">", now))
    .groupBy("dr.discount_code_id", "dr.status")
    .select("dr.discount_code_id", "dr.status")
    .count({ n: "*" });
  const count = (id: number, status: string) => Number(counts.find((c) => Number(c.discount_code_id) === id && c.status === status)?.n ?? 0);
  return rows.map((r) => {
    const code = mapCode(r);
    return { ...code, held: count(code.id, "held"), redeemed: count(code.id, "redeemed") };
  });
}

export async function deactivateCode(conn: Conn, raw: string): Promise<boolean> {
  return (await conn("discount_codes").where({ code: normalizeCode(raw) }).update({ active: false })) === 1;
}
