import type { Knex } from "knex";
import type { Db } from "../db/knex.ts";
import { toBool, toDate } from "../db/rows.ts";
import { normalizeCode, type DiscountCode, type DiscountKind, type DiscountType } from "../shared/discounts/rules.ts";

/** The one module that queries the discount codes (their use by registrations: src/registrations/core/money/). */

type Conn = Db | Knex.Transaction;
type Row = Record<string, unknown>;

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
  const row = await conn<Row>("discount_codes").where({ code: normalizeCode(raw) }).first();
  return row ? mapCode(row) : undefined;
}

/** The code named, its row locked until COMMIT (one statement: the lock is taken through the code's unique index). */
export async function lockCodeNamed(trx: Knex.Transaction, raw: string): Promise<DiscountCode | undefined> {
  const row = await trx<Row>("discount_codes").where({ code: normalizeCode(raw) }).forUpdate().first();
  return row ? mapCode(row) : undefined;
}

export async function findCodeById(conn: Conn, id: number): Promise<DiscountCode | undefined> {
  const row = await conn<Row>("discount_codes").where({ id }).first();
  return row ? mapCode(row) : undefined;
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
  const [id] = await conn<Row>("discount_codes").insert({
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
  const rows: Row[] = await conn<Row>("discount_codes").orderBy("code");
  const counts: Row[] = await conn<Row>("discount_redemptions as dr")
    .join("registrations as r", "r.id", "dr.registration_id")
    .where("dr.status", "redeemed")
    .orWhere((h) => { h.where("dr.status", "held").andWhere("r.status", "pending_payment").andWhere("r.reserved_until", ">", now); })
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
  return (await conn<Row>("discount_codes").where({ code: normalizeCode(raw) }).update({ active: false })) === 1;
}
